#!/usr/bin/env python3
"""An independent Morton (Z-order) oracle: each dim padded to a power of two,
the bits of the index interleaved from the lowest, the last dim lowest in each
round, a dim out of bits dropping out. Compares every element's offset and the
allocation with `layoutc offset TYPE --all` and `describe --json`."""
import itertools
import json
import subprocess
import sys

SHAPES = [(4, 4), (8, 8), (2, 8), (8, 2), (3, 5), (5, 3), (16,), (7,), (4, 4, 4), (2, 3, 4), (1, 8, 8),
          (8, 1, 2), (3, 3, 3, 3), (16, 16), (32, 4), (6, 10), (2, 2, 2, 2, 2)]


def bits(n):
    b = 0
    while (1 << b) < n:
        b += 1
    return b


def morton(idx, dims):
    nb = [bits(d) for d in dims]
    off, pos = 0, 0
    for k in range(max(nb, default=0)):
        for d in reversed(range(len(dims))):
            if k < nb[d]:
                off |= ((idx[d] >> k) & 1) << pos
                pos += 1
    return off, 1 << pos


bad = 0
for dims in SHAPES:
    for elem in ("f32", "i4"):
        t = "tensor<%sx%s, morton>" % ("x".join(map(str, dims)), elem)
        out = subprocess.run(["layoutc", "offset", t, "--all"], capture_output=True, text=True, check=True).stdout
        got = [int(x) for x in out.split()]
        want = [morton(i, dims)[0] for i in itertools.product(*[range(d) for d in dims])]
        desc = json.loads(subprocess.run(["layoutc", "describe", t, "--json"], capture_output=True, text=True,
                                         check=True).stdout)
        alloc = morton([0] * len(dims), dims)[1]
        if got != want or desc["alloc_elements"] != alloc:
            bad += 1
            print("MISMATCH", t, got[:16], want[:16], desc["alloc_elements"], alloc)
print("morton: %d types agree, %d differ" % (2 * len(SHAPES) - bad, bad))

# Repack from Morton order to row-major, compiled and interpreted: the source
# holds at each storage position its own index, so the destination's element
# (i, j, ...) must hold the oracle's offset of (i, j, ...).
import os
import struct
import tempfile

rbad = 0
with tempfile.TemporaryDirectory() as tmp:
    for dims in [(8, 8), (3, 5), (4, 4, 4), (2, 16)]:
        _, alloc = morton([0] * len(dims), dims)
        src = os.path.join(tmp, "src")
        with open(src, "wb") as f:
            f.write(struct.pack("<%df" % alloc, *range(alloc)))
        shape = "x".join(map(str, dims))
        want = [float(morton(i, dims)[0]) for i in itertools.product(*[range(d) for d in dims])]
        for mode in ([], ["--interpret"]):
            dst = os.path.join(tmp, "dst")
            subprocess.run(["layoutc", "repack", "tensor<%sxf32, morton>" % shape, "tensor<%sxf32>" % shape, "-i", src,
                            "-o", dst] + mode, check=True)
            with open(dst, "rb") as f:
                data = f.read()
            got = list(struct.unpack("<%df" % (len(data) // 4), data))
            if got != want:
                rbad += 1
                print("REPACK MISMATCH", shape, mode, got[:16], want[:16])
print("morton repack: %d runs agree, %d differ" % (8 - rbad, rbad))
sys.exit(1 if bad or rbad else 0)
