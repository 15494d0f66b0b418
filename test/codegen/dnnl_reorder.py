#!/usr/bin/env python3
"""Differential test: `layoutc repack` against oneDNN's reorder, byte for byte.

SPEC 3.4: the bytes of the destination (padding included) must equal what oneDNN's reorder
writes for the same format tags. For each case the driver writes random source bytes (random bit
patterns plus NaN, infinity, subnormals, signed zeros and rounding ties for float types), runs
    dnnl_reorder SRC_TAG DST_TAG DIMS SRC_DT DST_DT in out.dnnl
    layoutc repack 'tensor<DIMSxE, "SRC_TAG">' 'tensor<DIMSxE2, "DST_TAG">' -i in -o out.ly
and compares the two output files. The JIT kernels run single-threaded and on 3 threads.

Known deviations, checked rather than skipped: some oneDNN 2.6 reorder implementations compute
the destination arithmetically instead of copying bits (its reference reorders even for f32 -> f32
between multi-level blocked tags, and all its f16 conversions): they turn a negative zero into a
positive zero and quiet signalling NaNs. layoutc keeps the bits of copied values (and the sign of
zero in conversions, as IEEE 754 and SPEC 3.4's round-to-nearest-even require). So where the
outputs differ, the element is accepted only if oneDNN's value is exactly layoutc's value
canonicalised (-0 -> +0, signalling NaN -> the same NaN with the quiet bit set, and on hosts
without native bf16 a bf16 subnormal -> zero); it is counted as an oneDNN canonicalisation. Any other difference is a mismatch. The same reference reorders
carry s32 through f32, so s32 sources are drawn from [-2^24, 2^24], where that is exact (full-range
s32 copies are covered by codegen_random against the interpreter).

Output: one line per mismatching case, then
`dnnl reorder: N cases, B bytes, K mismatches, Z canonicalised by oneDNN`.
"""

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

ELEM = {"f32": ("f32", 4), "bf16": ("bf16", 2), "f16": ("f16", 2), "s8": ("i8", 1), "s32": ("i32", 4),
        "u8": ("ui8", 1)}
# oneDNN's s8 and s32 are both layoutc's signless iN and its signed siN: cases alternate.
SIGNED = {"s8": "si8", "s32": "si32"}

# (rank, [tags]): pairs are drawn from each family, in both directions.
TAGS = {
    2: ["ab", "ba", "AB16b16a", "AB8a2b", "BA16a16b", "AB16b64a", "BA16a16b2a"],
    3: ["abc", "acb", "aBc16b", "aBc8b", "ABc16a16b", "ABc4b16a4b"],
    4: ["abcd", "acdb", "aBcd16b", "aBcd8b", "aBcd4b", "ABcd16b16a", "ABcd8b8a", "ABcd4b16a4b", "Abcd16a",
        "ABcd16a16b", "bacd", "aBCd16b16c"],
    5: ["abcde", "acdeb", "aBcde16b", "aBcde8b", "ABcde16b16a"],
}

# Element type pairs oneDNN converts the way SPEC 3.4 defines (integer narrowing saturates in
# oneDNN but wraps in layoutc, so it is not compared here).
DTYPES = [("f32", "f32"), ("f32", "bf16"), ("bf16", "f32"), ("bf16", "bf16"), ("f32", "f16"),
          ("f16", "f32"), ("s8", "s8"), ("s8", "s32"), ("s32", "s32"), ("f32", "s8"),
          ("s8", "f32"), ("s8", "bf16"), ("s32", "f32"),
          # u8 zero-extends (u8 -> s32, f32, bf16) and saturates from floats at 0 and 255
          ("u8", "u8"), ("u8", "s32"), ("u8", "f32"), ("f32", "u8"), ("u8", "bf16")]

