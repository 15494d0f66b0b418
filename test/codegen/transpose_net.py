#!/usr/bin/env python3
"""Register transposes against NumPy: full tiles (x = V rows) go through the unpack and block
shuffle network, tail tiles through interleaves of halves. For each element type (1, 2, 4 and 8
bytes; and converting f32 <-> bf16, s8 -> f32, whose shuffles run on the narrower side) and each
vector width (16, 32, 64 bytes), `layoutc repack -i -o` must write NumPy's transpose (or, when
converting, the interpreter's bytes) on 1 and 2 threads. Shapes leave tails in both dims.
Usage: transpose_net.py TMPDIR"""
import os
import subprocess
import sys

import numpy as np

tmp = sys.argv[1]
os.makedirs(tmp, exist_ok=True)
rng = np.random.default_rng(11)

SAME = [("i8", np.uint8), ("f16", np.uint16), ("f32", np.uint32), ("f64", np.uint64)]
SHAPES = ["64x64", "96x160", "131x77", "3x5x200x72"]
CONVERT = [("f32", "bf16"), ("bf16", "f32"), ("i8", "f32")]


def layoutc(args, env):
    return subprocess.run(["layoutc"] + args, env=env, capture_output=True)


runs = failures = 0
for n, shape in enumerate(SHAPES):
    dims = [int(d) for d in shape.split("x")]
    perm = list(range(len(dims) - 2)) + [len(dims) - 1, len(dims) - 2]
    order = ",".join(str(d) for d in perm)
    cases = [(e, e, t) for e, t in SAME] + [(s, d, None) for s, d in CONVERT]
    for src_e, dst_e, np_t in cases:
        src = f"tensor<{shape}x{src_e}>"
        dst = f"tensor<{shape}x{dst_e}, tiled_layout<<{order}>>>"
        if np_t is not None:
            a = rng.integers(0, np.iinfo(np_t).max, size=dims, dtype=np_t, endpoint=True)
            ref = np.ascontiguousarray(a.transpose(perm)).tobytes()
        elif src_e == "i8":
            a = rng.integers(-128, 127, size=dims, dtype=np.int8, endpoint=True)
            ref = np.ascontiguousarray(a.astype(np.float32).transpose(perm)).tobytes()
        else:
            a = rng.standard_normal(size=dims).astype(np.float32)
            if src_e == "bf16":  # bf16: the high halves of f32
                a = (a.view(np.uint32) >> 16).astype(np.uint16)
            ref = None
        inp = os.path.join(tmp, f"in.{n}.{src_e}.{dst_e}")
        a.tofile(inp)
        if ref is None:
            out = os.path.join(tmp, f"ref.{n}.{src_e}.{dst_e}")
            r = layoutc(["repack", src, dst, "-i", inp, "-o", out, "--interpret"], os.environ)
            ref = open(out, "rb").read() if r.returncode == 0 else b"interpreter failed"
        for vb in ("16", "32", "64"):
            for threads in ("1", "2"):
                env = dict(os.environ, LAYOUTC_VECTOR_BYTES=vb)
                out = os.path.join(tmp, f"out.{n}.{src_e}.{dst_e}.{vb}.{threads}")
                r = layoutc(["repack", src, dst, "-i", inp, "-o", out, "--threads", threads], env)
                got = open(out, "rb").read() if r.returncode == 0 else None
                runs += 1
                if got != ref:
                    failures += 1
                    print(f"FAIL {src} -> {dst} vector {vb} threads {threads}: {r.stderr.decode().strip()}")
print(f"transpose_net: {runs} runs, {failures} failures")
