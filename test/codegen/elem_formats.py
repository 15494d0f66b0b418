#!/usr/bin/env python3
"""Element formats against references written here from their definitions, through
`layoutc repack` (compiled kernel and --interpret):

- the 8-, 6- and 4-bit floats, every bit pattern decoded to f64, and every value, every midpoint
  between neighbours (ties), values just off the midpoints, the overflow thresholds, infinities,
  NaN and zeros encoded from f64 and f32. Sources of the definitions: the OCP 8-bit floating point
  specification (f8E4M3FN, f8E5M2), MLIR's APFloat semantics (the FNUZ formats: no infinity, no
  negative zero, 0x80 the one NaN; f8E4M3FNUZ bias 8, f8E5M2FNUZ bias 16, f8E4M3B11FNUZ bias 11),
  the OCP Microscaling (MX) v1.0 specification (f6E2M3FN, f6E3M2FN, f4E2M1FN: no infinity, no NaN;
  f8E8M0FNU: 2^(code - 127), 0xff NaN, no zero, no sign). What the formats leave open is
  layoutc's documented choice (docs/codegen.md): overflow goes to infinity (IEEE) or NaN (FN,
  FNUZ) and saturates in the f6/f4 formats, where infinity saturates and NaN becomes +0; E8M0
  rounds to the nearest power of two with ties up (APFloat's ties-to-even on a one-bit
  significand), zero and tiny values to its smallest code, negative values to NaN.
- tf32 (f32's layout with 10 fraction bits; the 13 low bits zero) from random f32 values;
- f16 against NumPy's float16: every code decoded to f32, and from f32 every f16 value, every
  midpoint between neighbours (ties), the f32 values either side of each midpoint, the overflow
  threshold, subnormals, infinities, NaNs and random words, through the compiled kernel with
  64-, 32- and 16-byte vectors (x86's VCVTPS2PH in 16, 8 and 4 lanes) and the interpreter. NaNs
  are layoutc's documented rule (sign and top payload bits kept, made quiet), which NumPy does
  not follow (it keeps a signalling NaN signalling);
- MLIR's unsigned and signed integers and index against NumPy: conversions to and from f32 and f64
  (round to nearest even, saturating; NaN gives 0), and between integers (extension by the
  source's signedness, then wrap-around).

Packing follows SPEC 2.4 with nothing assumed about byte boundaries: element i of a b-bit format
is bits [b*i, b*i + b) of the buffer read as one little-endian integer (an f6 element straddles two
bytes), and the buffer has ceil(n*b/8) bytes.

Output: one line per failing check, then `element formats: N checks, K failures`."""

import argparse
import functools
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

# name: (bits, exponent bits, mantissa bits, bias, kind)
FORMATS = {
    "f8E4M3FN": (8, 4, 3, 7, "fn"),
    "f8E5M2": (8, 5, 2, 15, "ieee"),
    "f8E4M3FNUZ": (8, 4, 3, 8, "fnuz"),
    "f8E5M2FNUZ": (8, 5, 2, 16, "fnuz"),
    "f8E4M3B11FNUZ": (8, 4, 3, 11, "fnuz"),
    "f6E2M3FN": (6, 2, 3, 1, "finite"),
    "f6E3M2FN": (6, 3, 2, 3, "finite"),
    "f4E2M1FN": (4, 2, 1, 1, "finite"),
    "f8E8M0FNU": (8, 8, 0, 127, "e8m0"),
}
# Largest finite values as the specifications state them: an anchor for the decoders below.
MAX = {"f8E4M3FN": 448, "f8E5M2": 57344, "f8E4M3FNUZ": 240, "f8E5M2FNUZ": 57344,
       "f8E4M3B11FNUZ": 30, "f6E2M3FN": Fraction(15, 2), "f6E3M2FN": 28, "f4E2M1FN": 6,
       "f8E8M0FNU": 2 ** 127}

NAN, INF = "nan", "inf"


def decode(name, c):
    """The meaning of code c: NAN, (sign, INF) or (sign, Fraction)."""
    bits, eb, mb, bias, kind = FORMATS[name]
    if kind == "e8m0":
        return NAN if c == 0xFF else (0, Fraction(2) ** (c - 127))
    sign, e, m = c >> (bits - 1), (c >> mb) & ((1 << eb) - 1), c & ((1 << mb) - 1)
    top = (1 << eb) - 1
    if kind == "ieee" and e == top:
        return (sign, INF) if m == 0 else NAN
    if kind == "fn" and e == top and m == (1 << mb) - 1:
        return NAN
    if kind == "fnuz" and c == 1 << (bits - 1):
        return NAN
    if e == 0:
        return (sign, Fraction(m, 1 << mb) * Fraction(2) ** (1 - bias))
    return (sign, (1 + Fraction(m, 1 << mb)) * Fraction(2) ** (e - bias))


