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



def buffers_of(kind, m, w):
    """SciPy's conversion of m (explicit zeros kept) as the type's buffers."""
    iw = WIDTHS[w]
    if kind == "bsr":
        b = m.tobsr(blocksize=(2, 2))
        b.sort_indices()
        return [b.indptr.astype(iw), b.indices.astype(iw), b.data.reshape(-1)]
    if kind == "coo":
        c = m.tocsr()
        c.sort_indices()
        c = c.tocoo()
        return [np.array([0, c.nnz], dtype=iw), c.row.astype(iw), c.col.astype(iw), c.data]
    c = m.tocsr() if kind == "csr" else m.tocsc()
    c.sort_indices()
    return [c.indptr.astype(iw), c.indices.astype(iw), c.data]


# Sparse to sparse (CSR or CSC to the others) through the CLI, against SciPy's tocsc, tocoo,
# tobsr and tocsr; some stored entries are explicit zeros, which stay stored.
conversions = 0
for case in range(cases):
    src = ["csr", "csc"][case % 2]
    dst = [k for k in ("csr", "csc", "coo", "bsr") if k != src][rng.integers(3)]
    elem = list(ELEMS)[rng.integers(len(ELEMS))]
    w = [16, 32, 64][rng.integers(3)]
    rows, cols = 2 * int(rng.integers(0, 6)), 2 * int(rng.integers(0, 6))
    a = (rng.standard_normal((rows, cols)) * 100).astype(ELEMS[elem])
    a[rng.random((rows, cols)) >= [0.0, 0.1, 0.5, 1.0][rng.integers(4)]] = 0
    m = sp.csr_matrix(a) if src == "csr" else sp.csc_matrix(a)
    if m.nnz:
        m.data[rng.random(m.nnz) < 0.2] = 0  # explicit zeros
    ins = [os.path.join(work, "s%d.bin" % i) for i in range(3)]
    for f, b in zip(ins, [m.indptr.astype(WIDTHS[w]), m.indices.astype(WIDTHS[w]), m.data]):
        b.tofile(f)
    want = buffers_of(dst, m, w)
    outs = [os.path.join(work, "t%d.bin" % i) for i in range(len(want))]
    stype = "tensor<%dx%dx%s, %s>" % (rows, cols, elem, enc(src, w))
    dtype = "tensor<%dx%dx%s, %s>" % (rows, cols, elem, enc(dst, w))
    r = run([layoutc, "repack", stype, dtype] + sum((["-i", f] for f in ins), []) + sum((["-o", o] for o in outs), []))
    conversions += 1
    if r.returncode != 0:
        failures += 1
        print("FAIL %s -> %s: %s" % (stype, dtype, r.stderr.strip()))
        continue
    for i, (o, wnt) in enumerate(zip(outs, want)):
        if open(o, "rb").read() != wnt.tobytes():
            failures += 1
            print("FAIL %s -> %s buffer %d: layoutc %s, SciPy %s" % (stype, dtype, i, open(o, "rb").read()[:32],
                                                                    wnt.tobytes()[:32]))
print("sparse to sparse: %d conversions" % conversions)

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
# A malformed source buffer in a sparse-to-sparse repack is the same located error.
r = run([layoutc, "repack", "tensor<4x4xf32, csr<nnz: ?, index: i32, pointer: i32>>",
         "tensor<4x4xf32, coo<nnz: ?, index: i32>>"] +
        sum((["-i", os.path.join(work, f)] for f in ("p.bin", "c.bin", "v.bin")), []) + ["-o", "/dev/null"] * 4)
print("bad coordinate to coo: exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[0]))
print("sparse cli: %d cases, %d failures" % (checked, failures))
sys.exit(1 if failures else 0)
