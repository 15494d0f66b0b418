#!/usr/bin/env python3
"""Differential test: layoutc's views of format tags against libdnnl's (SPEC §3.3).

Random oneDNN format tags (ranks 2..5, plain and blocked, padded or not) and random requests:
reshapes that split, join, add or remove size-1 dims (dnnl_memory_desc_reshape), permutations
(dnnl_memory_desc_permute_axes) and submemory boxes, mostly at block-aligned offsets
(dnnl_memory_desc_init_submemory). `dnnl_views` answers each with oneDNN's result and every
element's offset (measured through a reorder and checked against the desc).

Whenever oneDNN builds the view, layoutc (default mode) must too, with the same offset at every
element. When oneDNN refuses and layoutc builds a view anyway, that view is checked element by
element against the source's offsets as oneDNN lays them out. Prints mismatches, then
`dnnl views: N cases, D dnnl views matched, X layoutc-only views`; exits 0 iff no mismatch.
Standard library only (runs under /usr/bin/python3).
"""
import argparse
import multiprocessing
import os
import random
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree clean when lit runs this
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewlib import cmdline, factor, regroup, csv, indices, prod, ravel, run, type_str, unravel  # noqa: E402

# oneDNN abstract tags (all in dnnl_types.h of 2.6), ranks 2..5.
TAGS = [
    "ab", "ba",
    "abc", "acb", "bac", "bca", "cba",
    "aBc4b", "aBc8b", "aBc16b", "Abc4a", "Abc16a", "Acb8a", "Acb16a", "ABc4a4b", "ABc16b16a", "ABc8a4b",
    "AcB16a2b", "AB16b16a", "BA16a16b", "AB8a4b",
    "abcd", "abdc", "acbd", "acdb", "adbc", "bacd", "bcda", "cdba", "dcab",
    "aBcd4b", "aBcd8b", "aBcd16b", "Abcd8a", "Abcd16a", "Acdb8a", "Acdb16a", "aBdc8b", "aBdc16b", "Adcb16a",
    "ABcd8b8a", "ABcd16b16a", "ABcd8a8b", "ABcd16a16b", "BAcd16a16b", "ABcd4b16a4b", "aBCd4c4b",
    "aBCd16b16c", "aCBd16b16c", "ABcd2a8b8a2b",
    "abcde", "acdeb", "abdec", "decab", "aBcde4b", "aBcde8b", "aBcde16b", "Abcde16a", "aBdec16b",
    "ABcde16a16b", "aBCde16c16b", "ABcde4b16a4b",
]
LETTERS = "abcdefghijkl"