@functools.lru_cache(maxsize=None)
def finite_codes(name):
    """Non-negative finite codes and their values, ascending."""
    bits = FORMATS[name][0]
    out = []
    for c in range(1 << (bits - 1) if FORMATS[name][4] != "e8m0" else 256):
        d = decode(name, c)
        if d != NAN and d[1] != INF:
            out.append((d[1], c))
    return sorted(out)


def encode(name, x):
    """x: NAN, (sign, INF) or (sign, Fraction) -> the code."""
    bits, eb, mb, bias, kind = FORMATS[name]
    sbit = 1 << (bits - 1)
    fin = finite_codes(name)
    vmax, cmax = fin[-1]
    if kind == "e8m0":
        if x == NAN or x[1] == INF or (x[0] and x[1] != 0):
            return 0xFF
        best = fin[0]
        for v, c in fin:  # nearest; a tie goes to the larger power
            if abs(v - x[1]) <= abs(best[0] - x[1]):
                best = (v, c)
        return 0xFF if x[1] >= vmax * Fraction(3, 2) else best[1]
    nan = {"ieee": None, "fn": sbit - 1, "fnuz": sbit, "finite": 0}[kind]
    if x == NAN:
        return nan  # IEEE and FN: checked separately (a NaN with the input's sign)
    sign, a = x
    over = {"ieee": ((1 << eb) - 1) << mb, "fn": sbit - 1, "fnuz": None, "finite": cmax}[kind]
    if a == INF:
        return sbit if kind == "fnuz" else (sign * sbit) | over
    cands = list(fin)
    if kind != "finite":  # the first value past the largest: overflow, with an even code
        cands.append((vmax + (vmax - fin[-2][0]), "over"))
    best = None
    for v, c in cands:
        d = abs(v - a)
        even = cmax % 2 == 1 if c == "over" else c % 2 == 0  # over: the code after the largest
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, c)
    c = best[1]
    if c == "over" or (kind != "finite" and a > vmax + (vmax - fin[-2][0])):
        return sbit if kind == "fnuz" else (sign * sbit) | over
    if kind == "finite" and a > vmax:
        c = cmax
    if c == 0 and kind == "fnuz":
        return 0
    return (sign * sbit) | c


def meaning_of_float(f):
    if math.isnan(f):
        return NAN
    sign = 1 if math.copysign(1, f) < 0 else 0
    return (sign, INF) if math.isinf(f) else (sign, Fraction(abs(f)))


# --- packing (SPEC 2.4) --------------------------------------------------------------------

def pack(codes, bits):
    acc = 0
    for i, c in enumerate(codes):
        acc |= c << (bits * i)
    return acc.to_bytes((len(codes) * bits + 7) // 8, "little")


def unpack(data, bits, n):
    acc = int.from_bytes(data, "little")
    return [(acc >> (bits * i)) & ((1 << bits) - 1) for i in range(n)]


class Runner:
    def __init__(self, layoutc, tmp):
        self.layoutc, self.tmp = layoutc, tmp
        self.checks = self.failures = 0

    def fail(self, msg):
        self.failures += 1
        if self.failures <= 30:
            print(msg)

    def repack(self, src, dst, data, interpret, env=None):
        inp, out = os.path.join(self.tmp, "in"), os.path.join(self.tmp, "out")
        with open(inp, "wb") as f:
            f.write(data)
        cmd = [self.layoutc, "repack", src, dst, "-i", inp, "-o", out] + (["--interpret"] if interpret else [])
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **env) if env else None)
        if r.returncode:
            self.fail(f"{src} -> {dst}: {r.stderr.strip()}")
            return None
        return open(out, "rb").read()

    def size(self, ty):
        import json
        r = subprocess.run([self.layoutc, "describe", ty, "--json"], capture_output=True, text=True)
        return json.loads(r.stdout)["size_bytes"]


