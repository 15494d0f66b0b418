"""layoutc repack between oneDNN's grouped encoding and the padded dense tensor, from the
command line, against NumPy: random group sizes (empty groups often), variable dims 0 to
rank-1, ranks 1-3, offsets of 8 to 64 bits, f32/f16/i8/f64 values. Grouped -> padded must give
NumPy's gather (each group's rows, zero padding) byte for byte, and padded -> grouped the
values back. Then malformed offsets files and a wrong pair: each a located error, exit 1.

usage: grouped_cli.py LAYOUTC CASES SEED"""
import os
import subprocess
import sys
import tempfile

import numpy as np

layoutc, cases, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
work = tempfile.mkdtemp(prefix="layoutc-grouped-cli-")
OFFSETS = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
ELEMS = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "f64": np.float64}


def path(name):
    return os.path.join(work, name)


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


def gather(values, d, sizes, pad):
    """NumPy's padded tensor: group g's slice along d, zero-padded to pad, stacked in front."""
    out, start = [], 0
    for n in sizes:
        part = np.take(values, range(start, start + n), axis=d)
        widths = [(0, 0)] * values.ndim
        widths[d] = (0, pad - n)
        out.append(np.pad(part, widths))
        start += n
    return np.stack(out)


checked = failures = 0
for case in range(cases):
    rank = int(rng.integers(1, 4))
    d = int(rng.integers(rank))
    groups = int(rng.integers(1, 9))
    sizes = [0 if rng.random() < 0.25 else int(rng.integers(0, 40)) for _ in range(groups)]
    pad = max(sizes) + int(rng.integers(0, 3))
    width = [8, 16, 32, 64][rng.integers(4)]
    if sum(sizes) >= 2 ** (width - 1):
        width = 32
    elem = list(ELEMS)[rng.integers(len(ELEMS))]
    dims = [int(rng.integers(1, 6)) for _ in range(rank)]
    dims[d] = sum(sizes)
    values = (rng.standard_normal(dims) * 50).astype(ELEMS[elem])
    offsets = np.cumsum(sizes).astype(OFFSETS[width])
    want = gather(values, d, sizes, pad)
    gtype = "tensor<%s%s, grouped<variable_dim: %d, groups: %d, offsets: i%d>>" % (
        "".join("%dx" % n for n in dims), elem, d, groups, width)
    ptype = "tensor<%s%s>" % ("".join("%dx" % n for n in want.shape), elem)
    offsets.tofile(path("off.bin"))
    values.tofile(path("val.bin"))
    checked += 1
    r = run([layoutc, "repack", gtype, ptype, "-i", path("off.bin"), "-i", path("val.bin"), "-o", path("pad.bin")])
    if r.returncode != 0 or open(path("pad.bin"), "rb").read() != want.tobytes():
        failures += 1
        print("FAIL %s -> %s: %s" % (gtype, ptype, r.stderr.strip()))
        continue
    want.tofile(path("pad.bin"))
    r = run([layoutc, "repack", ptype, gtype, "-i", path("off.bin"), "-i", path("pad.bin"), "-o", path("back.bin")])
    if r.returncode != 0 or open(path("back.bin"), "rb").read() != values.tobytes():
        failures += 1
        print("FAIL %s -> %s: %s" % (ptype, gtype, r.stderr.strip()))

# Malformed offsets and pairs: located errors, exit 1, no output written.
G, P = "tensor<9x4xf32, grouped<variable_dim: 0, groups: 3>>", "tensor<3x5x4xf32>"
np.zeros((9, 4), dtype=np.float32).tofile(path("v9.bin"))
np.zeros((3, 5, 4), dtype=np.float32).tofile(path("p9.bin"))
for name, offs in [("decreasing", [4, 1, 9]), ("negative", [-1, 4, 9]), ("beyond", [1, 4, 10]),
                   ("short", [1, 4, 8]), ("too big", [0, 1, 9])]:
    np.array(offs, dtype=np.int32).tofile(path("bad.bin"))
    for args in ([G, P, "-i", path("bad.bin"), "-i", path("v9.bin")], [P, G, "-i", path("bad.bin"), "-i", path("p9.bin")]):
        if os.path.exists(path("out.bin")):
            os.remove(path("out.bin"))
        r = run([layoutc, "repack"] + args + ["-o", path("out.bin")])
        print("%s: exit %d: %s" % (name, r.returncode, r.stderr.strip().splitlines()[0]))
        if os.path.exists(path("out.bin")):
            failures += 1
            print("FAIL %s: an output was written" % name)
np.array([1, 4, 9, 9], dtype=np.int32).tofile(path("bad.bin"))
r = run([layoutc, "repack", G, P, "-i", path("bad.bin"), "-i", path("v9.bin"), "-o", path("out.bin")])
print("offsets size: exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[0]))
r = run([layoutc, "repack", G, "tensor<3x5x3xf32>", "-i", path("bad.bin"), "-i", path("v9.bin"), "-o", path("out.bin")])
print("pair: exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[0]))
print("grouped cli: %d cases, %d failures" % (checked, failures))
sys.exit(1 if failures else 0)
