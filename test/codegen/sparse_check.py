"""Sparse conversions (sparse_driver) against SciPy and hand-computed vectors.

Random matrices (densities 0 to 1, empty shapes, empty rows and columns, -0.0
and NaN, f32/f64/f16/bf16/i64/i32/i16/i8, every position/coordinate width
that fits) go to
CSR, CSC, COO (AoS and SoA) and BSR through the interpreter and the JIT; every
buffer must equal SciPy's csr_matrix / csc_matrix / coo (row-major) /
bsr_matrix indptr, indices and data converted to the widths, byte for byte,
and the buffers must come back to the dense matrix. Sparse-to-sparse
conversions are checked against SciPy's tocsc/tocsr/tocoo/tobsr. Hand vectors
cover 2:4 (n_out_of_m), a 3-D COO and loose_compressed; malformed buffers must
give the located error, never a crash.

usage: sparse_check.py SPARSE_DRIVER CASES SEED
"""
import os
import re
import random
import subprocess
import sys

import numpy as np
import scipy.sparse as sp

# bf16 matrices are f32 ones whose values bf16 holds exactly (low 16 bits zero): SciPy works on
# the f32 matrix and the bytes on the wire are their high halves (wire()).
DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i8": np.int8, "f16": np.float16,
          "bf16": np.float32, "i64": np.int64, "i16": np.int16}
VBITS = {"f32": 32, "f64": 64, "i32": 32, "i8": 8, "f16": 16, "bf16": 16, "i64": 64, "i16": 16}
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
failures = []


def wire(dt, a):
    """The bytes of values of type dt."""
    a = np.ascontiguousarray(a)
    if dt == "f16":  # SciPy holds f16 matrices as f32 (exactly)
        return a.astype(np.float16).tobytes()
    if dt == "bf16":
        return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()
    return a.tobytes()


def fail(what):
    failures.append(what)
    if len(failures) <= 20:
        print("FAIL:", what)