def check_decode(run, name):
    bits = FORMATS[name][0]
    codes = list(range(1 << bits))
    n = len(codes)
    src = f"tensor<{n}x{name}>"
    run.checks += 1
    if run.size(src) != (n * bits + 7) // 8:
        run.fail(f"{src}: size_bytes {run.size(src)}, want {(n * bits + 7) // 8}")
    vmax = finite_codes(name)[-1][0]
    run.checks += 1
    if vmax != MAX[name]:
        run.fail(f"{name}: the reference decoder's largest value {vmax} is not the specification's {MAX[name]}")
    for interp in (False, True):
        out = run.repack(src, f"tensor<{n}xf64>", pack(codes, bits), interp)
        if out is None:
            continue
        got = struct.unpack(f"<{n}d", out)
        for c, g in zip(codes, got):
            run.checks += 1
            want = decode(name, c)
            if want == NAN:
                ok = math.isnan(g)
            else:
                w = math.copysign(math.inf if want[1] == INF else float(want[1]), -1 if want[0] else 1)
                ok = struct.pack("<d", g) == struct.pack("<d", w)
            if not ok:
                run.fail(f"{name} code 0x{c:x} -> f64 ({'interpreter' if interp else 'kernel'}): got {g!r}, want {want}")


def encode_inputs(name):
    """Values, midpoints, just off the midpoints, overflow thresholds and specials (exact in f32)."""
    fin = [v for v, _ in finite_codes(name)]
    vals = set()
    for i, v in enumerate(fin):
        vals.add(v)
        if i + 1 < len(fin):
            mid = (v + fin[i + 1]) / 2
            vals.update([mid, mid * (1 + Fraction(1, 1 << 18)), mid * (1 - Fraction(1, 1 << 18))])
    ulp = fin[-1] - fin[-2]
    vals.update([fin[-1] + ulp / 2, fin[-1] + ulp / 2 * (1 - Fraction(1, 1 << 18)), fin[-1] + ulp, fin[-1] * 4,
                 Fraction(1, 1 << 140), Fraction(3, 1 << 130), Fraction(2) ** 100])
    floats = sorted(float(v) for v in vals if v < Fraction(2) ** 127)
    floats = floats + [-f for f in floats] + [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan]
    return [f for f in floats if np.isnan(f) or float(np.float32(f)) == f]


def check_encode(run, name):
    bits, kind = FORMATS[name][0], FORMATS[name][4]
    xs = encode_inputs(name)
    n = len(xs)
    for src_t, fmt in (("f64", "d"), ("f32", "f")):
        data = struct.pack(f"<{n}{fmt}", *xs)
        for interp in (False, True):
            out = run.repack(f"tensor<{n}x{src_t}>", f"tensor<{n}x{name}>", data, interp)
            if out is None:
                continue
            for x, g in zip(xs, unpack(out, bits, n)):
                run.checks += 1
                m = meaning_of_float(x)
                sbit, mb = 1 << (bits - 1), FORMATS[name][2]
                if m == NAN and kind in ("ieee", "fn"):  # a (quiet) NaN with the input's sign
                    ok = decode(name, g) == NAN and bool(g & sbit) == (math.copysign(1, x) < 0) and g >> (mb - 1) & 1
                else:
                    ok = g == encode(name, m)
                if not ok:
                    want = "NaN of that sign" if m == NAN and kind in ("ieee", "fn") else hex(encode(name, m))
                    run.fail(f"{src_t} {x!r} -> {name} ({'interpreter' if interp else 'kernel'}): got 0x{g:x}, want {want}")


def round_tf32(f):
    """The f32 word of f (an f32 value) rounded to 10 fraction bits, ties to even."""
    if math.isnan(f):
        bits = struct.unpack("<I", struct.pack("<f", f))[0]
        return (bits | 0x400000) & ~0x1FFF
    if math.isinf(f) or f == 0:
        return struct.unpack("<I", struct.pack("<f", f))[0]
    a = Fraction(abs(f))
    e = max(math.floor(math.log2(a)), -126)
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a and e >= -126:
        e += 1
    e = max(e, -126)
    q = round(a / Fraction(2) ** (e - 10))  # Python's round: ties to even
    r = q * Fraction(2) ** (e - 10)
    v = math.inf if r >= Fraction(2) ** 128 else float(r)
    return struct.unpack("<I", struct.pack("<f", math.copysign(v, f)))[0]