def quick(n):
    """Fewer random cases when LAYOUTC_TEST_QUICK is set (the sanitizer run,
    where every process is ~20x slower); the checks stay the same."""
    return max(n // 10, 50) if os.environ.get("LAYOUTC_TEST_QUICK") else n

def tag_blocks(tag):
    """{dim: product of its inner blocks} of an abstract tag."""
    out = {}
    i = 0
    while i < len(tag) and tag[i].isalpha():
        i += 1
    while i < len(tag):
        j = i
        while tag[j].isdigit():
            j += 1
        d = LETTERS.index(tag[j])
        out[d] = out.get(d, 1) * int(tag[i:j])
        i = j + 1
    return out


def tag_rank(tag):
    """Number of outer letters (the letters before the first block digit)."""
    i = 0
    while i < len(tag) and tag[i].isalpha():
        i += 1
    return i


def rand_dims(rng, rank, blocks):
    while True:
        dims = []
        for d in range(rank):
            b = blocks.get(d)
            if b:
                u = rng.random()
                if u < 0.45:  # a multiple of the block: no padding
                    n = b * rng.randint(1, 2)
                elif u < 0.8:  # anything up to two blocks, padded or not, 1 included
                    n = rng.randint(1, 2 * b)
                else:  # just short of a block boundary
                    n = b * rng.randint(1, 2) - rng.randint(1, min(3, b - 1))
            else:
                n = rng.choice([1, 1, 2, 2, 3, 4, 5])
            dims.append(max(1, n))
        padded = [-(-n // blocks.get(d, 1)) * blocks.get(d, 1) for d, n in enumerate(dims)]
        if prod(dims) <= 1200 and prod(padded) <= 4096:
            return dims


def rand_reshape(rng, dims, blocks):
    u = rng.random()
    if u < 0.25 and blocks:
        # split a blocked dim along its block, keep the rest (layoutc: a plain view; oneDNN refuses)
        d = rng.choice(sorted(blocks))
        b = blocks[d]
        if dims[d] % b == 0 and dims[d] > b:
            return dims[:d] + [dims[d] // b, b] + dims[d + 1:]
    if u < 0.55 and u >= 0.4:
        # any factorization of the element count: dims need not nest with the source's
        new = factor(rng, prod(dims))
        rng.shuffle(new)
        return new or [1]
    if u < 0.4:
        # add or remove size-1 dims only
        new = [n for n in dims if n != 1 or rng.random() < 0.5]
        while rng.random() < 0.5 or not new:
            new.insert(rng.randint(0, len(new)), 1)
        return new[:12]
    new = regroup(rng, dims, 0.5, 0.4)
    while rng.random() < 0.25:
        new.insert(rng.randint(0, len(new)), 1)
    return (new or [1])[:12]


def rand_box(rng, dims, blocks):
    offs, sizes = [], []
    for d, n in enumerate(dims):
        b = blocks.get(d, 1)
        u = rng.random()
        if u < 0.3:
            o, s = 0, n
        elif u < 0.85:  # block-aligned offset; size a multiple of the block, below it, or to the border
            o = rng.randrange(0, n, b) if b > 1 else rng.randrange(0, n)
            choices = [s for s in range(1, n - o + 1) if s % b == 0 or s < b or o + s == n]
            s = rng.choice(choices)
        else:  # anything
            o = rng.randrange(0, n)
            s = rng.randint(1, n - o)
        offs.append(o)
        sizes.append(s)
    return offs, sizes


def make_cases(seed, n):
    rng = random.Random(seed)
    cases = []
    while len(cases) < n:
        tag = rng.choice(TAGS)
        blocks = tag_blocks(tag)
        rank = tag_rank(tag)
        dims = rand_dims(rng, rank, blocks)
        u = rng.random()
        if u < 0.5:
            cases.append((tag, dims, "reshape", [rand_reshape(rng, dims, blocks)]))
        elif u < 0.7:
            p = list(range(rank))
            rng.shuffle(p)
            cases.append((tag, dims, "permute", [p]))
        else:
            o, s = rand_box(rng, dims, blocks)
            cases.append((tag, dims, "submemory", [o, s]))
    return cases


def oracle_lines(oracle, cases):
    """Runs the oracle once on every case (plus an identity permute per case for the source's own
    offsets); returns [(source answer, op answer)]."""
    lines = []
    for tag, dims, op, args in cases:
        lines.append("%s %s permute %s" % (tag, csv(dims), csv(range(len(dims)))))
        lines.append("%s %s %s %s" % (tag, csv(dims), op, " ".join(csv(a) for a in args)))
    try:
        p = subprocess.run([oracle, "-"], input="\n".join(lines) + "\n", stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit("cannot run the oracle %r (built from test/views/dnnl_views.c): %s" % (oracle, e))
    out = p.stdout.splitlines()
    if len(out) != len(lines):
        sys.exit("dnnl_views printed %d lines for %d cases (exit %d): %s"
                 % (len(out), len(lines), p.returncode, p.stderr.strip()[:300]))
    return [(out[2 * i], out[2 * i + 1]) for i in range(len(cases))]


def check_case(job):
    """Returns (oneDNN views matched, layoutc-only views, [mismatches], [oneDNN's own bugs])."""
    layoutc, (tag, dims, op, args), (src_ans, ans) = job
    ty = type_str(dims, "f32", '"%s"' % tag)
    oracle_case = "dnnl_views %s %s %s %s" % (tag, csv(dims), op, " ".join(csv(a) for a in args))
    if not src_ans.startswith("view"):
        return 0, 0, ["dnnl_views %s %s: no source offsets: %s" % (tag, csv(dims), src_ans)], []
    src = [int(x) for x in src_ans.split()[1:]]
    if ans.startswith("error"):
        return 0, 0, ["%s: %s" % (oracle_case, ans)], []

    # The op's definition: the view's dims and the source offset of each of its elements.
    if op == "reshape":
        vdims = list(args[0])
        argv = [layoutc, "reshape", ty, csv(vdims)]
        expect = src
    elif op == "permute":
        perm = args[0]
        vdims = [0] * len(dims)
        for i, p in enumerate(perm):
            vdims[p] = dims[i]
        argv = [layoutc, "permute", ty, csv(perm)]
        expect = [src[ravel([j[perm[i]] for i in range(len(dims))], dims)] for j in indices(vdims)]
    else:
        offs, vdims = args
        argv = [layoutc, "slice", ty, csv(offs), csv(vdims)]
        expect = [src[ravel([a + b for a, b in zip(j, offs)], dims)] for j in indices(vdims)]

    # A oneDNN result that contradicts itself or the op's definition is a oneDNN bug; it counts as
    # a refusal, and layoutc is held to the definition (any view it returns is checked against the
    # source's offsets).
    dnnl_view = ans.startswith("view")
    dnnl_bug = []
    if ans.startswith("inconsistent"):
        dnnl_bug.append("%s: %s" % (oracle_case, ans))
    elif dnnl_view:
        want = [int(x) for x in ans.split()[1:]]
        if want != expect:
            i = next((k for k in range(min(len(want), len(expect))) if want[k] != expect[k]), 0)
            dnnl_bug.append("%s: oneDNN's result puts element %d %s at %s, its source has it at %s"
                            % (oracle_case, i, unravel(i, vdims), want[i] if i < len(want) else "?",
                               expect[i] if i < len(expect) else "?"))
            dnnl_view = False

    rc, out, err = run(argv)
    if rc != 0:
        if dnnl_view:
            return 0, 0, ["%s: oneDNN makes this a view, layoutc refuses (exit %d): %s"
                          % (cmdline(argv), rc, err.strip().splitlines()[0] if err.strip() else "")], dnnl_bug
        if rc != 1 or "error:" not in err:
            return 0, 0, ["%s: refusal must exit 1 with an error, got exit %d: %r" % (cmdline(argv), rc, err)], dnnl_bug
        return 0, 0, [], dnnl_bug
    vty = out.strip()
    rc, oout, oerr = run([layoutc, "offset", vty, "--all"])
    if rc != 0:
        return 0, 0, ["%s: view %s: offset --all failed: %s" % (cmdline(argv), vty, oerr.strip()[:200])], dnnl_bug
    got = [int(x) for x in oout.split()]
    if got != expect:
        i = next((k for k in range(min(len(got), len(expect))) if got[k] != expect[k]), None)
        who = "oneDNN" if dnnl_view else "the source (oneDNN has no view here)"
        if i is None:
            return 0, 0, ["%s: view %s has %d offsets, expected %d"
                          % (cmdline(argv), vty, len(got), len(expect))], dnnl_bug
        return 0, 0, ["%s: view %s: element %d %s at %d, %s has %d"
                      % (cmdline(argv), vty, i, unravel(i, vdims), got[i], who, expect[i])], dnnl_bug
    return (1, 0, [], dnnl_bug) if dnnl_view else (0, 1, [], dnnl_bug)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layoutc", required=True, help="layoutc executable")
    ap.add_argument("--oracle", required=True, help="dnnl_views executable")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cases", type=int, default=quick(1500))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--max-failures", type=int, default=60)
    args = ap.parse_args()

    cases = make_cases(args.seed, args.cases)
    answers = oracle_lines(args.oracle, cases)
    jobs = [(args.layoutc, c, a) for c, a in zip(cases, answers)]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(check_case, jobs, chunksize=16)
    else:
        results = [check_case(j) for j in jobs]
    matched = sum(r[0] for r in results)
    only = sum(r[1] for r in results)
    fails = [f for r in results for f in r[2]]
    wrong = [w for r in results for w in r[3]]
    per_op = {}
    for (tag, dims, op, a), (s, ans) in zip(cases, answers):
        k = per_op.setdefault(op, [0, 0])
        k[0] += 1
        k[1] += ans.startswith("view")
    for line in fails[: args.max_failures]:
        print(line)
    if len(fails) > args.max_failures:
        print("... %d more mismatches" % (len(fails) - args.max_failures))
    for line in wrong[:10]:
        print("oneDNN bug (not counted against layoutc): " + line)
    print("(%d oneDNN results wrong or self-contradictory; layoutc held to the op's definition there)" % len(wrong))
    print("(oneDNN views per op: %s)" % ", ".join("%s %d/%d" % (op, v, n) for op, (n, v) in sorted(per_op.items())))
    print("dnnl views: %d cases, %d dnnl views matched, %d layoutc-only views" % (len(cases), matched, only))
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