class Driver:
    def __init__(self, path):
        self.path = path
        self.p = subprocess.Popen([path, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)

    def _ask(self, line, payload):
        self.p.stdin.write(line.encode() + b"\n" + payload)
        self.p.stdin.flush()
        head = self.p.stdout.readline().decode()
        if not head:
            raise SystemExit("sparse_driver died on: " + line)
        return head.split()

    def _buffers(self, head, widths):
        n = int(head[1])
        counts = [int(c) for c in head[2:2 + n]]
        return [self.p.stdout.read(c * w // 8) for c, w in zip(counts, widths)]

    def from_dense(self, mode, spec, dense, widths):
        head = self._ask("from-dense %s %s" % (mode, spec.text), wire(spec.dtype, dense))
        return self._buffers(head, widths) if head[0] == "ok" else " ".join(head[1:])

    def to_dense(self, mode, spec, bufs, widths):
        counts = [len(b) * 8 // w for b, w in zip(bufs, widths)]
        line = "to-dense %s %s %d %s" % (mode, spec.text, len(bufs), " ".join(map(str, counts)))
        head = self._ask(line, b"".join(bufs))
        if head[0] != "ok":
            return " ".join(head[1:])
        return self.p.stdout.read(spec.dense_bytes())

    def convert(self, src, dst, bufs, op="convert"):
        counts = [len(b) * 8 // w for b, w in zip(bufs, src.widths())]
        line = "%s %s %s %d %s" % (op, src.text, dst.text, len(bufs), " ".join(map(str, counts)))
        head = self._ask(line, b"".join(bufs))
        return self._buffers(head, dst.widths()) if head[0] == "ok" else " ".join(head[1:])


class Spec:
    """A format for the driver, with the widths of its buffers."""

    def __init__(self, dtype, p, c, shape, levels, kinds):
        self.dtype, self.p, self.c, self.shape, self.kinds = dtype, p, c, shape, kinds
        self.text = ",".join([dtype, "p%d" % p, "c%d" % c, "x".join(map(str, shape))] + levels)

    def widths(self):
        vbits = VBITS[self.dtype]
        return [self.p if k == "pos" else self.c if k == "crd" else vbits for k in self.kinds]

    def dense_bytes(self):
        return int(np.prod(self.shape)) * VBITS[self.dtype] // 8


def csr(dt, p, c, shape):
    return Spec(dt, p, c, shape, ["i0:dense", "i1:compressed"], ["pos", "crd", "val"])


def csc(dt, p, c, shape):
    return Spec(dt, p, c, shape, ["i1:dense", "i0:compressed"], ["pos", "crd", "val"])


def coo(dt, p, c, shape, soa=False):
    if soa:
        return Spec(dt, p, c, shape, ["i0:compressed+nu", "i1:singleton+soa"], ["pos", "crd", "crd", "val"])
    return Spec(dt, p, c, shape, ["i0:compressed+nu", "i1:singleton"], ["pos", "crd", "val"])


def dcsr(dt, p, c, shape):
    return Spec(dt, p, c, shape, ["i0:compressed", "i1:compressed"], ["pos", "crd", "pos", "crd", "val"])


def dcsc(dt, p, c, shape):
    return Spec(dt, p, c, shape, ["i1:compressed", "i0:compressed"], ["pos", "crd", "pos", "crd", "val"])


def bsr(dt, p, c, shape, r, s):
    levels = ["i0/%d:dense" % r, "i1/%d:compressed" % s, "i0%%%d:dense" % r, "i1%%%d:dense" % s]
    return Spec(dt, p, c, shape, levels, ["pos", "crd", "val"])


def u(a, bits):
    return np.asarray(a, dtype=np.int64).astype(UINT[bits]).tobytes()


def stored(dense):
    """The round trip of a format storing the values != 0 (NaN kept, -0.0 not)."""
    return np.where(dense != 0, dense, np.zeros_like(dense)) if dense.size else dense


def oracle(kind, spec, dense, blk=None):
    """SciPy's buffers for the format, and the dense matrix they hold."""
    dense = dense.astype(np.float32) if dense.dtype == np.float16 else dense  # SciPy has no f16
    p, c = spec.p, spec.c
    if kind in ("csr", "csc"):
        m = (sp.csr_matrix if kind == "csr" else sp.csc_matrix)(dense)
        return [u(m.indptr, p), u(m.indices, c), wire(spec.dtype, m.data)], stored(dense)
    if kind in ("dcsr", "dcsc"):  # SciPy's CSR (CSC) without its empty rows (columns)
        m = (sp.csr_matrix if kind == "dcsr" else sp.csc_matrix)(dense)
        rows = np.nonzero(np.diff(m.indptr))[0]
        pos1 = np.concatenate([[0], np.cumsum(np.diff(m.indptr)[rows])])
        return [u([0, len(rows)], p), u(rows, c), u(pos1, p), u(m.indices, c), wire(spec.dtype, m.data)], stored(dense)
    if kind in ("coo", "coo-soa"):
        m = sp.csr_matrix(dense).tocoo()  # canonical row-major order
        pos = u([0, m.nnz], p)
        if kind == "coo-soa":
            return [pos, u(m.row, c), u(m.col, c), wire(spec.dtype, m.data)], stored(dense)
        return [pos, u(np.stack([m.row, m.col], 1).reshape(-1), c), wire(spec.dtype, m.data)], stored(dense)
    r, s = blk
    # A stored block holds its zeros as +0 (a -0.0 in the dense block is not
    # a stored value), as SciPy's bsr_matrix builds it.
    m = sp.bsr_matrix(dense, blocksize=(r, s))
    m.sort_indices()  # SciPy leaves the blocks of a row unsorted; ordered levels need them sorted
    return [u(m.indptr, p), u(m.indices, c), wire(spec.dtype, m.data)], stored(dense)


def random_dense(rng, dt, shape, density):
    n = int(np.prod(shape))
    mask = rng.random(n) < density
    if dt[0] in "fb":
        vals = rng.standard_normal(n) * 100
        special = rng.random(n)
        vals[special < 0.02] = np.nan
        vals[(special > 0.02) & (special < 0.04)] = -0.0
        vals = np.where(mask, vals, 0.0)
        vals[(~mask) & (special > 0.98)] = -0.0  # zeros with the sign bit: never stored
    else:
        info = np.iinfo(DTYPES[dt])
        vals = rng.integers(info.min, info.max, n, endpoint=True)
        vals = np.where(mask, vals, 0)
    d = vals.astype(DTYPES[dt]).reshape(shape)
    if dt == "bf16":
        d = (d.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    if d.size and rng.random() < 0.3:  # empty rows and columns
        d[rng.integers(0, shape[0]), :] = 0
        d[:, rng.integers(0, shape[1])] = 0
    return d


def fits(bits, value):
    return value <= (1 << bits) - 1


def pick_widths(rng, dense, shape, entries):
    ps = [b for b in (8, 16, 32, 64) if fits(b, entries)]
    cs = [b for b in (8, 16, 32, 64) if fits(b, max(max(shape) - 1, 0))]
    return int(rng.choice(ps)), int(rng.choice(cs))


def same_bytes(what, got, want):
    if isinstance(got, str):
        fail("%s: error %s" % (what, got))
        return False
    if isinstance(want, list):
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                fail("%s: buffer %d differs: %s vs scipy %s" % (what, i, g[:48].hex(), w[:48].hex()))
                return False
        return True
    if got != want:
        fail("%s: dense differs" % what)
        return False
    return True


SHAPES = [(0, 5), (5, 0), (0, 0), (1, 1), (1, 7), (7, 1), (4, 4), (16, 16), (3, 300), (300, 3), (33, 47)]


def random_case(drv, rng, i, stats):
    dt = ["f32", "f64", "i32", "i8", "f16", "bf16", "i64", "i16"][i % 8]
    shape = SHAPES[i % len(SHAPES)] if i < 3 * len(SHAPES) else (int(rng.integers(0, 40)), int(rng.integers(0, 40)))
    density = [0, 0.01, 0.1, 0.5, 1][i % 5]
    dense = random_dense(rng, dt, shape, density)
    kind = ["csr", "csc", "coo", "coo-soa", "bsr", "dcsr"][(i // 5) % 6]
    blk = None
    if kind == "bsr":
        r, s = int(rng.choice([1, 2, 3, 4])), int(rng.choice([1, 2, 4]))
        shape = (shape[0] - shape[0] % r, shape[1] - shape[1] % s)
        dense = dense[:shape[0], :shape[1]].copy()
        blk = (r, s)
    nnz = int(np.count_nonzero(dense))
    p, c = pick_widths(rng, dense, shape, max(nnz, int(np.prod(shape))) if kind == "bsr" else nnz)
    make = {"csr": csr, "csc": csc, "coo": coo, "dcsr": dcsr, "coo-soa": lambda *a: coo(*a, soa=True),
            "bsr": lambda *a: bsr(*a, *blk)}[kind]
    spec = make(dt, p, c, shape)
    want, back = oracle(kind, spec, dense, blk)
    what = "case %d %s %s density %g" % (i, kind, spec.text, density)
    # Each new format compiles its kernels (~40 ms): the JIT runs on every fifth case.
    jit_case = (i + i // 25) % 5 == 0
    for mode in ("interp", "jit") if jit_case else ("interp",):
        got = drv.from_dense(mode, spec, dense, spec.widths())
        if same_bytes("%s %s from dense" % (what, mode), got, want):
            same_bytes("%s %s to dense" % (what, mode), drv.to_dense(mode, spec, got, spec.widths()),
                       wire(dt, back))
    stats[kind] = stats.get(kind, 0) + 1
    if jit_case:  # its kernels are compiled already
        corrupt(drv, rng, spec, want, what, stats)
    if kind == "csr" and i % 3 == 0 and dt not in ("bf16", "f16"):
        convert_case(drv, spec, dense, want, rng, what)


def damaged(rng, spec, bufs):
    """Valid buffers with random bytes of one overwritten, or one cut an entry short; and which."""
    bufs = [bytearray(b) for b in bufs]
    b = int(rng.integers(0, len(bufs)))
    if len(bufs[b]) and rng.random() < 0.8:
        for _ in range(int(rng.integers(1, 4))):
            bufs[b][int(rng.integers(0, len(bufs[b])))] = int(rng.integers(0, 256))
    else:
        w = spec.widths()[b] // 8
        bufs[b] = bufs[b][:max(0, len(bufs[b]) - w)]
    return [bytes(x) for x in bufs], b


def corrupt(drv, rng, spec, bufs, what, stats):
    """Damaged buffers: the interpreter and the JIT must agree on the dense result or the error."""
    bufs, b = damaged(rng, spec, bufs)
    got = [drv.to_dense(mode, spec, bufs, spec.widths()) for mode in ("interp", "jit")]
    if got[0] != got[1]:
        fail("%s corrupted buffer %d: interpreter %r, JIT %r" % (what, b, got[0][:80], got[1][:80]))
    stats["corrupt-rejected"] = stats.get("corrupt-rejected", 0) + isinstance(got[0], str)


def convert_case(drv, spec, dense, bufs, rng, what):
    """CSR to CSC, COO and BSR and back, against SciPy's own conversions."""
    m = sp.csr_matrix(dense)
    shape, dt, p, c = spec.shape, spec.dtype, spec.p, spec.c
    p = 64 if p < 64 and not fits(p, int(np.prod(shape))) else p  # BSR may store every element
    targets = [("csc", csc(dt, p, c, shape), None), ("coo", coo(dt, p, c, shape), None)]
    r, s = 2, 2
    if shape[0] % r == 0 and shape[1] % s == 0:
        targets.append(("bsr", bsr(dt, p, c, shape, r, s), (r, s)))
    for kind, dspec, blk in targets:
        if kind == "csc":
            t = m.tocsc()
            want = [u(t.indptr, p), u(t.indices, c), t.data.tobytes()]
        elif kind == "coo":
            t = m.tocoo()
            want = [u([0, t.nnz], p), u(np.stack([t.row, t.col], 1).reshape(-1), c), t.data.tobytes()]
        else:
            t = m.tobsr(blocksize=blk)
            t.sort_indices()
            want = [u(t.indptr, p), u(t.indices, c), t.data.tobytes()]
        got = drv.convert(spec, dspec, bufs)
        if same_bytes("%s convert csr->%s" % (what, kind), got, want) and kind != "bsr":
            # and back to CSR (from BSR, SciPy keeps the explicit zeros of the blocks too)
            same_bytes("%s convert %s->csr" % (what, kind), drv.convert(dspec, spec, got),
                       [u(m.indptr, spec.p), u(m.indices, c), m.data.tobytes()])
        elif kind == "bsr" and not isinstance(got, str):
            b = sp.bsr_matrix((np.frombuffer(got[2], dtype=dense.dtype).reshape(-1, r, s),
                               np.frombuffer(got[1], dtype=UINT[c]).astype(np.int64),
                               np.frombuffer(got[0], dtype=UINT[p]).astype(np.int64)), shape=shape).tocsr()
            cspec = csr(dt, p, c, shape)
            same_bytes("%s convert bsr->csr" % what, drv.convert(dspec, cspec, got),
                       [u(b.indptr, p), u(b.indices, c), b.data.tobytes()])


MATRIX = {"csr": csr, "csc": csc, "coo": coo, "coo-soa": lambda *a: coo(*a, soa=True), "dcsr": dcsr, "dcsc": dcsc}


def matrix_conversions(drv, rng, cases):
    """The direct conversions between the matrix formats (every pair, the widths of each side
    drawn apart) against SciPy's buffers of the destination, byte for byte, into buffers
    filled with garbage; the interpreter must agree. Then corrupted sources: the direct
    path and the interpreter must give the same buffers or the same located error."""
    kinds, pairs, rejected = list(MATRIX), set(), 0
    for i in range(cases):
        dt = ["f32", "f64", "i32", "i8", "f16", "bf16", "i64", "i16"][i % 8]
        shape = SHAPES[i % len(SHAPES)] if i < len(SHAPES) else \
            (int(rng.integers(1, 70)), int(rng.integers(1, 70))) if i % 7 else (int(rng.integers(1, 4)), 3000)
        dense = random_dense(rng, dt, shape, [0, 0.01, 0.1, 0.5, 1][i % 5])
        nnz = int(np.count_nonzero(dense))
        sk, dk = kinds[i % len(kinds)], kinds[(i // len(kinds) + i) % len(kinds)]
        src, dst = MATRIX[sk](dt, *pick_widths(rng, dense, shape, nnz), shape), \
            MATRIX[dk](dt, *pick_widths(rng, dense, shape, nnz), shape)
        bufs, _ = oracle(sk, src, dense)
        want, _ = oracle(dk, dst, dense)
        what = "matrix case %d %s -> %s" % (i, src.text, dst.text)
        if same_bytes(what, drv.convert(src, dst, bufs, "matrix"), want) and i % 4 == 0:
            same_bytes(what + " (interpreter)", drv.convert(src, dst, bufs), want)
        pairs.add((sk, dk))
        if nnz and i % 2 == 0:  # corrupted: the same answer from both
            bad, b = damaged(rng, src, bufs)
            got, ref = drv.convert(src, dst, bad, "matrix"), drv.convert(src, dst, bad)
            if got != ref:
                fail("%s corrupted buffer %d: direct %r, interpreter %r" % (what, b, str(got)[:80], str(ref)[:80]))
            rejected += isinstance(ref, str)
    # positions too narrow for the destination's entries: the interpreter's error
    dense = np.ones((20, 20), np.float32)
    src, dst = csr("f32", 16, 8, (20, 20)), coo("f32", 8, 8, (20, 20))
    bufs, _ = oracle("csr", src, dense)
    got = drv.convert(src, dst, bufs, "matrix")
    if got != "400 entries of level 0 do not fit 8-bit positions":
        fail("matrix: 8-bit positions overflow: %r" % (got,))
    print("matrix formats: %d pairs, %d cases, %d corrupted sources rejected" % (len(pairs), cases, rejected))


def bsr_cm(dt, p, c, shape, r, s):
    """BSR with each block stored column by column."""
    levels = ["i0/%d:dense" % r, "i1/%d:compressed" % s, "i1%%%d:dense" % s, "i0%%%d:dense" % r]
    return Spec(dt, p, c, shape, levels, ["pos", "crd", "val"])


def bsc(dt, p, c, shape, r, s):
    levels = ["i1/%d:dense" % s, "i0/%d:compressed" % r, "i1%%%d:dense" % s, "i0%%%d:dense" % r]
    return Spec(dt, p, c, shape, levels, ["pos", "crd", "val"])


def entry_buffers(kind, spec, mask, vals, blk):
    """The buffers of a format storing exactly the entries `mask` of the matrix vals (explicit
    zeros included), computed here with NumPy: element formats list them in (outer, inner)
    order, block formats store each block holding one, zeros elsewhere in it."""
    p, c, dt = spec.p, spec.c, spec.dtype
    vals = np.where(mask, vals, np.zeros_like(vals))
    if kind in ("csc", "dcsc", "bsc"):
        mask, vals = mask.T, vals.T
    if kind in ("bsr", "bsr-cm", "bsc"):
        r, s = blk if kind != "bsc" else blk[::-1]
        R, S = mask.shape[0] // r, mask.shape[1] // s
        brow, bcol = np.nonzero(mask.reshape(R, r, S, s).any(axis=(1, 3)))
        blocks = vals.reshape(R, r, S, s).transpose(0, 2, 1, 3)[brow, bcol]
        if kind == "bsr-cm":
            blocks = blocks.transpose(0, 2, 1)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(brow, minlength=R))])
        return [u(indptr, p), u(bcol, c), wire(dt, blocks.reshape(-1))]
    row, col = np.nonzero(mask)
    data = vals[row, col]
    counts = np.bincount(row, minlength=mask.shape[0])
    if kind in ("csr", "csc"):
        return [u(np.concatenate([[0], np.cumsum(counts)]), p), u(col, c), wire(dt, data)]
    if kind in ("dcsr", "dcsc"):
        rows = np.nonzero(counts)[0]
        return [u([0, len(rows)], p), u(rows, c), u(np.concatenate([[0], np.cumsum(counts[rows])]), p), u(col, c),
                wire(dt, data)]
    if kind == "coo-soa":
        return [u([0, len(row)], p), u(row, c), u(col, c), wire(dt, data)]
    return [u([0, len(row)], p), u(np.stack([row, col], 1).reshape(-1), c), wire(dt, data)]


BLOCKED = {"bsr": bsr, "bsr-cm": bsr_cm, "bsc": bsc}


def block_conversions(drv, rng, cases):
    """Block formats (BSR, BSR with column-major blocks, BSC; blocks 1-4 by 1-4) to and from the
    element formats and each other, through the direct path into garbage-filled buffers,
    against buffers computed here from the source's stored entries (explicit zeros of a block
    stay stored, as SciPy's tocsr keeps them) and, on a quarter, the interpreter; damaged
    sources must get the interpreter's answer."""
    elements = ["csr", "csc", "coo", "coo-soa", "dcsr", "dcsc"]
    blocked = list(BLOCKED)
    pairs, rejected = set(), 0
    for i in range(cases):
        dt = ["f32", "f64", "i32", "i8", "f16", "bf16", "i64", "i16"][i % 8]
        r, s = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        shape = (r * int(rng.integers(0 if i < 6 else 1, 12)), s * int(rng.integers(1, 12)))
        dense = random_dense(rng, dt, shape, [0, 0.01, 0.1, 0.5, 1][i % 5])
        sk = blocked[i % 3] if i % 4 else elements[(i // 4) % 6]
        dk = (elements + blocked)[(i // 3 + i) % 9] if sk in BLOCKED else blocked[(i // 4) % 3]
        mask = dense != 0
        if sk in BLOCKED:  # a block format stores its blocks whole
            rr, ss = (r, s)
            m = mask.reshape(shape[0] // rr, rr, shape[1] // ss, ss).any(axis=(1, 3))
            mask = np.repeat(np.repeat(m, rr, 0), ss, 1) if mask.size else mask
        stored = int(mask.sum())
        make = lambda k, w: (BLOCKED[k](dt, *w, shape, r, s) if k in BLOCKED else MATRIX[k](dt, *w, shape))
        src = make(sk, pick_widths(rng, dense, shape, max(stored, 1)))
        dst = make(dk, pick_widths(rng, dense, shape, max(stored, 1)))
        bufs = entry_buffers(sk, src, mask, dense, (r, s))
        want = entry_buffers(dk, dst, mask, dense, (r, s))
        what = "block case %d %s -> %s" % (i, src.text, dst.text)
        if same_bytes(what, drv.convert(src, dst, bufs, "matrix"), want) and i % 4 == 0:
            same_bytes(what + " (interpreter)", drv.convert(src, dst, bufs), want)
        pairs.add((sk, dk))
        if stored and i % 2 == 0:
            bad, b = damaged(rng, src, bufs)
            got, ref = drv.convert(src, dst, bad, "matrix"), drv.convert(src, dst, bad)
            if got != ref:
                fail("%s damaged buffer %d: direct %r, interpreter %r" % (what, b, str(got)[:80], str(ref)[:80]))
            rejected += isinstance(ref, str)
    print("block formats: %d pairs, %d cases, %d damaged sources rejected" % (len(pairs), cases, rejected))


def matrix_malformed(drv):
    """Each check of the direct path's source, broken by hand in a 3x4 matrix: the direct path
    must decline and give the interpreter's located error, to a destination of the same outer
    dim and to its transpose; a 4x4 BSR of 2x2 blocks likewise. (A buffer cut short is read past its end only by a broken
    check: the sanitizer runs of this test catch those.)"""
    good = {"csr": [u([0, 2, 2, 3], 32), u([1, 3, 0], 32), f32(1, 2, 3)],
            "coo": [u([0, 3], 32), u([0, 1, 0, 3, 2, 0], 32), f32(1, 2, 3)],
            "coo-soa": [u([0, 3], 32), u([0, 0, 2], 32), u([1, 3, 0], 32), f32(1, 2, 3)],
            "dcsr": [u([0, 2], 32), u([0, 2], 32), u([0, 2, 3], 32), u([1, 2, 3], 32), f32(1, 2, 3)]}
    broken = {"csr": [(1, [1, 1, 0]), (1, [1, 4, 0]), (0, [0, 2, 2]), (0, [0, 2, 1, 3]), (0, [0, 2, 2, 4]),
                      (2, [1, 2])],
              "coo": [(1, [0, 1, 0, 3, 3, 0]), (1, [2, 1, 0, 3, 2, 0]), (1, [0, 1, 0, 1, 2, 0]),
                      (1, [0, 1, 0, 4, 2, 0]), (0, [0, 4]), (0, [2, 1]), (0, [0])],
              "coo-soa": [(2, [1, 3]), (1, [0, 0, 3]), (1, [0, 0]), (2, [3, 1, 0])],
              "dcsr": [(2, [0, 2]), (1, [0, 0]), (1, [0, 3]), (1, [2, 0]), (2, [0, 3, 2]), (2, [0, 2, 4]),
                       (3, [1, 3]), (0, [0, 3]), (4, [1, 2])]}
    good["bsr"] = [u([0, 2, 3], 32), u([0, 1, 1], 32), f32(*range(1, 13))]  # 4x4, 2x2 blocks
    broken["bsr"] = [(1, [0, 0, 1]), (1, [0, 2, 1]), (1, [1, 0, 1]), (0, [0, 2]), (0, [0, 2, 1]), (0, [0, 2, 4]),
                     (2, list(range(1, 12)))]
    # rows longer than the direct path's vectors of four: each fault inside them
    row = list(range(0, 40, 2))
    good["long"] = [u([0, 20, 21], 32), u(row + [7], 32), f32(*range(1, 22))]
    broken["long"] = [(1, row[:9] + [row[8]] + row[10:] + [7]), (1, row[:13] + [3] + row[14:] + [7]),
                      (1, row[:11] + [40] + row[12:] + [7]), (1, row[:18] + [39, 38] + [7]),
                      (0, [0, 17, 18], list(range(0, 32, 2)) + [40, 7])]  # the last of a row, in a vector
    for kind, cases in broken.items():
        shape = (4, 4) if kind == "bsr" else (2, 40) if kind == "long" else (3, 4)
        src = bsr("f32", 32, 32, shape, 2, 2) if kind == "bsr" else csr("f32", 32, 32, shape) if kind == "long" \
            else MATRIX[kind]("f32", 32, 32, shape)
        for b, entries, *more in cases:
            bufs = list(good[kind])
            bufs[b] = f32(*entries) if b == len(bufs) - 1 else u(entries, 32)
            if more:  # a second buffer changed with it
                bufs[b + 1] = u(more[0], 32)
            for dst in (csr("f32", 32, 32, shape), csc("f32", 32, 32, shape)):
                got, ref = drv.convert(src, dst, bufs, "matrix"), drv.convert(src, dst, bufs)
                if got != ref or not isinstance(ref, str):
                    fail("matrix malformed %s buffer %d %s: direct %r, interpreter %r" % (kind, b, entries, got, ref))


def coordinate_sweep(drv):
    """Every coordinate of a matrix set to every value from 0 to two past its dim, one at a
    time: the direct path and the interpreter must give the same buffers or the same error. An
    AoS COO (its pairs checked four at a time: the faults fall in each place of the vectors, at
    the rows' changes and in the tail), a CSR's columns to a CSC (checked four at a time, then
    counted), and a BSR's block columns. Prints how many of the changed sources were refused."""
    rows, cols = [0, 0, 0, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3, 4], [0, 2, 5, 0, 1, 3, 4, 2, 0, 1, 2, 4, 5, 3]
    n, shape = len(rows), (5, 6)
    vals = f32(*range(1, n + 1))
    starts = [0] + [sum(1 for r in rows if r <= i) for i in range(shape[0])]
    sources = []
    pairs = [v for rc in zip(rows, cols) for v in rc]
    for k in range(2 * n):
        for v in range(shape[k % 2] + 3):
            sources.append((coo("f32", 32, 32, shape), [u([0, n], 32), u(pairs[:k] + [v] + pairs[k + 1:], 32), vals]))
    for k in range(n):
        for v in range(shape[1] + 3):
            sources.append((csr("f32", 32, 32, shape), [u(starts, 32), u(cols[:k] + [v] + cols[k + 1:], 32), vals]))
    bcols, bstarts, bshape = [0, 1, 3, 0, 2, 1, 2, 3, 0, 3], [0, 3, 5, 8, 10], (8, 8)  # 2x2 blocks
    for k in range(len(bcols)):
        for v in range(4 + 3):
            sources.append((bsr("f32", 32, 32, bshape, 2, 2),
                            [u(bstarts, 32), u(bcols[:k] + [v] + bcols[k + 1:], 32), f32(*range(1, 41))]))
    refused = 0
    for src, bufs in sources:
        for dst in (csr("f32", 32, 32, src.shape), csc("f32", 32, 32, src.shape)):
            got, ref = drv.convert(src, dst, bufs, "matrix"), drv.convert(src, dst, bufs)
            if got != ref:
                fail("coordinate sweep %s %r -> %s: direct %r, interpreter %r" % (src.text, bufs[1], dst.text,
                                                                                   str(got)[:80], str(ref)[:80]))
            refused += isinstance(ref, str)
    print("coordinate sweep: %d sources, %d refusals" % (len(sources), refused))


NM = [(2, 4), (1, 4), (1, 2), (3, 8), (4, 4), (2, 8), (1, 1), (5, 16)]


def structured_dense(rng, dt, rows, groups, n, m, overfull):
    """At most n nonzeros per group of m (one group n + 1 when overfull); -0.0 and NaN among
    the floats."""
    d = np.zeros((rows, groups * m), dtype=DTYPES[dt])
    for r in range(rows):
        for g in range(groups):
            k = int(rng.integers(0, n + 1))
            cols = g * m + rng.choice(m, size=k, replace=False)
            d[r, cols] = random_dense(rng, dt, (1, k), 1.0)[0] if k else d[r, cols]
    if dt[0] in "fb" and d.size:
        z = d == 0
        d[z & (rng.random(d.shape) < 0.2)] = -0.0
    if overfull and n < m and d.size:
        r, g = int(rng.integers(rows)), int(rng.integers(groups))
        d[r, g * m:g * m + n + 1] = 1
    return d


def structured(drv, rng, cases, stats):
    """n:m formats (2:4 and others): the compiled kernels against the interpreter, on random
    matrices, overfull groups (the same diagnostic) and corrupted buffers."""
    for i in range(cases):
        n, m = NM[i % len(NM)]
        dt = ["f32", "f16", "i8", "f64", "bf16", "i32"][i % 6]
        rows, groups = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        c = int(rng.choice([8, 16, 32, 64]))
        spec = Spec(dt, 32, c, (rows, groups * m), ["i0:dense", "i1/%d:dense" % m, "i1%%%d:nm" % m, "nm%d:%d" % (n, m)],
                    ["crd", "val"])
        dense = structured_dense(rng, dt, rows, groups, n, m, i % 5 == 4)
        what = "case %d structured %s" % (i, spec.text)
        got = [drv.from_dense(mode, spec, dense, spec.widths()) for mode in ("interp", "jit")]
        if got[0] != got[1]:
            fail("%s: interpreter %r, JIT %r" % (what, got[0][:80] if isinstance(got[0], str) else got[0],
                                                 got[1][:80] if isinstance(got[1], str) else got[1]))
            continue
        stats["nm-overfull" if isinstance(got[0], str) else "nm"] = stats.get(
            "nm-overfull" if isinstance(got[0], str) else "nm", 0) + 1
        if isinstance(got[0], str):
            if not re.match(r"n_out_of_m: \d+ nonzeros in the group of %d at \(\d+, \d+\), at most %d allowed$" % (m, n),
                            got[0]):
                fail("%s: %r" % (what, got[0]))
            continue
        if len(got[0][1]) != rows * groups * n * VBITS[dt] // 8:
            fail("%s: %d value bytes" % (what, len(got[0][1])))
        for mode in ("interp", "jit"):
            same_bytes("%s %s to dense" % (what, mode), drv.to_dense(mode, spec, got[0], spec.widths()),
                       wire(dt, stored(dense)))
        corrupt(drv, rng, spec, got[0], what, stats)


def f32(*v):
    return np.array(v, dtype=np.float32).tobytes()


def hand_vectors(drv):
    # 2:4 on a 2x8 matrix: the groups keep their nonzeros and pad with zeros at
    # the lowest free coordinates (group 0 of row 1 is empty: coordinates 0, 1).
    d = np.array([[0, 5, 0, 6, 7, 0, 0, 0], [0, 0, 0, 0, 0, 0, 8, 0]], dtype=np.float32)
    nm = Spec("f32", 32, 8, (2, 8), ["i0:dense", "i1/4:dense", "i1%4:nm", "nm2:4"], ["crd", "val"])
    want = [bytes([1, 3, 0, 1, 0, 1, 0, 2]), f32(5, 6, 7, 0, 0, 0, 0, 8)]
    for mode in ("interp", "jit"):
        got = drv.from_dense(mode, nm, d, nm.widths())
        if same_bytes("2:4 " + mode, got, want):
            same_bytes("2:4 back " + mode, drv.to_dense(mode, nm, got, nm.widths()), d.tobytes())
    d[0, 2] = 1
    got = drv.from_dense("interp", nm, d, nm.widths())
    if got != "n_out_of_m: 3 nonzeros in the group of 4 at (0, 0), at most 2 allowed":
        fail("2:4 overfull group: %r" % (got,))
    # 3-D COO of a 2x3x4 tensor: one positions buffer [0, nnz], the coordinates
    # as (i, j, k) triples in row-major order, then the values.
    t = np.zeros((2, 3, 4), dtype=np.float32)
    t[0, 0, 3], t[0, 2, 1], t[1, 0, 0], t[1, 2, 3] = 1, 2, 3, 4
    for soa in (False, True):
        flag = "+soa" if soa else ""
        spec = Spec("f32", 16, 8, (2, 3, 4), ["i0:compressed+nu", "i1:singleton+nu" + flag, "i2:singleton" + flag],
                    ["pos", "crd", "crd", "crd", "val"] if soa else ["pos", "crd", "val"])
        crd = [bytes([0, 0, 1, 1]), bytes([0, 2, 0, 2]), bytes([3, 1, 0, 3])] if soa else \
            [bytes([0, 0, 3, 0, 2, 1, 1, 0, 0, 1, 2, 3])]
        want = [u([0, 4], 16)] + crd + [f32(1, 2, 3, 4)]
        for mode in ("interp", "jit"):
            got = drv.from_dense(mode, spec, t, spec.widths())
            if same_bytes("3-D COO soa=%s %s" % (soa, mode), got, want):
                same_bytes("3-D COO back " + mode, drv.to_dense(mode, spec, got, spec.widths()), t.tobytes())
    # loose_compressed rows: (lo, hi) pairs per row.
    d = np.array([[0, 1, 0], [0, 0, 0], [2, 0, 3]], dtype=np.float32)
    lc = Spec("f32", 8, 8, (3, 3), ["i0:dense", "i1:loose"], ["pos", "crd", "val"])
    want = [bytes([0, 1, 1, 1, 1, 3]), bytes([1, 0, 2]), f32(1, 2, 3)]
    got = drv.from_dense("interp", lc, d, lc.widths())
    if same_bytes("loose_compressed", got, want):
        # a loose layout may leave gaps: rows in any order of ranges
        gap = [bytes([4, 5, 0, 0, 1, 3]), bytes([9, 0, 2, 9, 1]), f32(0, 2, 3, 0, 1)]
        same_bytes("loose gaps", drv.to_dense("interp", lc, gap, lc.widths()), d.tobytes())


# Which codes of each value type are zero, from the formats' definitions: a
# signed zero is +0 or -0 (each component of a complex), the FNUZ formats
# have one zero (their 0x80 is NaN), integers one.
CODE_TYPES = {"f8E4M3FN": (8, "signed"), "f8E5M2": (8, "signed"), "f8E4M3FNUZ": (8, "one"),
              "f8E5M2FNUZ": (8, "one"), "f8E4M3B11FNUZ": (8, "one"), "tf32": (32, "signed"),
              "f16": (16, "signed"), "bf16": (16, "signed"), "f64": (64, "signed"),
              "complex<f16>": (32, "complex"), "complex<f32>": (64, "complex"), "ui8": (8, "one"),
              "si16": (16, "one"), "index": (64, "one")}


def code_is_zero(kind, bits, c):
    if kind == "one":
        return c == 0
    if kind == "signed":
        return c & ~(1 << (bits - 1)) == 0
    h = bits // 2
    return c & ~(1 << (h - 1)) & ((1 << h) - 1) == 0 and (c >> h) & ~(1 << (h - 1)) == 0


def value_codes(drv, rng):
    """Which values are stored, by type: random codes with every zero and sign pattern mixed in,
    to CSR on the interpreter and the JIT against the codes' own definitions; complex<f64>
    (128 bits) and f8E8M0FNU (no zero) are refused."""
    for dt, (bits, kind) in CODE_TYPES.items():
        VBITS[dt] = bits
        rows, cols = 6, 7
        codes = [int(x) for x in rng.integers(0, 1 << min(bits, 62), rows * cols, dtype=np.int64)]
        sign = [1 << (bits - 1)] + ([1 << (bits // 2 - 1)] if kind == "complex" else [])
        specials = [0] + sign + [sum(sign)] + [1 << (bits - 2)]
        for i in range(0, rows * cols, 2):
            codes[i] = specials[(i // 2) % len(specials)]
        keep = [not code_is_zero(kind, bits, c) for c in codes]
        indptr = [0]
        for r in range(rows):
            indptr.append(indptr[-1] + sum(keep[r * cols:(r + 1) * cols]))
        indices = [i % cols for i in range(rows * cols) if keep[i]]
        data = b"".join(c.to_bytes(bits // 8, "little") for c, k in zip(codes, keep) if k)
        dense = b"".join(c.to_bytes(bits // 8, "little") for c in codes)
        spec = csr(dt, 32, 32, (rows, cols))
        for mode in ("interp", "jit"):
            head = drv._ask("from-dense %s %s" % (mode, spec.text), dense)
            got = drv._buffers(head, spec.widths()) if head[0] == "ok" else " ".join(head[1:])
            if same_bytes("values %s %s" % (dt, mode), got, [u(indptr, 32), u(indices, 32), data]):
                same_bytes("values %s %s back" % (dt, mode), drv.to_dense(mode, spec, got, spec.widths()),
                           b"".join(c.to_bytes(bits // 8, "little") if k else bytes(bits // 8)
                                    for c, k in zip(codes, keep)))
    for dt, want in (("complex<f64>", "sparse format: values of complex<f64> are 128 bits; sparse values of "
                      "at most 64 bits are supported"),
                     ("f8E8M0FNU", "sparse format: f8E8M0FNU has no zero, so every value would be stored")):
        spec = csr(dt, 32, 32, (2, 2))
        got = subprocess.run([drv.path, "check", spec.text], capture_output=True, text=True)
        if got.returncode != 1 or got.stdout.strip() != "error: " + want:
            fail("values %s: %r" % (dt, got.stdout))


def wide_rows(drv, rng, stats, quick):
    """CSR and COO (AoS and SoA) of rows longer than the kernels' vectors (the nnz pass counts a vector's lanes at
    a time, the fill compresses them where the host can: sparse_jit.c, plan_vectors): every value
    type at every coordinate width, rows from empty to full, with -0.0 and NaN, both paths against
    SciPy and back; rows of 203 elements leave a partial vector at every width, rows of 256 are
    whole lines of every type (the scatter stages them and streams them out past the cache)."""
    rows = 9
    for i, (dt, cols) in enumerate((dt, cols) for dt in DTYPES for cols in (203, 256)):
        dense = np.concatenate([random_dense(rng, dt, (1, cols), d)
                                for d in (0, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 0.99, 1)])
        for c in [(8, 16, 32, 64)[i % 4]] if quick else (8, 16, 32, 64):  # quick: a tenth of the time
            for make, kind in ((csr, "csr"), (coo, "coo"), (lambda *a: coo(*a, soa=True), "coo-soa")):
                spec = make(dt, 32, c, (rows, cols))
                want, back = oracle(kind, spec, dense, None)
                for mode in ("interp", "jit"):
                    what = "wide %s %s %s" % (kind, spec.text, mode)
                    got = drv.from_dense(mode, spec, dense, spec.widths())
                    if same_bytes(what + " from dense", got, want):
                        same_bytes(what + " to dense", drv.to_dense(mode, spec, got, spec.widths()),
                                   wire(dt, back))
                stats["wide"] = stats.get("wide", 0) + 1


def far_coordinates(drv, rng):
    """Nine points of a 3x200000 matrix: converting sorts them by qsort (a level's coordinates span
    far more than the points), where the random cases take the radix sort or none."""
    dense = np.zeros((3, 200000), np.float32)
    dense[rng.integers(0, 3, 9), rng.integers(0, 200000, 9)] = rng.standard_normal(9).astype(np.float32) + 5
    spec = csr("f32", 32, 32, dense.shape)
    want, _ = oracle("csr", spec, dense)
    convert_case(drv, spec, dense, want, rng, "far coordinates")


def nonordered(drv):
    """A CSR whose rows are unsorted: read as stored, and sorted by a conversion (SciPy's sort_indices)."""
    spec = Spec("f32", 32, 32, (3, 4), ["i0:dense", "i1:compressed+no"], ["pos", "crd", "val"])
    indptr, indices, data = [0, 2, 2, 5], [3, 1, 2, 0, 3], np.array([1, 2, 3, 4, 5], np.float32)
    m = sp.csr_matrix((data, indices, indptr), shape=(3, 4))
    bufs = [u(indptr, 32), u(indices, 32), data.tobytes()]
    same_bytes("nonordered to dense", drv.to_dense("interp", spec, bufs, spec.widths()), m.toarray().tobytes())
    m.sort_indices()
    same_bytes("nonordered to CSR", drv.convert(spec, csr("f32", 32, 32, (3, 4)), bufs),
               [u(m.indptr, 32), u(m.indices, 32), m.data.tobytes()])
    dup = [u([0, 2, 2, 3], 32), u([3, 3, 0], 32), f32(1, 2, 3)]
    got = drv.to_dense("interp", spec, dup, spec.widths())
    if got != "sparse buffers store the point (0, 3) twice":
        fail("nonordered duplicate: %r" % (got,))


def malformed(drv):
    """Broken CSR buffers of a 3x4 matrix: the error names the buffer and the entry."""
    spec = csr("f32", 32, 32, (3, 4))
    good = [u([0, 2, 2, 3], 32), u([1, 3, 0], 32), f32(1, 2, 3)]
    cases = [
        ([u([0, 2, 1, 3], 32)] + good[1:], "sparse buffer 0 (positions of level 1): entry 2 is 1, below entry 1 (2)"),
        ([u([0, 2, 2, 9], 32)] + good[1:], "sparse buffer 0 (positions of level 1): entry 3 is 9, beyond the 3 entries of buffer 1"),
        ([good[0], u([1, 4, 0], 32), good[2]], "sparse buffer 1 (coordinates of level 1): entry 1 is 4, beyond the level size 4"),
        ([good[0], u([3, 1, 0], 32), good[2]], "sparse buffer 1 (coordinates of level 1): entry 1 is out of order"),
        ([good[0], u([1, 1, 0], 32), good[2]], "sparse buffer 1 (coordinates of level 1): entry 1 is a duplicate"),
        (good[:2] + [f32(1, 2)], "sparse buffer 2: index 2 is beyond its 2 entries"),
        ([u([0, 2], 32)] + good[1:], "sparse buffer 0: index 2 is beyond its 2 entries"),
        ([u([0, 0xFFFFFFFF, 2, 3], 32)] + good[1:], "sparse buffer 0 (positions of level 1): entry 1 is 4294967295, beyond the 3 entries of buffer 1"),
    ]
    for bufs, msg in cases:
        for mode in ("interp", "jit"):
            got = drv.to_dense(mode, spec, bufs, spec.widths())
            if got != msg:
                fail("malformed %s: got %r, want %r" % (mode, got, msg))
    cspec = coo("f32", 32, 32, (3, 4))
    dup = [u([0, 2], 32), u([1, 2, 1, 2], 32), f32(1, 2)]
    for mode in ("interp", "jit"):
        got = drv.to_dense(mode, cspec, dup, cspec.widths())
        if got != "sparse buffer 1 (coordinates of level 1): entry 3 is a duplicate":
            fail("COO duplicate %s: %r" % (mode, got))
    wide = csr("f32", 8, 8, (20, 20))
    got = drv.from_dense("interp", wide, np.ones((20, 20), np.float32), wide.widths())
    if got != "400 entries of level 1 do not fit 8-bit positions":
        fail("8-bit positions overflow: %r" % (got,))


def main():
    driver, cases, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if os.environ.get("LAYOUTC_TEST_QUICK"):
        cases //= 10
    rng = np.random.default_rng(seed)
    drv = Driver(driver)
    stats = {}
    for i in range(cases):
        random_case(drv, rng, i, stats)
    structured(drv, rng, max(cases // 20, 10), stats)
    hand_vectors(drv)
    wide_rows(drv, rng, stats, bool(os.environ.get("LAYOUTC_TEST_QUICK")))
    far_coordinates(drv, rng)
    matrix_conversions(drv, rng, max(cases // 2, 40))
    matrix_malformed(drv)
    coordinate_sweep(drv)
    block_conversions(drv, rng, max(cases // 2, 40))
    value_codes(drv, rng)
    nonordered(drv)
    malformed(drv)
    drv.p.stdin.close()
    sys.stdout.write(drv.p.stderr.read().decode())
    drv.p.wait()
    print("formats: " + " ".join("%s %d" % kv for kv in sorted(stats.items())))
    print("sparse_check: %d cases, %d failures" % (cases, len(failures)))
    return 1 if failures or drv.p.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