def check_tf32(run, rng):
    words = [rng.getrandbits(32) for _ in range(3000)]
    words += [0x3F801000, 0x3F803000, 0x3F802000, 0x3F801FFF, 0x7F7FFFFF, 0x7F7FF000, 0x00001000, 0x00000FFF,
              0x00003000, 0x7F800001, 0xFFC00000, 0x80000000]
    for i in range(0, 3000, 3):  # values in the middle of the range
        words[i] = struct.unpack("<I", struct.pack("<f", rng.uniform(-1000, 1000)))[0]
    fs = [struct.unpack("<f", struct.pack("<I", w))[0] for w in words]
    n = len(words)
    data = struct.pack(f"<{n}I", *words)
    for interp in (False, True):
        out = run.repack(f"tensor<{n}xf32>", f"tensor<{n}xtf32>", data, interp)
        back = run.repack(f"tensor<{n}xtf32>", f"tensor<{n}xf32>", data, interp)
        if out is None or back is None:
            continue
        got, got_back = struct.unpack(f"<{n}I", out), struct.unpack(f"<{n}I", back)
        for w, f, g, b in zip(words, fs, got, got_back):
            run.checks += 2
            if g != round_tf32(f):
                run.fail(f"f32 0x{w:08x} -> tf32: got 0x{g:08x}, want 0x{round_tf32(f):08x}")
            if b != w & ~0x1FFF:  # the 19 bits, as a shift would give them (bf16 -> f32 likewise)
                run.fail(f"tf32 0x{w:08x} -> f32: got 0x{b:08x}, want 0x{w & ~0x1FFF:08x}")


def f16_nan_from_f32(w):
    """layoutc's f32 NaN -> f16: the sign, the top 10 payload bits, quiet."""
    return (w >> 16 & 0x8000) | 0x7E00 | (w >> 13 & 0x3FF)


def check_f16(run, rng):
    codes = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    finite = codes[np.isfinite(codes.view(np.float16))]
    pos = np.unique(np.abs(finite.view(np.float16)).astype(np.float64))  # 0 .. 65504, ascending
    mids = (pos[:-1] + pos[1:]) / 2  # exact in f32: one bit more than f16
    mids = np.concatenate([mids, [65520.0]])  # max + half an ulp: the overflow tie
    m32 = mids.astype(np.float32)
    near = np.concatenate([np.nextafter(m32, np.float32(np.inf)), np.nextafter(m32, np.float32(0))])
    vals = np.concatenate([pos.astype(np.float32), m32, near, [np.float32(65536.0), np.float32(1e30), np.float32(np.inf),
                           np.float32(1e-8), np.float32(2.0 ** -25), np.float32(2.0 ** -24), np.float32(1e-45)]])
    vals = np.concatenate([vals, -vals])
    words = np.concatenate([vals.view(np.uint32), np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF, 0xFF802000,
                                                             0x7F801FFF] + [rng.getrandbits(32) for _ in range(20000)],
                                                            dtype=np.uint32)])
    words = np.concatenate([words, np.zeros(-len(words) % 32, dtype=np.uint32)])  # whole f16 lines: streamed
    f = words.view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        want = f.astype(np.float16).view(np.uint16).astype(np.uint32)
    nan = np.isnan(f)
    want[nan] = [f16_nan_from_f32(int(w)) for w in words[nan]]
    n = len(words)
    # f16 -> f32: every code (NaNs quiet, payload in the top fraction bits)
    h = codes.view(np.float16)
    back = h.astype(np.float32).view(np.uint32).copy()
    hn = np.isnan(h)
    back[hn] = [(int(c) & 0x8000) << 16 | 0x7FC00000 | (int(c) & 0x3FF) << 13 for c in codes[hn]]
    for interp, vb in ((False, "64"), (False, "32"), (False, "16"), (True, "64")):
        # past the non-temporal threshold: the kernel converts whole vectors itself (under it, a
        # contiguous loop is scalar IR that LLVM vectorises)
        env = {"LAYOUTC_VECTOR_BYTES": vb, "LAYOUTC_NT_THRESHOLD": "0"}
        out = run.repack(f"tensor<{n}xf32>", f"tensor<{n}xf16>", words.tobytes(), interp, env)
        if out is not None:
            got = np.frombuffer(out, dtype=np.uint16).astype(np.uint32)
            run.checks += n
            for i in np.nonzero(got != want)[0][:5]:
                run.fail(f"f32 0x{int(words[i]):08x} -> f16 ({'interpreter' if interp else f'{vb}-byte vectors'}): "
                         f"got 0x{int(got[i]):04x}, want 0x{int(want[i]):04x}")
        # transposed: the register tiles convert their rows, V lanes at a time, at every width
        rows = n // 32
        out = run.repack(f"tensor<{rows}x32xf32>", f"tensor<{rows}x32xf16, tiled_layout<<1,0>>>", words.tobytes(),
                         interp, env)
        if out is not None:
            got = np.frombuffer(out, dtype=np.uint16).reshape(32, rows).T.reshape(-1).astype(np.uint32)
            run.checks += n
            for i in np.nonzero(got != want)[0][:5]:
                run.fail(f"f32 0x{int(words[i]):08x} -> f16 transposed ({'interpreter' if interp else f'{vb}-byte vectors'}): "
                         f"got 0x{int(got[i]):04x}, want 0x{int(want[i]):04x}")
        out = run.repack("tensor<65536xf16>", "tensor<65536xf32>", codes.tobytes(), interp, env)
        if out is not None:
            got = np.frombuffer(out, dtype=np.uint32)
            run.checks += 1 << 16
            for i in np.nonzero(got != back)[0][:5]:
                run.fail(f"f16 0x{int(codes[i]):04x} -> f32: got 0x{int(got[i]):08x}, want 0x{int(back[i]):08x}")