# Fixed cases from the issue: padded destinations and f32 -> bf16.
FIXED = [
    ((2, 20, 3, 3), "abcd", "aBcd16b", "f32", "f32"),
    ((2, 20, 3, 3), "aBcd16b", "abcd", "f32", "f32"),
    ((2, 20, 3, 3), "abcd", "aBcd16b", "f32", "bf16"),
    ((2, 64, 5, 7), "abcd", "aBcd16b", "f32", "bf16"),
    ((2, 64, 5, 7), "abcd", "acdb", "f32", "f32"),
    ((20, 18, 3, 3), "abcd", "ABcd16b16a", "f32", "f32"),
    ((10, 12, 3, 3), "abcd", "ABcd8b8a", "f32", "f32"),
    ((32, 64, 3, 3), "abcd", "ABcd4b16a4b", "f32", "f32"),
    ((3, 5), "ab", "ba", "bf16", "f32"),
    ((17, 33), "ab", "AB16b16a", "f32", "bf16"),
]


def float_values(dt, rng):
    """Interesting bit patterns of a float type, as integers."""
    if dt == "f32":
        return [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345,
                0x00000001, 0x807FFFFF, 0x00400000, 0x3F808000, 0x3F818000, 0x3F807FFF, 0x7F7FFFFF,
                0x477FF000, 0x477FEFFF, 0x33000000, 0x33000001, 0x387FC000]
    return [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x03FF, 0x7F80, 0xFF80, 0x7FC0,
            0x7F81, 0x0040, 0x3C00, 0xBC01]


def random_source(dt, count, rng):
    """count elements of dt as little-endian bytes."""
    size = ELEM[dt][1]
    out = bytearray()
    if dt == "f32" and rng.random() < 0.3:  # exact halves around the s8 range: ties, saturation
        for _ in range(count):
            out += struct.pack("<f", rng.randint(-600, 600) / 2.0)
        return bytes(out)
    if dt == "s32":  # oneDNN's reference reorders pass s32 through f32: keep values exact there
        return b"".join(rng.randint(-(1 << 24), 1 << 24).to_bytes(4, "little", signed=True)
                        for _ in range(count))
    specials = float_values(dt, rng) if dt in ("f32", "bf16", "f16") else []
    for _ in range(count):
        if specials and rng.random() < 0.2:
            v = rng.choice(specials)
        else:
            v = rng.getrandbits(8 * size)
        out += v.to_bytes(size, "little")
    return bytes(out)


def finite_f32_source(count, rng):
    """f32 values without NaN (oneDNN's NaN-to-integer result is unspecified)."""
    out = bytearray()
    for _ in range(count):
        r = rng.random()
        if r < 0.5:
            v = rng.randint(-400, 400) / 2.0
        elif r < 0.8:
            v = rng.uniform(-1e6, 1e6)
        else:
            v = rng.choice([0.0, -0.0, float("inf"), float("-inf"), 127.5, -128.5, 126.5, 1e-40])
        out += struct.pack("<f", v)
    return bytes(out)


