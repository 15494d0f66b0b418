#!/usr/bin/env python3
"""Exhaustive test of layoutc's view algebra (SPEC §3.3): every view, every element.

Random small source types (strided with positive, zero and negative strides and offsets; format
tags plain and blocked, padded or not; tiled_layout with and without '*') and random view requests
(reshape in both modes, permute, slice, broadcast, and a few invalid requests). For each:

- the source's `offset --all` must equal an independent model of SPEC §2.1-§2.3;
- a returned view must have the requested dims, the source's element and memory space, an
  allocation within the source's, and at every element the source's offset at the corresponding
  element (reshape: same row-major linear index; permute: dims permuted as oneDNN's permute_axes;
  slice: index + offsets; broadcast: broadcast dims at 0). A `--strided` view must have one stride
  per dim, equal to the offset table's;
- a refusal must exit 1 with `error:`; a reshape refusal must say `requires a copy` and end with a
  `note: relayout to X first makes it a view` whose X, applied to the source, really makes the
  same reshape (same mode) a view, with correct offsets;
- permute and valid broadcasts must always be views; a reshape must be a view when the offset
  table is affine over the new dims (either mode) or is a sum of one chain of simple digits per
  new dim (default mode); a slice must be a view when its table is such a sum (SPEC §3.3: "a view
  whenever the physical map allows"). Sources whose digits combine dims (XLA '*' over a
  non-dividing tile) are exempt: SPEC §2.1 allows refusing their views.

Prints each failure with a reproducer, then
`views: N cases, V views, R refused, K failures`; exits 0 iff K == 0.

Each case runs layoutc three or four times, and a process costs 0.1-0.4 s of wall time on a
2-core machine (most of it loading libLLVM), so the default is 120 sources (about 1,400 cases,
a few minutes) rather than the 500 it once ran, which took over 20 minutes there; `--sources N`
runs more. fuzz_views checks the same properties in-process on its own random types.
Standard library only (runs under /usr/bin/python3).
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean when lit runs this
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewlib import (factor, regroup, affine_strides, cmdline, csv, digit_view_exists, indices, parse_type, prod,  # noqa: E402
                     ravel, run, strided_model, tag_model, tiled_model, type_str, unravel)

LETTERS = "abcdefghijkl"
ELEMS = [("f32", 32), ("f32", 32), ("f32", 32), ("f16", 16), ("i8", 8)]
MEMSPACES = ["", "", "", "", "", "", "", "memspace<1>", 'memspace<"shared">']
NOTE_RE = re.compile(r"^<arg 2>:1:1: note: relayout to (.*) first makes it a view$", re.M)
ROW_MAJOR_NOTE = "the row-major layout"


# ---------------------------------------------------------------------------------------------
# Sources


def quick(n):
    """Fewer random cases when LAYOUTC_TEST_QUICK is set (the sanitizer run,
    where every process is ~20x slower); the checks stay the same."""
    return max(n // 10, 50) if os.environ.get("LAYOUTC_TEST_QUICK") else n

def rand_dims(rng, rank, hi=5, numel_max=160):
    while True:
        dims = [rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6][: hi + 4]) if rng.random() < 0.8 else rng.randint(1, hi + 2)
                for _ in range(rank)]
        if prod(dims) <= numel_max:
            return dims


def gen_strided(rng):
    rank = rng.choice([1, 2, 2, 3, 3, 3, 4, 4])
    dims = rand_dims(rng, rank)
    if rng.random() < 0.6:
        # dense in a random order, with gaps, then some strides negated or zeroed
        order = list(range(rank))
        rng.shuffle(order)
        strides = [0] * rank
        run_ = 1
        for d in reversed(order):
            strides[d] = run_
            run_ *= dims[d] + (rng.choice([0, 0, 0, 1, 2]) if rng.random() < 0.3 else 0)
            if rng.random() < 0.15:
                run_ *= 2
        for d in range(rank):
            u = rng.random()
            if u < 0.12:
                strides[d] = -strides[d]
            elif u < 0.25:
                strides[d] = 0
    else:
        strides = [rng.randint(-7, 9) for _ in range(rank)]
    base = sum(-(n - 1) * s for n, s in zip(dims, strides) if s < 0)
    base += rng.choice([0, 0, 0, 1, 3, 7])
    layout = "strided<[%s]" % csv(strides)
    if base or rng.random() < 0.2:
        layout += ", offset: %d" % base
    layout += ">"
    offs, alloc = strided_model(dims, strides, base)
    return dims, layout, offs, alloc, {}


def gen_tag(rng):
    rank = rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 5])
    dims = rand_dims(rng, rank, hi=6 if rank <= 3 else 4, numel_max=200)
    order = list(range(rank))
    if rng.random() < 0.7:
        rng.shuffle(order)
    blocks = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
        d = rng.randrange(rank)
        blocks.append((d, rng.choice([2, 2, 3, 4, 4, 8])))
    bdims = {d for d, _ in blocks}
    tag = "".join(LETTERS[d].upper() if d in bdims else LETTERS[d] for d in order)
    tag += "".join("%d%s" % (b, LETTERS[d]) for d, b in blocks)
    offs, alloc = tag_model(dims, order, blocks)
    if alloc > 4096:
        return None
    return dims, '"%s"' % tag, offs, alloc, {"blocks": {d: prod(b for e, b in blocks if e == d) for d in bdims}}


def gen_tiled(rng):
    rank = rng.choice([1, 2, 2, 3, 3, 4])
    dims = rand_dims(rng, rank, hi=5, numel_max=160)
    perm = list(range(rank))
    if rng.random() < 0.6:
        rng.shuffle(perm)
    tiles = []
    cur = rank
    for _ in range(rng.choice([1, 1, 1, 2, 2, 0])):
        k = rng.randint(1, min(cur, 3))
        tile = []
        for j in range(k):
            if j < k - 1 and rng.random() < 0.3:
                tile.append("*")
            else:
                tile.append(rng.choice([1, 2, 2, 3, 4, 4]))
        tiles.append(tuple(tile))
        cur += k - 2 * sum(1 for t in tile if t == "*")  # each '*' merges two dims into one
    layout = "tiled_layout<<%s>%s>" % (csv(perm), "".join(",(%s)" % csv(t) for t in tiles))
    offs, alloc = tiled_model(dims, perm, tiles)
    if alloc > 4096:
        return None
    return dims, layout, offs, alloc, {"tiles": tiles}


GENERATORS = [gen_strided, gen_strided, gen_tag, gen_tag, gen_tiled]


# ---------------------------------------------------------------------------------------------
# Requests


def gen_reshape(rng, dims):
    numel = prod(dims)
    if rng.random() < 0.7:
        # regroup: split each dim into factors, group consecutive factors, add/remove 1s
        new = regroup(rng, dims, 0.6, 0.4)
        while rng.random() < 0.3:
            new.insert(rng.randint(0, len(new)), 1)
    else:
        new = factor(rng, numel)
        rng.shuffle(new)
        while rng.random() < 0.2:
            new.insert(rng.randint(0, len(new)), 1)
    if not new:
        new = [1]
    return new[:8] if len(new) <= 8 else [numel]


def gen_slice(rng, dims, meta):
    offs, sizes = [], []
    blocks = dict(meta.get("blocks", {}))
    sizes_in_tiles = sorted({t for tile in meta.get("tiles", []) for t in tile if t != "*" and t > 1})
    if sizes_in_tiles:  # tiles are on physical dims; any tile size is a plausible alignment
        for d in range(len(dims)):
            if rng.random() < 0.6:
                blocks[d] = rng.choice(sizes_in_tiles)
    for d, n in enumerate(dims):
        b = blocks.get(d)
        u = rng.random()
        if b and u < 0.35 and n > b:  # block-aligned offset
            o = rng.randrange(0, n, b)
            s = rng.randint(0, n - o)
        elif b and u < 0.7:  # inside one block
            blk = rng.randrange(0, -(-n // b)) * b
            lo = rng.randint(blk, min(n, blk + b) - 1) if blk < n else 0
            hi = rng.randint(lo, min(n, blk + b))
            o, s = lo, hi - lo
        elif u < 0.5:
            o, s = 0, n
        else:
            o = rng.randint(0, n)
            s = rng.randint(0, n - o)
        if s == 0 and rng.random() < 0.8:  # keep empty slices rare
            o, s = 0, n
        offs.append(o)
        sizes.append(s)
    return offs, sizes


def gen_broadcast(rng, dims):
    lead = [rng.randint(1, 3) for _ in range(rng.choice([0, 0, 1, 1, 2]))]
    tail = [rng.randint(1, 3) if d == 1 and rng.random() < 0.7 else d for d in dims]
    return lead + tail


def gen_invalid(rng, dims):
    """A request that must be refused with exit 1 and an error: (op, args)."""
    r = len(dims)
    numel = prod(dims)
    u = rng.random()
    if u < 0.3:
        return "reshape", [csv([numel + 1])]
    if u < 0.5 and r >= 2:
        p = list(range(r))
        p[0] = p[1]
        return "permute", [csv(p)]
    if u < 0.7:
        d = rng.randrange(r)
        offs = [0] * r
        sizes = list(dims)
        offs[d] = dims[d]
        sizes[d] = 1
        return "slice", [csv(offs), csv(sizes)]
    if all(d == 1 for d in dims):
        return "reshape", [csv([numel + 1])]
    return "broadcast", [csv([d + 1 if d > 1 else d for d in dims])]


def gen_requests(rng, dims, meta, n):
    reqs = []
    for _ in range(n):
        u = rng.random()
        if u < 0.45:
            new = gen_reshape(rng, dims)
            reqs.append(("reshape", [csv(new)] + (["--strided"] if rng.random() < 0.4 else [])))
        elif u < 0.6:
            p = list(range(len(dims)))
            rng.shuffle(p)
            reqs.append(("permute", [csv(p)]))
        elif u < 0.85:
            o, s = gen_slice(rng, dims, meta)
            reqs.append(("slice", [csv(o), csv(s)]))
        elif u < 0.95:
            reqs.append(("broadcast", [csv(gen_broadcast(rng, dims))]))
        else:
            op, args = gen_invalid(rng, dims)
            reqs.append((op, args, "invalid"))
    return reqs


def make_cases(seed, n):
    rng = random.Random(seed)
    cases = []
    while len(cases) < n:
        g = rng.choice(GENERATORS)
        src = g(rng)
        if src is None:
            continue
        dims, layout, offs, alloc, meta = src
        elem, bits = rng.choice(ELEMS)
        ms = rng.choice(MEMSPACES)
        ty = type_str(dims, elem, layout, ms)
        meta = dict(meta)
        reqs = gen_requests(rng, dims, meta, 6)
        cases.append({"type": ty, "dims": dims, "elem": elem, "bits": bits, "ms": ms, "offs": offs,
                      "alloc": alloc, "reqs": reqs, "seed": rng.randrange(1 << 30)})
    return cases


# ---------------------------------------------------------------------------------------------
# Checks

class Ctx:
    def __init__(self, layoutc):
        self.layoutc = layoutc
        self.fail = []
        self.views = 0
        self.refused = 0
        self.cases = 0
        self.exempt = 0
        self.per_op = {}  # label -> [cases, views, refused]

    def bad(self, argv, msg):
        self.fail.append("%s: %s" % (cmdline(argv), msg))


KINDS = [  # (kind, substring of the failure line), first match wins
    ("wrong view", "the source's corresponding element"),
    ("wrong view", ": view "),
    ("wrong view", "--strided view"),
    ("missed slice view", "refused, but the box"),
    ("missed view", "refused, but"),
    ("relayout note", "note"),
    ("relayout note", "relayout"),
    ("source geometry", "the model has"),
]


def kind_of(line):
    return next((k for k, s in KINDS if s in line), "other")


def ints(text):
    return [int(x) for x in text.split()]


def get_offsets(cx, ty, who):
    argv = [cx.layoutc, "offset", ty, "--all"]
    rc, out, err = run(argv)
    if rc != 0:
        cx.bad(argv, "%s: offset --all failed (exit %d): %s" % (who, rc, err.strip().splitlines()[:1]))
        return None
    try:
        return ints(out)
    except ValueError:
        cx.bad(argv, "%s: offset --all printed a non-integer" % who)
        return None


def describe(cx, ty, who):
    argv = [cx.layoutc, "describe", ty, "--json"]
    rc, out, err = run(argv)
    if rc != 0:
        cx.bad(argv, "%s: describe failed (exit %d): %s" % (who, rc, err.strip().splitlines()[:1]))
        return None
    try:
        return json.loads(out)
    except ValueError:
        cx.bad(argv, "%s: describe --json is not JSON" % who)
        return None


def first_diff(a, b):
    return next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), None)


def has_combined_digits(canon):
    """Does the canonical type hold a digit over a combination of dims (XLA '*')?"""
    return bool(re.search(r"\(\d*\*?d\d+ \+ ", canon))


def check_view(cx, argv, out, want, vdims, src, strided, mode_note=""):
    """A returned view: type, dims, element, memory space, allocation and every offset. Returns
    (type, allocation) when every check passed, else None."""
    nfail = len(cx.fail)
    vty = out.strip()
    if "\n" in vty:
        cx.bad(argv, "printed more than one line: %r" % out)
        return
    pt = parse_type(vty)
    if pt is None:
        cx.bad(argv, "printed %r, not a type" % vty)
        return
    dims, elem, _layout, ms = pt
    if dims != vdims:
        cx.bad(argv, "view dims %s, expected %s" % (dims, vdims))
        return
    if elem != src["elem"] or ms != src["ms"]:
        cx.bad(argv, "view element/memory space %s %r, source has %s %r" % (elem, ms, src["elem"], src["ms"]))
    got = get_offsets(cx, vty, "view " + vty)
    if got is None:
        return
    if len(got) != len(want):
        cx.bad(argv, "view %s has %d offsets, expected %d" % (vty, len(got), len(want)))
        return
    i = first_diff(got, want)
    if i is not None:
        n = sum(1 for g, w in zip(got, want) if g != w)
        cx.bad(argv, "%sview %s: element %d %s has offset %d, the source's corresponding element has %d "
               "(%d of %d differ)" % (mode_note, vty, i, unravel(i, vdims), got[i], want[i], n, len(want)))
        return
    desc = describe(cx, vty, "view")
    if desc is None:
        return
    if desc.get("alloc_elements") is None or desc["alloc_elements"] > src["alloc"]:
        cx.bad(argv, "view %s allocation %r exceeds the source's %d (a view keeps the source's buffer)"
               % (vty, desc.get("alloc_elements"), src["alloc"]))
    if strided:
        aff = affine_strides(want, vdims)
        st = desc.get("strides")
        if st is None:
            cx.bad(argv, "--strided view %s has no strides in describe --json" % vty)
        elif aff is not None:
            es = [s * 8 // src["bits"] if src["bits"] >= 8 else s for s in st]
            for k, s in enumerate(aff):
                if s is not None and es[k] != s:
                    cx.bad(argv, "--strided view %s: dim %d stride %d elements, the offsets step by %d"
                           % (vty, k, es[k], s))
                    break
            if want and desc.get("offset") != want[0]:
                cx.bad(argv, "--strided view %s: offset %r, first element at %d" % (vty, desc.get("offset"), want[0]))
    return (vty, desc["alloc_elements"]) if len(cx.fail) == nfail else None


def check_refusal(cx, argv, rc, err, op):
    if rc != 1:
        cx.bad(argv, "exit %d (expected 0 with a view, or 1 with an error)%s"
               % (rc, ": " + err.strip().splitlines()[0] if err.strip() else ""))
        return False
    if "error:" not in err:
        cx.bad(argv, "exit 1 without an 'error:' diagnostic: %r" % err)
        return False
    return True


def check_request(cx, src, req):
    op, args = req[0], req[1]
    invalid = len(req) > 2
    argv = [cx.layoutc, op, src["type"]] + args
    cx.cases += 1
    label = "invalid" if invalid else op + (" --strided" if "--strided" in args else "")
    tally = cx.per_op.setdefault(label, [0, 0, 0])
    tally[0] += 1
    rc, out, err = run(argv)
    sdims = src["dims"]
    soffs = src["offs"]
    strided = "--strided" in args
    if invalid:
        if rc == 0:
            cx.bad(argv, "invalid request accepted: %s" % out.strip())
        elif check_refusal(cx, argv, rc, err, op):
            cx.refused += 1
            tally[2] += 1
        return

    # What the view must be: its dims and the source offset of each of its elements.
    if op == "reshape":
        vdims = [int(x) for x in args[0].split(",")]
        want = list(soffs)
    elif op == "permute":
        perm = [int(x) for x in args[0].split(",")]
        vdims = [0] * len(sdims)
        for i, p in enumerate(perm):
            vdims[p] = sdims[i]
        want = [soffs[ravel([j[perm[i]] for i in range(len(sdims))], sdims)] for j in indices(vdims)]
    elif op == "slice":
        o = [int(x) for x in args[0].split(",")]
        vdims = [int(x) for x in args[1].split(",")]
        want = [soffs[ravel([a + b for a, b in zip(j, o)], sdims)] for j in indices(vdims)]
    else:  # broadcast
        vdims = [int(x) for x in args[0].split(",")]
        lead = len(vdims) - len(sdims)
        want = [soffs[ravel([0 if sdims[d] == 1 else j[lead + d] for d in range(len(sdims))], sdims)]
                for j in indices(vdims)]

    if rc == 0:
        cx.views += 1
        tally[1] += 1
        ok = check_view(cx, argv, out, want, vdims, src, strided)
        return (ok[0], ok[1], vdims, want) if ok else None
    if not check_refusal(cx, argv, rc, err, op):
        return
    cx.refused += 1
    tally[2] += 1

    # Must it have been a view?
    exempt = src.get("combined", False)
    if op in ("permute", "broadcast"):
        cx.bad(argv, "refused, but a %s is always a view: %s" % (op, err.strip().splitlines()[0]))
    elif op == "reshape":
        aff = affine_strides(want, vdims) is not None
        dig = aff or (not strided and digit_view_exists(want, vdims))
        if (aff or dig) and exempt:
            cx.exempt += 1
        elif aff:
            cx.bad(argv, "refused, but the offsets are affine over the new dims (strides %s): %s"
                   % (affine_strides(want, vdims), err.strip().splitlines()[0]))
        elif dig:
            cx.bad(argv, "refused, but the offsets are a sum of simple digits of the new dims: %s"
                   % err.strip().splitlines()[0])
    elif op == "slice":
        if digit_view_exists(want, vdims):
            if exempt:
                cx.exempt += 1
            else:
                cx.bad(argv, "refused, but the box's offsets are a sum of simple digits of its dims: %s"
                       % err.strip().splitlines()[0])

    if op == "reshape":
        if not re.search(r"^<arg 2>:1:1: error: reshape into \S+ requires a copy: \S", err, re.M):
            cx.bad(argv, "refusal does not say '<arg 2>:1:1: error: reshape into ... requires a copy: <reason>': %r"
                   % err)
        notes = NOTE_RE.findall(err)
        if len(notes) != 1:
            cx.bad(argv, "refusal has %d 'note: relayout to X first makes it a view' lines: %r" % (len(notes), err))
            return
        x = notes[0]
        layout = "" if x == ROW_MAJOR_NOTE else x
        fixed = type_str(sdims, src["elem"], layout, src["ms"])
        fargv = [cx.layoutc, op, fixed] + args
        frc, fout, ferr = run(fargv)
        if frc != 0:
            cx.bad(argv, "the note's relayout to %s does not make it a view: %s -> exit %d %s"
                   % (x, cmdline(fargv), frc, ferr.strip().splitlines()[:1]))
            return
        foffs = get_offsets(cx, fixed, "relayout target")
        if foffs is None:
            return
        if len(foffs) != len(soffs):
            cx.bad(argv, "relayout target %s has %d elements, source %d" % (fixed, len(foffs), len(soffs)))
            return
        fsrc = dict(src, type=fixed, offs=foffs, alloc=(describe(cx, fixed, "relayout target") or {}).get(
            "alloc_elements", 0) or 0)
        check_view(cx, fargv, fout, foffs, vdims, fsrc, strided, "after the note's relayout: ")


def check_case(job):
    layoutc, case = job
    cx = Ctx(layoutc)
    ty = case["type"]
    got = get_offsets(cx, ty, "source")
    if got is not None and got != case["offs"]:
        i = first_diff(got, case["offs"])
        if i is None:
            cx.bad([layoutc, "offset", ty, "--all"], "%d offsets, the model has %d" % (len(got), len(case["offs"])))
        else:
            cx.bad([layoutc, "offset", ty, "--all"], "element %d %s: layoutc %d, model (SPEC §2) %d"
                   % (i, unravel(i, case["dims"]), got[i], case["offs"][i]))
    desc = describe(cx, ty, "source")
    if desc is not None and desc.get("alloc_elements") != case["alloc"]:
        cx.bad([layoutc, "describe", ty, "--json"], "alloc_elements %r, the model has %d"
               % (desc.get("alloc_elements"), case["alloc"]))
    if got is None or desc is None:
        return cx.cases, cx.views, cx.refused, cx.exempt, cx.per_op, cx.fail
    src = dict(case, offs=got, combined=has_combined_digits(desc.get("type", "")))
    views = []
    for req in case["reqs"]:
        v = check_request(cx, src, req)
        if v:
            views.append(v)
    # Views of views: a checked view (general digits, offsets, broadcast dims, cut padding) is a
    # new source for a few more requests.
    rng = random.Random(case["seed"])
    for vty, valloc, vdims, voffs in rng.sample(views, min(2, len(views))):
        if not voffs:
            continue
        src2 = dict(src, type=vty, dims=vdims, offs=voffs, alloc=valloc, combined=has_combined_digits(vty))
        for req in gen_requests(rng, vdims, {}, 3):
            check_request(cx, src2, req)
    return cx.cases, cx.views, cx.refused, cx.exempt, cx.per_op, cx.fail


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layoutc", required=True, help="layoutc executable")
    ap.add_argument("--seed", type=int, default=20240603)
    ap.add_argument("--sources", type=int, default=quick(120), help="random source types (6 requests each, and views of views)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--max-failures", type=int, default=60, help="failure lines to print")
    args = ap.parse_args()

    cases = make_cases(args.seed, args.sources)
    jobs = [(args.layoutc, c) for c in cases]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(check_case, jobs, chunksize=8)
    else:
        results = [check_case(j) for j in jobs]
    n = v = r = ex = 0
    fails = []
    per_op = {}
    for c, vv, rr, e, po, f in results:
        n += c
        v += vv
        r += rr
        ex += e
        fails.extend(f)
        for k, t in po.items():
            acc = per_op.setdefault(k, [0, 0, 0])
            for i in range(3):
                acc[i] += t[i]
    order = ["wrong view", "source geometry", "missed view", "relayout note", "missed slice view", "other"]
    fails.sort(key=lambda line: order.index(kind_of(line)))  # the worst first; stable otherwise
    for line in fails[: args.max_failures]:
        print(line)
    if len(fails) > args.max_failures:
        print("... %d more failures" % (len(fails) - args.max_failures))
    kinds = {}
    for line in fails:
        kinds[kind_of(line)] = kinds.get(kind_of(line), 0) + 1
    if kinds:
        print("(failures by kind: %s)" % ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    print("(cases/views/refused per request: %s)"
          % ", ".join("%s %d/%d/%d" % (k, t[0], t[1], t[2]) for k, t in sorted(per_op.items())))
    print("(%d refusals of views that SPEC §2.1 allows refusing: digits over '*'-combined dims)" % ex)
    print("views: %d cases, %d views, %d refused, %d failures" % (n, v, r, len(fails)))
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