INTS = {"ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64, "si8": np.int8,
        "si16": np.int16, "si32": np.int32, "si64": np.int64, "index": np.int64, "i8": np.int8,
        "i32": np.int32}


def int_inputs(dt, rng, n):
    info = np.iinfo(dt)
    vals = [info.min, info.max, 0, 1, info.max - 1, info.min + 1] + [rng.randint(int(info.min), int(info.max)) for _ in range(n)]
    small = [rng.randint(max(int(info.min), -300), min(int(info.max), 300)) for _ in range(n // 4)]
    return np.array(vals + small, dtype=dt)


def float_to_int_ref(x, dt):
    """Round to nearest even, saturate, NaN gives 0."""
    info = np.iinfo(dt)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return int(info.max) if x > 0 else int(info.min)
    r = int(np.rint(x))
    return min(max(r, int(info.min)), int(info.max))


def check_ints(run, rng):
    for name, dt in INTS.items():
        xs = int_inputs(dt, rng, 1000)
        n = len(xs)
        for fname, ft in (("f32", np.float32), ("f64", np.float64)):  # int -> float: NumPy's cast
            for interp in (False, True):
                out = run.repack(f"tensor<{n}x{name}>", f"tensor<{n}x{fname}>", xs.tobytes(), interp)
                if out is not None:
                    got, want = np.frombuffer(out, dtype=ft), xs.astype(ft)
                    run.checks += n
                    for i in np.nonzero(got != want)[0][:5]:
                        run.fail(f"{name} {xs[i]} -> {fname}: got {got[i]!r}, want {want[i]!r}")
            fl = np.concatenate([np.array([np.nan, np.inf, -np.inf, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, 255.5,
                                           256.0, -128.5, 127.5, 65535.5, 2.0 ** 31, 2.0 ** 32, 2.0 ** 63, 2.0 ** 64],
                                          dtype=ft),
                                 np.array([rng.uniform(-1, 1) * 2.0 ** rng.randint(0, 66) for _ in range(2000)], dtype=ft)])
            for interp in (False, True):
                out = run.repack(f"tensor<{len(fl)}x{fname}>", f"tensor<{len(fl)}x{name}>", fl.tobytes(), interp)
                if out is not None:
                    got = np.frombuffer(out, dtype=dt)
                    for x, g in zip(fl, got):
                        run.checks += 1
                        if int(g) != float_to_int_ref(float(x), dt):
                            run.fail(f"{fname} {x!r} -> {name}: got {g}, want {float_to_int_ref(float(x), dt)}")
        for other, odt in INTS.items():  # int -> int: extend by the source's signedness, wrap
            if other == name or rng.random() < 0.5:
                continue
            out = run.repack(f"tensor<{n}x{name}>", f"tensor<{n}x{other}>", xs.tobytes(), False)
            if out is not None:
                got, want = np.frombuffer(out, dtype=odt), xs.astype(odt)
                run.checks += n
                for i in np.nonzero(got != want)[0][:5]:
                    run.fail(f"{name} {xs[i]} -> {other}: got {got[i]}, want {want[i]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layoutc", default="layoutc")
    args = ap.parse_args()
    rng = random.Random(20261201)
    with tempfile.TemporaryDirectory() as tmp:
        run = Runner(args.layoutc, tmp)
        for name in FORMATS:
            check_decode(run, name)
            check_encode(run, name)
        check_tf32(run, rng)
        check_f16(run, rng)
        check_ints(run, rng)
    print(f"element formats: {run.checks} checks, {run.failures} failures")
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
