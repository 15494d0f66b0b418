#!/usr/bin/env python3
"""Exact offset ranges of general layouts: the allocation a layout needs and the
negative offsets it reaches, against a naive reference.

Each random case is a `layout<[...]>` of 1-3 dims whose digits split each dim
into mixed-radix pieces ((d floordiv D) mod E, gaps between pieces, the top
piece wrapped or not), with random signed strides, in random order; some cases
add a digit that overlaps another (no longer a split). The reference visits
every index of each dim (the digits of different dims vary independently) and
takes the smallest and largest offset. layoutc must accept exactly the base
offset -min and the size base+max+1, and refuse one less of either:

    layout<[...], size: S, offset: B>      parses       (B = -min or more, S = B+max+1)
    layout<[...], size: S-1, offset: B>    is refused   ("beyond" the size)
    layout<[...], size: S, offset: B-1>    is refused   (a negative offset)

All cases go through one `layoutc parse --split-input-file` run. Dims reach
10^6, where only a closed form (not a visit within the work budget) is exact.

Output: failing cases, then `offset range: N cases, K failures`.
"""
import argparse
import random
import re
import subprocess
import sys
import tempfile


def split_digits(rng, d, n, overlap):
    """Digits (div, ext or None, stride) of dim d of extent n."""
    digits, pos = [], rng.choice([1, 1, 2, 3])
    while True:
        top = rng.random() < 0.3 or pos > n
        ext = None if top else rng.choice([1, 2, 3, 4, 5, 8, 16, 128])
        if not top and rng.random() < 0.2:
            ext = None  # an unwrapped top piece that ends the split
        stride = rng.choice([0, 1, 2, 7, 64, 1000, -1, -3, -128]) * rng.choice([1, 1, 2])
        digits.append((d, pos, ext, stride))
        if ext is None:
            break
        pos *= ext * rng.choice([1, 1, 1, 2, 3])  # sometimes a gap below the next piece
        if rng.random() < 0.25:
            break  # wrapped top piece: the values above it are dropped
    if overlap:  # a second reading of bits another digit already reads
        div = rng.choice([1, 2, 3, 4])
        digits.append((d, div, rng.choice([None, 3, 6]), rng.choice([1, 5, -2])))
    return digits


def digit_text(rng, g):
    """The digit's text, sometimes in an equivalent nested spelling:
    (d floordiv D) mod E = (((d floordiv a) mod E*b) floordiv b) [mod E] for D = a*b."""
    d, div, ext, stride = g
    bs = [b for b in range(2, div + 1) if div % b == 0]
    if ext is not None and bs and rng.random() < 0.4:
        b = rng.choice(bs)
        inner = f"(d{d})" if div == b else f"((d{d}) floordiv {div // b})"
        e = f"({inner} mod {ext * b}) floordiv {b}"
        if rng.random() < 0.5:
            e = f"({e}) mod {ext * rng.choice([1, 2])}"
        return f"{e} * {stride}"
    e = f"(d{d})" if div == 1 else f"(d{d}) floordiv {div}"
    if ext is not None:
        e = f"({e}) mod {ext}" if div != 1 else f"(d{d}) mod {ext}"
    return f"{e} * {stride}"


def dim_range(digits, n):
    lo = hi = None
    for i in range(n):
        off = sum(s * ((i // div) % ext if ext is not None else i // div) for _, div, ext, s in digits)
        lo = off if lo is None or off < lo else lo
        hi = off if hi is None or off > hi else hi
    return lo, hi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layoutc", default="layoutc")
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases, chunks = [], []
    for _ in range(a.cases):
        rank = rng.choice([1, 1, 2, 3])
        big = rng.random() < 0.15
        dims = [rng.choice([1000003, 1 << 20, 999999]) if big and d == 0 else rng.randint(1, 60) for d in range(rank)]
        digits, lo, hi = [], 0, 0
        for d in range(rank):
            gs = split_digits(rng, d, dims[d], rng.random() < 0.15 and not (big and d == 0))
            l, h = dim_range(gs, dims[d])
            digits += gs
            lo, hi = lo + l, hi + h
        rng.shuffle(digits)
        base = max(0, -lo)
        size = base + hi + 1
        body = ", ".join(digit_text(rng, g) for g in digits)
        shape = "x".join(map(str, dims))

        def text(s, b):
            return f"tensor<{shape}xi8, layout<[{body}], size: {s}, offset: {b}>>"
        cases.append((text(size, base), True))
        cases.append((text(size - 1, base), False))
        if base > 0:
            cases.append((text(size, base - 1), False))
    for t, _ in cases:
        chunks.append(t)
    with tempfile.NamedTemporaryFile("w", suffix=".lyt", delete=False) as f:
        f.write("\n// -----\n".join(chunks) + "\n")
        path = f.name
    r = subprocess.run([a.layoutc, "parse", path, "--split-input-file"], capture_output=True, text=True)
    bad_lines = {int(m.group(1)) for m in re.finditer(re.escape(path) + r":(\d+):\d+: error:", r.stderr)}
    failures = 0
    for k, (t, ok) in enumerate(cases):
        line = 2 * k + 1
        if ok == (line in bad_lines):
            failures += 1
            if failures <= 10:
                print(f"FAIL ({'should parse' if ok else 'should be refused'}): {t}")
    if "Assertion" in r.stderr or r.returncode not in (0, 1):
        failures += 1
        print("FAIL: layoutc exited with", r.returncode, r.stderr[-500:])
    print(f"offset range: {len(cases)} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
