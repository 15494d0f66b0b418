#!/usr/bin/env python3
"""Transposes through the panel (plan: panel) against NumPy: destination rows that are not a whole
number of 64-byte lines apart, past the non-temporal threshold (the caller sets it to 0), stream
each row's whole lines from a stack panel and carry the partial line to the next X piece. For
each pair the plan must say `panel`; `layoutc repack -i -o` on 1 and 3 threads must write what
NumPy's transpose (and conversion) of random source values does. The shapes cover the pieces of
a sweep (pairs of X chunks, a chunk left over, a partial tail chunk), the Y runs (a whole run, a
shorter run, a partial Y block), super-blocks of X with rows left over after them, an outer
loop (nhwc -> nchw), 1-, 2-, 4- and 8-byte elements (i8: pieces shorter than a line) and a
conversion (s8 -> f32), and tiles whose runs continue across Y (nchw -> nChw8c, nChw16c).
Prints one line per pair and `panel_check: N pairs, K failures`. Usage: panel_check.py TMPDIR"""
import os
import subprocess
import sys

import numpy as np

tmp = sys.argv[1]
os.makedirs(tmp, exist_ok=True)
rng = np.random.default_rng(7)

# (source type, destination type, source dtype, NumPy of the source array -> destination array)
T = lambda a: a.T  # noqa: E731
PAIRS = [
    ("tensor<100x70xf32>", "tensor<100x70xf32, tiled_layout<<1,0>>>", np.float32, (100, 70), T),
    ("tensor<84x96xf32>", "tensor<84x96xf32, tiled_layout<<1,0>>>", np.float32, (84, 96), T),
    ("tensor<1001x333xf32>", "tensor<1001x333xf32, tiled_layout<<1,0>>>", np.float32, (1001, 333), T),
    ("tensor<300x77xbf16>", "tensor<300x77xbf16, tiled_layout<<1,0>>>", np.uint16, (300, 77), T),
    ("tensor<70x45xf64>", "tensor<70x45xf64, tiled_layout<<1,0>>>", np.float64, (70, 45), T),
    # i8 by byte columns in groups of four 32-row chunks, the chunks left over (32 bytes, less
    # than a line: a piece that completes none carries its first) and a tail
    ("tensor<300x130xi8>", "tensor<300x130xi8, tiled_layout<<1,0>>>", np.int8, (300, 130), T),
    # joined rows (each pixel's channels follow the last's, one sweep of all of X): the Y run is
    # one range, streamed whole; rows of 80 and 400 bytes, partial Y blocks and a tail chunk
    ("tensor<4x20x15x15xf32>", 'tensor<4x20x15x15xf32, "nhwc">', np.float32, (4, 20, 15, 15),
     lambda a: a.transpose(0, 2, 3, 1)),
    ("tensor<2x100x30x30xf32>", 'tensor<2x100x30x30xf32, "nhwc">', np.float32, (2, 100, 30, 30),
     lambda a: a.transpose(0, 2, 3, 1)),
    ("tensor<1000x333xi8>", "tensor<1000x333xi8, tiled_layout<<1,0>>>", np.int8, (1000, 333), T),
    ('tensor<3x40x14x14xf32, "nhwc">', "tensor<3x40x14x14xf32>", np.float32, (3, 14, 14, 40),
     lambda a: a.transpose(0, 3, 1, 2)),
    ('tensor<2x64x15x15xi8, "nhwc">', "tensor<2x64x15x15xf32>", np.int8, (2, 15, 15, 64),
     lambda a: a.transpose(0, 3, 1, 2).astype(np.float32)),
    # tiles whose runs continue across Y (nchw -> nChw8c, nChw16c: a channel block's pixels are one
    # range), blocks 13x13 pixels long (not a whole number of lines): joined runs that carry their
    # last partial line to the next run; bf16 (bits as they are)
    ("tensor<2x32x13x13xf32>", 'tensor<2x32x13x13xf32, "nChw8c">', np.float32, (2, 32, 13, 13),
     lambda a: a.reshape(2, 4, 8, 13, 13).transpose(0, 1, 3, 4, 2)),
    ("tensor<2x64x13x13xbf16>", 'tensor<2x64x13x13xbf16, "nChw16c">', np.uint16, (2, 64, 13, 13),
     lambda a: a.reshape(2, 4, 16, 13, 13).transpose(0, 1, 3, 4, 2)),
]


def layoutc(*args):
    return subprocess.run(["layoutc", *args], capture_output=True, text=True)


failures = 0
for i, (s, d, dt, shape, f) in enumerate(PAIRS):
    if np.issubdtype(dt, np.floating):
        a = rng.standard_normal(shape).astype(dt)
    else:
        a = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, size=shape, dtype=dt, endpoint=True)
    src, ref = os.path.join(tmp, f"{i}.in"), np.ascontiguousarray(f(a)).tobytes()
    a.tofile(src)
    plan = layoutc("repack", s, d, "--plan").stdout
    bad = [] if " panel" in plan else ["not planned through the panel"]
    for threads in ("1", "3"):
        out = os.path.join(tmp, f"{i}.{threads}.out")
        r = layoutc("repack", s, d, "-i", src, "-o", out, "--threads", threads)
        if r.returncode or open(out, "rb").read() != ref:
            bad.append(f"{threads} thread(s): {'exit %d' % r.returncode if r.returncode else 'wrong bytes'}")
    failures += bool(bad)
    print(f"{s} -> {d}: {'; '.join(bad) or 'ok'}")
print(f"panel_check: {len(PAIRS)} pairs, {failures} failures")
sys.exit(failures != 0)