def quick(n):
    """Fewer random cases when LAYOUTC_TEST_QUICK is set (the sanitizer run, where every process
    is ~20x slower); the checks stay the same."""
    return max(n // 10, 20) if os.environ.get("LAYOUTC_TEST_QUICK") else n


def layoutc_type(dims, dt, tag):
    elem = SIGNED[dt] if dt in SIGNED and sum(dims) % 2 else ELEM[dt][0]
    return 'tensor<%sx%s, "%s">' % ("x".join(map(str, dims)), elem, tag)


def random_case(rng):
    rank = rng.choice([2, 3, 4, 4, 4, 5])
    src, dst = rng.sample(TAGS[rank], 2)
    dims = tuple(rng.choice([1, 2, 3, 5, 8, 16, 17, 20, 33]) if d < 2 else rng.randint(1, 6)
                 for d in range(rank))
    sdt, ddt = rng.choice(DTYPES)
    return dims, src, dst, sdt, ddt


def run_case(args, case, rng, tmp, threads):
    dims, stag, dtag, sdt, ddt = case
    numel = 1
    for d in dims:
        numel *= d
    st, dt = layoutc_type(dims, sdt, stag), layoutc_type(dims, ddt, dtag)
    size = subprocess.run([args.layoutc, "describe", st, "--json"], capture_output=True, text=True)
    if size.returncode:
        return "layoutc describe failed: " + size.stderr.strip(), 0, 0
    sbytes = json.loads(size.stdout)["size_bytes"]
    count = sbytes // ELEM[sdt][1]
    data = finite_f32_source(count, rng) if (sdt == "f32" and ddt in ("s8", "u8")) else random_source(sdt, count, rng)
    inp, out_d, out_l = (os.path.join(tmp, n) for n in ("in", "out.dnnl", "out.ly"))
    with open(inp, "wb") as f:
        f.write(data)
    r = subprocess.run([args.oracle, stag, dtag, ",".join(map(str, dims)), sdt, ddt, inp, out_d],
                       capture_output=True, text=True)
    if r.returncode:
        return "dnnl_reorder failed: " + r.stderr.strip(), 0, 0
    r = subprocess.run([args.layoutc, "repack", st, dt, "-i", inp, "-o", out_l, "--threads", str(threads)],
                       capture_output=True, text=True)
    if r.returncode:
        return "layoutc repack failed: " + r.stderr.strip(), 0, 0
    a, b = open(out_d, "rb").read(), open(out_l, "rb").read()
    if len(a) != len(b):
        return "sizes differ: oneDNN %d bytes, layoutc %d" % (len(a), len(b)), 0, 0
    size, canon = ELEM[ddt][1], 0
    for i in range(0, len(a), size):
        x, y = a[i:i + size], b[i:i + size]
        if x == y:
            continue
        if ddt in FLOAT_BITS and x in canonical(y, ddt):
            canon += 1
            continue
        return "first difference at byte %d: oneDNN %s, layoutc %s" % (i, x[::-1].hex(), y[::-1].hex()), 0, 0
    return None, len(a), canon


# (exponent mask, quiet bit, sign bit) of the float types.
FLOAT_BITS = {"f32": (0x7F800000, 0x00400000, 0x80000000), "bf16": (0x7F80, 0x0040, 0x8000),
              "f16": (0x7C00, 0x0200, 0x8000)}


def canonical(raw, dt):
    """What arithmetic on a value gives back: -0 -> +0, signalling NaN -> quiet NaN; for bf16 also
    a subnormal flushed to zero (oneDNN's bf16 arithmetic goes through its f32 -> bf16 conversion,
    which flushes f32 subnormals, on hosts without native bf16 instructions), with its sign or +0."""
    exp, quiet, sign = FLOAT_BITS[dt]
    v = int.from_bytes(raw, "little")
    mantissa = v & (sign - 1) & ~exp
    forms = []
    if v == sign:
        forms.append(0)
    elif v & exp == exp and mantissa and not v & quiet:
        forms.append(v | quiet)
    elif dt == "bf16" and not v & exp and mantissa:
        forms += [v & sign, 0]
    return [f.to_bytes(len(raw), "little") for f in forms]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layoutc", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--cases", type=int, default=150, help="random cases besides the fixed ones")
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = FIXED + [random_case(rng) for _ in range(quick(args.cases))]
    bad = total = canonicalised = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases):
            threads = 3 if i % 2 else 1
            err, nbytes, canon = run_case(args, case, rng, tmp, threads)
            total += nbytes
            canonicalised += canon
            if err:
                bad += 1
                print("MISMATCH %s %s -> %s %s -> %s (threads %d): %s" % (
                    "x".join(map(str, case[0])), case[1], case[2], case[3], case[4], threads, err))
    print("dnnl reorder: %d cases, %d bytes, %d mismatches, %d canonicalised by oneDNN" % (
        len(cases), total, bad, canonicalised))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
