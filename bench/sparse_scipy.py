#!/usr/bin/env python3
"""Sparse to sparse conversions, layoutc beside SciPy, in one run.

For each pair, `layoutc repack SRC DST --bench --density D` times the nnz
pass and the fill together (the two calls a caller makes) on a 4096x4096
f32 matrix at density D; SciPy converts a random matrix of the same shape
and density with sorted indices, as layoutc's formats require (BSR: tobsr
then sort_indices, since tobsr leaves each block row in the order it found
the blocks). Prints both times and SciPy / layoutc (above 1: layoutc is
faster).

usage: bench/sparse_scipy.py [LAYOUTC]     (default build/bin/layoutc)
"""
import os
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

N = 4096
ENC = "tensor<4096x4096xf32, #sparse_tensor.encoding<{ map = (i, j) -> (%s), posWidth = 32, crdWidth = 32 }>>"
TYPES = {
    "CSR": ENC % "i : dense, j : compressed",
    "CSC": ENC % "j : dense, i : compressed",
    "COO": ENC % "i : compressed(nonunique), j : singleton",
    "BSR2": ENC % "i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense",
    "BSR16": ENC % "i floordiv 16 : dense, j floordiv 16 : compressed, i mod 16 : dense, j mod 16 : dense",
}


def bsr(m, k):
    b = m.tobsr(blocksize=(k, k))
    b.sort_indices()
    return b


PAIRS = [("CSR", "CSC"), ("CSC", "CSR"), ("CSR", "COO"), ("COO", "CSR"), ("CSR", "BSR2"), ("BSR2", "CSR"),
         ("BSR16", "CSR")]
# The source object each SciPy conversion starts from (not timed).
SOURCE = {"CSR": lambda m: m, "CSC": lambda m: m.tocsc(), "COO": lambda m: m.tocoo(),
          "BSR2": lambda m: bsr(m, 2), "BSR16": lambda m: bsr(m, 16)}
CONVERT = {"CSR": lambda x: x.tocsr(), "CSC": lambda x: x.tocsc(), "COO": lambda x: x.tocoo(),
           "BSR2": lambda x: bsr(x.tocsr(), 2)}


def scipy_seconds(src, dst, density):
    m = sp.random(N, N, density=density, format="csr", dtype=np.float32, random_state=1)
    x = SOURCE[src](m)
    best = 1e9
    for _ in range(7):
        t = time.perf_counter()
        CONVERT[dst](x)
        best = min(best, time.perf_counter() - t)
    return best


def layoutc_seconds(tool, src, dst, density):
    out = subprocess.run([tool, "repack", TYPES[src], TYPES[dst], "--bench", "--density", str(density)],
                         capture_output=True, text=True, check=True).stdout
    return float(next(l.split()[1] for l in out.splitlines() if l.startswith("best_seconds:")))


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "build", "bin", "layoutc")
    print("4096x4096 f32, 32-bit positions and coordinates; times in ms (best of several)")
    print("%-14s %8s %10s %10s %12s" % ("pair", "density", "layoutc", "SciPy", "SciPy/layoutc"))
    for src, dst in PAIRS:
        for density in (0.01, 0.1):
            if "BSR16" in (src, dst) and density > 0.01:
                continue  # 16x16 blocks at 10% store the whole matrix
            ly, sc = layoutc_seconds(tool, src, dst, density), scipy_seconds(src, dst, density)
            print("%-14s %8g %10.2f %10.2f %11.2fx" % (src + "->" + dst, density, ly * 1e3, sc * 1e3, sc / ly))


if __name__ == "__main__":
    main()
