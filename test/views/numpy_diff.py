#!/usr/bin/env python3
"""Differential test: layoutc reshape against NumPy's no-copy reshape (SPEC §3.3).

Random strided arrays (np.lib.stride_tricks.as_strided over a buffer whose element p holds p:
positive strides, dense or with gaps, permuted, overlapping, with size-1 dims of any stride and a
base offset) and random reshapes. NumPy's `reshape` returns a view when it can and a copy
otherwise; a view shares the buffer, so its values are its element offsets.

Whenever NumPy returns a view, layoutc must return one in both modes; the `--strided` view must
have NumPy's stride (in elements) for every dim of extent > 1 and NumPy's offset, and both views
must have NumPy's offset at every element. When NumPy copies, any view layoutc still returns is
checked element by element too. Prints failures, then
`numpy: N cases, V numpy views, all matched; C numpy copies, G of them views in layoutc`
(`K mismatched` instead of `all matched` when some failed); exits 0 iff nothing failed.
Needs NumPy (/usr/bin/python3 with python3-numpy).
"""
import argparse
import json
import multiprocessing
import os
import random
import sys

import numpy as np
from numpy.lib.stride_tricks import as_strided

sys.dont_write_bytecode = True  # keep the source tree clean when lit runs this
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewlib import cmdline, factor, regroup, csv, prod, run, type_str, unravel  # noqa: E402

ITEM = 4  # int32 buffer, f32 types: both 4 bytes



def quick(n):
    """Fewer random cases when LAYOUTC_TEST_QUICK is set (the sanitizer run,
    where every process is ~20x slower); the checks stay the same."""
    return max(n // 10, 50) if os.environ.get("LAYOUTC_TEST_QUICK") else n

def rand_source(rng):
    rank = rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 5])
    while True:
        dims = [rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6]) for _ in range(rank)]
        if prod(dims) <= 240:
            break
    u = rng.random()
    if u < 0.25:  # contiguous row-major
        strides = [prod(dims[d + 1:]) for d in range(rank)]
    elif u < 0.75:  # dense in a random order, some gaps
        order = list(range(rank))
        rng.shuffle(order)
        strides = [0] * rank
        acc = 1
        for d in reversed(order):
            strides[d] = acc
            acc *= dims[d] + (rng.choice([1, 2]) if rng.random() < 0.25 else 0)
            if rng.random() < 0.1:
                acc *= 2
    else:  # anything positive, overlapping allowed
        strides = [rng.randint(1, 12) for _ in range(rank)]
    for d in range(rank):  # the stride of an extent-1 dim is arbitrary
        if dims[d] == 1 and rng.random() < 0.5:
            strides[d] = rng.randint(1, 50)
    return dims, strides, rng.choice([0, 0, 0, 1, 2, 5])


def rand_reshape(rng, dims):
    if rng.random() < 0.6:
        new = regroup(rng, dims, 0.6, 0.45)
    else:
        new = factor(rng, prod(dims))
        rng.shuffle(new)
    while rng.random() < 0.25:
        new.insert(rng.randint(0, len(new)), 1)
    return new or [1]


def view_of(layoutc, ty, new, strided):
    argv = [layoutc, "reshape", ty, csv(new)] + (["--strided"] if strided else [])
    rc, out, err = run(argv)
    return argv, rc, out.strip(), err.strip()


def offsets(layoutc, ty):
    rc, out, err = run([layoutc, "offset", ty, "--all"])
    if rc != 0:
        return None
    return [int(x) for x in out.split()]


