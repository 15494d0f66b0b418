#!/usr/bin/env python3
"""The buffers layoutc describes for csr, coo, BSR (a block map) and a
doubly compressed encoding have the byte sizes of SciPy's arrays for random
matrices with that many stored entries (SciPy is the oracle: indptr,
indices, data; COO's row and col; BSR's indptr, indices and blocks)."""
import json
import subprocess
import sys

import numpy as np
import scipy.sparse as sp

WIDTH = {0: np.int64, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def describe(t):
    return json.loads(subprocess.run(["layoutc", "describe", "--json", t], check=True, capture_output=True,
                                     text=True).stdout)


def sizes(d):
    return [(b["role"], b.get("level"), b["size_bytes"]) for b in d["buffers"]]


def check(name, t, want):
    d = describe(t)
    got = sizes(d)
    if got != want:
        print(f"{name}: {t}: layoutc {got}, scipy {want}")
        return 1
    return 0


rng = np.random.default_rng(7)
bad = cases = 0
for m, n, density, w in [(4, 6, 0.3, 32), (16, 9, 0.1, 16), (7, 7, 0.6, 0), (30, 40, 0.05, 64), (5, 3, 0.0, 8)]:
    a = sp.random(m, n, density=density, format="csr", random_state=rng, dtype=np.float32)
    it = WIDTH[w]
    idx = "" if w == 0 else f", index: i{w}, pointer: i{w}"
    want = [("positions", 1, a.indptr.astype(it).nbytes), ("coordinates", 1, a.indices.astype(it).nbytes),
            ("values", None, a.data.nbytes)]
    bad += check("csr", f"tensor<{m}x{n}xf32, csr<nnz: {a.nnz}{idx}>>", want)
    c = a.tocoo()
    # oneDNN's coo (one coordinates buffer per dim) is MLIR's SoA COO, whose
    # first level also keeps its two positions [0, nnz].
    cidx = "" if w == 0 else f", index: i{w}"
    want = [("positions", 0, np.array([0, c.nnz], dtype=it).nbytes), ("coordinates", 0, c.row.astype(it).nbytes),
            ("coordinates", 1, c.col.astype(it).nbytes), ("values", None, c.data.nbytes)]
    bad += check("coo", f"tensor<{m}x{n}xf32, coo<nnz: {c.nnz}{cidx}>>", want)
    cases += 2
for m, n, r, s in [(8, 8, 2, 2), (12, 6, 3, 2), (4, 16, 4, 4)]:
    a = sp.random(m, n, density=0.2, format="csr", random_state=rng, dtype=np.float64).tobsr(blocksize=(r, s))
    t = (f"tensor<{m}x{n}xf64, #sparse_tensor.encoding<{{ map = (i, j) -> (i floordiv {r} : dense, "
         f"j floordiv {s} : compressed, i mod {r} : dense, j mod {s} : dense), posWidth = 32, crdWidth = 32, "
         f"nnz = {a.data.size} }}>>")
    want = [("positions", 1, a.indptr.astype(np.int32).nbytes), ("coordinates", 1, a.indices.astype(np.int32).nbytes),
            ("values", None, a.data.nbytes)]
    bad += check("bsr", t, want)
    cases += 1
print(f"{cases} encodings, {bad} mismatches")
sys.exit(1 if bad else 0)
