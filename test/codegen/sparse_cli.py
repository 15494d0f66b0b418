"""layoutc repack between dense tensors and sparse encodings, from the command line, against
SciPy: random matrices (densities 0 to 1, empty rows and columns, empty shapes) go dense -> CSR,
CSC, COO and BSR (one -o per buffer) and back (one -i per buffer); every buffer must equal
SciPy's indptr / indices / data at the type's widths, byte for byte, and the round trip the
dense bytes. Also: a static nnz that the data contradicts and a malformed buffer are errors.

usage: sparse_cli.py LAYOUTC CASES SEED"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp

layoutc, cases, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
work = tempfile.mkdtemp(prefix="layoutc-sparse-cli-")
WIDTHS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
ELEMS = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i8": np.int8}


def enc(kind, w):
    if kind == "csr":
        return "csr<nnz: ?, index: i%d, pointer: i%d>" % (w, w)
    if kind == "csc":
        return ("#sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed), posWidth = %d, "
                "crdWidth = %d }>" % (w, w))
    if kind == "coo":
        return "coo<nnz: ?, index: i%d>" % w
    return ("#sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, "
            "i mod 2 : dense, j mod 2 : dense), posWidth = %d, crdWidth = %d }>" % (w, w))


def expected(kind, a, w):
    """SciPy's buffers, in the type's order."""
    iw = WIDTHS[w]
    if kind == "csr":
        m = sp.csr_matrix(a)
        return [m.indptr.astype(iw), m.indices.astype(iw), m.data]
    if kind == "csc":
        m = sp.csc_matrix(a)
        return [m.indptr.astype(iw), m.indices.astype(iw), m.data]
    if kind == "coo":  # layoutc's coo: SoA, positions [0, nnz], row-major order
        m = sp.csr_matrix(a).tocoo()
        return [np.array([0, m.nnz], dtype=iw), m.row.astype(iw), m.col.astype(iw), m.data]
    m = sp.bsr_matrix(a, blocksize=(2, 2))
    m.sort_indices()
    return [m.indptr.astype(iw), m.indices.astype(iw), m.data.reshape(-1)]


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


checked = failures = 0
for case in range(cases):
    kind = ["csr", "csc", "coo", "bsr"][case % 4]
    elem = list(ELEMS)[rng.integers(len(ELEMS))]
    w = [8, 16, 32, 64][rng.integers(4)]
    rows, cols = int(rng.integers(0, 9)) * (2 if kind == "bsr" else 1), int(rng.integers(0, 9)) * (2 if kind == "bsr" else 1)
    if case % 7 == 0:
        rows = 0 if kind != "bsr" else 2
    if max(rows, cols) >= 2 ** w:
        w = 32
    density = [0.0, 0.05, 0.3, 0.7, 1.0][rng.integers(5)]
    a = (rng.standard_normal((rows, cols)) * 100).astype(ELEMS[elem])
    a[rng.random((rows, cols)) >= density] = 0
    if rows > 2:
        a[1, :] = 0  # an empty row
    dense = "tensor<%dx%dx%s>" % (rows, cols, elem)
    sparse = "tensor<%dx%dx%s, %s>" % (rows, cols, elem, enc(kind, w))
    din = os.path.join(work, "d.bin")
    a.tofile(din)
    want = expected(kind, a, w)
    outs = [os.path.join(work, "b%d.bin" % i) for i in range(len(want))]
    r = run([layoutc, "repack", dense, sparse, "-i", din] + sum((["-o", o] for o in outs), []))
    checked += 1
    if r.returncode != 0:
        failures += 1
        print("FAIL %s %s: %s" % (kind, sparse, r.stderr.strip()))
        continue
    for i, (o, wnt) in enumerate(zip(outs, want)):
        if open(o, "rb").read() != wnt.tobytes():
            failures += 1
            print("FAIL %s buffer %d: layoutc %s, SciPy %s" % (sparse, i, open(o, "rb").read()[:32],
                                                               wnt.tobytes()[:32]))
    back = os.path.join(work, "back.bin")
    r = run([layoutc, "repack", sparse, dense] + sum((["-i", o] for o in outs), []) + ["-o", back])
    if r.returncode != 0 or open(back, "rb").read() != a.tobytes():
        failures += 1
        print("FAIL round trip %s: %s" % (sparse, r.stderr.strip()))

# A static nnz the data contradicts, and a coordinate out of range: errors, not answers.
a = np.eye(4, dtype=np.float32)
a.tofile(os.path.join(work, "eye.bin"))
r = run([layoutc, "repack", "tensor<4x4xf32>", "tensor<4x4xf32, csr<nnz: 3, index: i32, pointer: i32>>", "-i",
         os.path.join(work, "eye.bin"), "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null"])
print("nnz mismatch: exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[0]))
np.array([0, 1, 2, 3, 4], dtype=np.int32).tofile(os.path.join(work, "p.bin"))
np.array([0, 1, 7, 3], dtype=np.int32).tofile(os.path.join(work, "c.bin"))
np.ones(4, dtype=np.float32).tofile(os.path.join(work, "v.bin"))
r = run([layoutc, "repack", "tensor<4x4xf32, csr<nnz: ?, index: i32, pointer: i32>>", "tensor<4x4xf32>"] +
        sum((["-i", os.path.join(work, f)] for f in ("p.bin", "c.bin", "v.bin")), []) + ["-o", "/dev/null"])
print("bad coordinate: exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[0]))
print("sparse cli: %d cases, %d failures" % (checked, failures))
sys.exit(1 if failures else 0)
