#!/usr/bin/env python3
"""An independent evaluation of MLIR affine-map layouts: Python evaluates each
result expression on every index of the shape, takes each result's extent as
its largest value + 1 (MLIR's normalize-memrefs), linearises the results
row-major, and compares with `layoutc offset TYPE --all`."""
import itertools
import re
import subprocess
import sys

MAPS = [
    "(d0, d1) -> (d0, d1)",
    "(d0, d1) -> (d1, d0)",
    "(d0, d1) -> (d0 floordiv 4, d1, d0 mod 4)",
    "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4, d0 mod 2, d1 mod 4)",
    "(d0, d1) -> (d1 floordiv 4, d0, d1 mod 4)",
    "(d0, d1) -> (d0 floordiv 2, d1 floordiv 2, d0 mod 2, d1 mod 2)",  # Morton, one level
    "(d0, d1) -> (d0 floordiv 4, d1 floordiv 4, (d0 mod 4) floordiv 2, (d1 mod 4) floordiv 2, d0 mod 2, d1 mod 2)",
    "(d0, d1) -> (d0 * 8 + d1)",
    "(d0, d1) -> (d0 + d1 * 5 + 3)",
    "(d0, d1) -> (d0, d0 + d1)",  # a skew
    "(d0, d1) -> ((d0 + d1) floordiv 2, d1 mod 2)",
    "(d0, d1) -> ((d0 * 3 + d1) floordiv 4, (d0 * 3 + d1) mod 4)",
    "(d0, d1) -> (((d0 floordiv 2) mod 3) floordiv 2, d1, d0 mod 2)",
    "(d0, d1) -> ((d0 mod 6) mod 4, d1, d0 floordiv 6)",
    "(d0, d1) -> (d1 mod 3, d0 floordiv 3, d1 floordiv 3 + 1, d0 mod 3)",
    "(d0, d1, d2) -> (d0, d2 floordiv 8, d1, d2 mod 8)",
    "(d0, d1, d2) -> (d2, d0 floordiv 2, d1, d0 mod 2)",
    "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 3, d2, d1 mod 3)",
]
SHAPES = {2: [(1, 1), (3, 5), (4, 8), (6, 7), (8, 8), (9, 4)], 3: [(2, 3, 8), (3, 2, 9), (4, 5, 3)]}


def py_expr(e):
    e = re.sub(r"\bfloordiv\b", "//", e)
    return re.sub(r"\bmod\b", "%", e)


def split_top(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += c == "("
        depth -= c == ")"
        cur += c
    return out + [cur]


def offsets(m, shape):
    dims, results = m.split("->")
    names = [d.strip() for d in dims.strip()[1:-1].split(",")]
    exprs = [py_expr(r) for r in split_top(results.strip()[1:-1])]
    idx = list(itertools.product(*[range(n) for n in shape]))
    vals = [[eval(e, {}, dict(zip(names, i))) for e in exprs] for i in idx]
    ext = [max(v[k] for v in vals) + 1 for k in range(len(exprs))]
    out = []
    for v in vals:
        o = 0
        for k, x in enumerate(v):
            o = o * ext[k] + x
        out.append(o)
    return out


def main():
    n = 0
    for m in MAPS:
        rank = len(m.split("->")[0].split(","))
        for shape in SHAPES[rank]:
            t = f"tensor<{'x'.join(map(str, shape))}xf32, affine_map<{m}>>"
            r = subprocess.run(["layoutc", "offset", t, "--all"], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {t}: {r.stderr}")
                sys.exit(1)
            got = [int(x) for x in r.stdout.split()]
            want = offsets(m, shape)
            if got != want:
                print(f"FAIL {t}:\n  layoutc {got}\n  python  {want}")
                sys.exit(1)
            # the printed form reads back as the same type
            d = subprocess.run(["layoutc", "describe", t], capture_output=True, text=True).stdout.splitlines()[0]
            r2 = subprocess.run(["layoutc", "offset", d, "--all"], capture_output=True, text=True)
            if [int(x) for x in r2.stdout.split()] != want:
                print(f"FAIL {t}: its printed form {d} has other offsets")
                sys.exit(1)
            n += 1
    print(f"affine maps: {n} types agree")


if __name__ == "__main__":
    main()