def check_case(job):
    layoutc, (dims, strides, base, new) = job
    fails = []
    span = base + sum((n - 1) * s for n, s in zip(dims, strides)) + 1
    buf = np.arange(span + 8, dtype=np.int32)
    a = as_strided(buf[base:], shape=tuple(dims), strides=tuple(s * ITEM for s in strides), writeable=False)
    r = a.reshape(tuple(new))
    is_view = np.shares_memory(r, buf)
    want = [int(x) for x in np.asarray(r).ravel()] if is_view else [int(x) for x in a.ravel()]
    layout = "strided<[%s], offset: %d>" % (csv(strides), base)
    ty = type_str(dims, "f32", layout)
    src = offsets(layoutc, ty)
    if src != [int(x) for x in a.ravel()]:
        fails.append("%s: source offsets differ from NumPy's" % cmdline([layoutc, "offset", ty, "--all"]))
        return is_view, False, False, fails

    def check_offsets(argv, vty, label):
        got = offsets(layoutc, vty)
        if got is None:
            fails.append("%s: %s %s: offset --all failed" % (cmdline(argv), label, vty))
        elif got != want:
            i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), None)
            if i is None:
                fails.append("%s: %s %s has %d offsets, NumPy %d" % (cmdline(argv), label, vty, len(got), len(want)))
            else:
                fails.append("%s: %s %s: element %d %s at %d, NumPy's reshape has it at %d"
                             % (cmdline(argv), label, vty, i, unravel(i, new), got[i], want[i]))

    lay_view = False
    lay_strided = False
    for strided in (False, True):
        argv, rc, out, err = view_of(layoutc, ty, new, strided)
        mode = "--strided" if strided else "default mode"
        if rc not in (0, 1):
            fails.append("%s: exit %d: %s" % (cmdline(argv), rc, err.splitlines()[:1]))
            continue
        if rc == 1:
            if is_view:
                np_strides = [s // ITEM for s in r.strides]
                fails.append("%s: NumPy reshapes without a copy (strides %s), layoutc (%s) refuses: %s"
                             % (cmdline(argv), np_strides, mode, err.splitlines()[0] if err else "(no error)"))
            continue
        if strided:
            lay_strided = True
        else:
            lay_view = True
        check_offsets(argv, out, "view")
        if strided:
            rc2, dout, derr = run([layoutc, "describe", out, "--json"])
            d = json.loads(dout) if rc2 == 0 else {}
            st = d.get("strides")
            if st is None:
                fails.append("%s: --strided view %s has no strides" % (cmdline(argv), out))
            elif is_view:
                np_st = [s // ITEM for s in r.strides]
                got_st = [s // ITEM for s in st]
                bad = [k for k in range(len(new)) if new[k] > 1 and got_st[k] != np_st[k]]
                if bad:
                    fails.append("%s: --strided view %s strides %s elements, NumPy %s"
                                 % (cmdline(argv), out, got_st, np_st))
                np_off = (r.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // ITEM
                if d.get("offset") != np_off:
                    fails.append("%s: --strided view %s offset %r, NumPy %d" % (cmdline(argv), out, d.get("offset"), np_off))
    return is_view, lay_view, lay_strided, fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layoutc", required=True, help="layoutc executable")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cases", type=int, default=quick(1500))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--max-failures", type=int, default=60)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    cases = []
    for _ in range(args.cases):
        dims, strides, base = rand_source(rng)
        cases.append((dims, strides, base, rand_reshape(rng, dims)))
    jobs = [(args.layoutc, c) for c in cases]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(check_case, jobs, chunksize=16)
    else:
        results = [check_case(j) for j in jobs]
    views = sum(1 for v, _, _, _ in results if v)
    copies = len(results) - views
    copy_views = sum(1 for v, lv, _, _ in results if not v and lv)
    copy_strided = sum(1 for v, _, ls, _ in results if not v and ls)
    fails = [f for _, _, _, fs in results for f in fs]
    for line in fails[: args.max_failures]:
        print(line)
    if len(fails) > args.max_failures:
        print("... %d more failures" % (len(fails) - args.max_failures))
    print("(%d NumPy copies are plain strided views in layoutc --strided, offsets checked)" % copy_strided)
    print("numpy: %d cases, %d numpy views, %s; %d numpy copies, %d of them views in layoutc"
          % (len(results), views, "all matched" if not fails else "%d mismatched" % len(fails), copies, copy_views))
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
