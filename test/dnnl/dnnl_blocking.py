#!/usr/bin/env python3
"""Differential test: layoutc's oneDNN descriptor queries against libdnnl's own memory descriptors.

For every format-tag case of dnnl_diff.py, and for random submemories of the blocked ones,
`layoutc describe --json` gives a "blocking" object (padded_dims, padded_offsets, offset0, strides,
inner_blks, inner_idxs) and `dnnl_oracle --blocking` prints the fields of the dnnl_memory_desc_t
that oneDNN builds for the same tag (dnnl_memory_desc_init_by_tag / _init_submemory). Checks:
- both descriptors give every element the same offset (oneDNN's own address formula applied to
  each side's fields), and offset0 (the submemory offset) agrees;
- where layoutc's canonical spelling is the same tag, every field is equal; where canonicalisation
  merged blocks into another tag ("nChw16c" on 2x20x1x1 is "aBcd32b"), the fields equal those
  oneDNN builds for that tag.
Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dnnl_diff import CASES, run  # noqa: E402

FIELDS = ("padded_dims", "padded_offsets", "offset0", "strides", "inner_blks", "inner_idxs")
SLICES_PER_CASE = 3


def offset(b, idx):
    """oneDNN's address formula (memory_desc_wrapper::off_v) on a blocking object."""
    pos = list(idx)
    off, blk = b["offset0"], 1
    for k in reversed(range(len(b["inner_blks"]))):
        d, n = b["inner_idxs"][k], b["inner_blks"][k]
        off += (pos[d] % n) * blk
        pos[d] //= n
        blk *= n
    return off + sum(p * s for p, s in zip(pos, b["strides"]))


def indices(dims):
    idx = [0] * len(dims)
    while True:
        yield tuple(idx)
        d = len(dims) - 1
        while d >= 0:
            idx[d] += 1
            if idx[d] < dims[d]:
                break
            idx[d] = 0
            d -= 1
        if d < 0:
            return


def describe(layoutc, ty):
    ok, out, err = run([layoutc, "describe", ty, "--json"])
    if not ok:
        return None, None, err
    j = json.loads(out)
    return j["type"], j.get("blocking"), None


def oracle(exe, tag, dims, offs=None, sizes=None):
    argv = [exe, "--blocking", tag, ",".join(map(str, dims))]
    if offs is not None:
        argv += [",".join(map(str, offs)), ",".join(map(str, sizes))]
    ok, out, err = run(argv)
    return (json.loads(out), None) if ok else (None, err)


def compare(name, ours, theirs, dims, exact):
    bad = []
    if ours["offset0"] != theirs["offset0"]:
        bad.append("%s: offset0: layoutc %d, dnnl %d" % (name, ours["offset0"], theirs["offset0"]))
    for idx in indices(dims):
        a, b = offset(ours, idx), offset(theirs, idx)
        if a != b:
            bad.append("%s: element %s: layoutc's blocking gives %d, dnnl's %d" % (name, idx, a, b))
            break
    if exact:
        for f in FIELDS:
            if ours[f] != theirs[f]:
                bad.append("%s: %s: layoutc %s, dnnl %s" % (name, f, ours[f], theirs[f]))
    return bad


def canonical_tag(type_text):
    m = re.search(r', "([A-Za-z0-9]+)">$', type_text)
    return m.group(1) if m else None


def check_case(layoutc, exe, case, seed):
    ltag, otag, dims = case
    shape = "x".join(map(str, dims))
    name = "%s %s" % (ltag, shape)
    ty = 'tensor<%sxf32, "%s">' % (shape, ltag)
    printed, ours, err = describe(layoutc, ty)
    if ours is None:
        return 0, ["%s: layoutc has no blocking: %s" % (name, err or "null")]
    theirs, err = oracle(exe, otag, dims)
    if theirs is None:
        return 0, ["%s: oracle failed: %s" % (name, err)]
    canon = canonical_tag(printed) or ("abcdefghijkl"[:len(dims)] if printed.endswith("xf32>") else None)
    if canon == otag:
        bad, exact = compare(name, ours, theirs, dims, True), 1
    else:
        bad, exact = compare(name, ours, theirs, dims, False), 0
        respelled, err = oracle(exe, canon, dims) if canon else (None, "not a tag")
        if respelled is not None:  # the same fields as oneDNN's own descriptor of that spelling
            bad += compare("%s as %s" % (name, canon), ours, respelled, dims, True)
            exact = 1
    rng = random.Random(seed)
    for _ in range(SLICES_PER_CASE):
        offs = [rng.randrange(0, d) for d in dims]
        sizes = [rng.randrange(1, d - o + 1) for d, o in zip(dims, offs)]
        theirs, err = oracle(exe, otag, dims, offs, sizes)
        if theirs is None:
            continue  # oneDNN refuses submemories that cut its blocks
        ok, view, err = run([layoutc, "slice", ty, ",".join(map(str, offs)), ",".join(map(str, sizes))])
        sname = "%s slice %s+%s" % (name, offs, sizes)
        if not ok:
            bad.append("%s: oneDNN has this submemory, layoutc refused: %s" % (sname, err))
            continue
        _, sub, err = describe(layoutc, view.strip())
        if sub is None:
            bad.append("%s: layoutc's slice %s has no blocking" % (sname, view.strip()))
            continue
        bad += compare(sname, sub, theirs, sizes, False)
        exact += 1
    return exact, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layoutc", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("-j", "--jobs", type=int, default=min(8, os.cpu_count() or 1))
    args = ap.parse_args()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda ic: check_case(args.layoutc, args.oracle, ic[1], ic[0]), enumerate(CASES)))
    checked = sum(r[0] for r in results)
    bad = [line for r in results for line in r[1]]
    for line in bad:
        print(line)
    print("dnnl blocking: %d cases, %d descriptors compared field by field or by offsets, %d mismatches"
          % (len(CASES), checked, len(bad)))
    return 0 if not bad and checked >= len(CASES) else 1


if __name__ == "__main__":
    sys.exit(main())
