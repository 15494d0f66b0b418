#!/usr/bin/env python3
"""Property test: tiled_layout and strided geometry against an independent reference.

SPEC sections 2.1 (tiled_layout), 2.2 (strided), 2.4 (sub-byte) and 4 (command line).

The reference below is deliberately naive: for tiled layouts it literally transforms the
(shape, index) pair of every element, tile by tile, and takes the row-major linear index in
the final shape; for strided layouts it evaluates offset + sum(i_d * stride_d). It shares no
code or idea with layoutc beyond the specification text.

For each random case it runs
    layoutc offset TYPE --all
    layoutc describe TYPE --json
    layoutc describe CANONICAL --json     (CANONICAL = the "type" printed above)
    layoutc offset CANONICAL --all
and checks offsets, allocation, size in bytes, injectivity, contiguity and the round trip of
the canonical spelling. Strided layouts that reach a negative offset must be rejected (exit 1,
a diagnostic containing "error:").

Output: one line per failing case, then exactly `property: N cases, K failures`.
Exit status 0 only if K == 0. Standard library only.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import random
import shutil
import subprocess
import sys

STAR = "*"

ELEMENT_BITS = {"f32": 32, "f16": 16, "bf16": 16, "i8": 8, "i4": 4, "i1": 1}


# ----------------------------------------------------------------------------------------------
# Reference: tiled_layout (SPEC 2.1)
# ----------------------------------------------------------------------------------------------


def quick(n):
    """Fewer random cases when LAYOUTC_TEST_QUICK is set (the sanitizer run,
    where every process is ~20x slower); the checks stay the same."""
    return max(n // 10, 50) if os.environ.get("LAYOUTC_TEST_QUICK") else n

def _norm_tile(tile):
    return tuple(STAR if (t == 0 or t == STAR) else int(t) for t in tile)


def tiled_transform(dims, perm, tiles, index):
    """Transform (shape, index) step by step. Returns (final_shape, final_index).

    index may be None to transform the shape only (used for allocation of big shapes).
    """
    shape = [dims[p] for p in perm]
    idx = None if index is None else [index[p] for p in perm]
    for tile in tiles:
        tile = _norm_tile(tile)
        k = len(tile)
        assert 1 <= k <= len(shape), "tile rank %d exceeds shape rank %d" % (k, len(shape))
        assert tile[-1] != STAR, "'*' cannot be the last tile entry"
        base = len(shape) - k
        head_shape, tail_shape = shape[:base], shape[base:]
        head_idx = None if idx is None else idx[:base]
        tail_idx = None if idx is None else idx[base:]
        # 1. '*': combine the dim with the next more-minor dim, drop the '*' entry.
        entries = list(tile)
        j = 0
        while j < len(entries):
            if entries[j] == STAR:
                d_next = tail_shape[j + 1]
                if tail_idx is not None:
                    tail_idx[j + 1] = tail_idx[j] * d_next + tail_idx[j + 1]
                    del tail_idx[j]
                tail_shape[j + 1] = tail_shape[j] * d_next
                del tail_shape[j]
                del entries[j]
            else:
                j += 1
        # 2. Each remaining entry t on a dim of size d: ceil(d/t) in place, t appended after all dims.
        appended_shape, appended_idx = [], []
        for j, t in enumerate(entries):
            d = tail_shape[j]
            tail_shape[j] = (d + t - 1) // t
            appended_shape.append(t)
            if tail_idx is not None:
                i = tail_idx[j]
                tail_idx[j] = i // t
                appended_idx.append(i % t)
        shape = head_shape + tail_shape + appended_shape
        if idx is not None:
            idx = head_idx + tail_idx + appended_idx
    return shape, idx


def row_major_linear(shape, idx):
    off = 0
    for d, i in zip(shape, idx):
        assert 0 <= i < d
        off = off * d + i
    return off


def product(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def all_indices(dims):
    return itertools.product(*[range(d) for d in dims])


def tiled_offset(dims, perm, tiles, index):
    shape, idx = tiled_transform(dims, perm, tiles, index)
    return row_major_linear(shape, idx)


def tiled_alloc(dims, perm, tiles):
    shape, _ = tiled_transform(dims, perm, tiles, None)
    return product(shape)


def tiled_reference(dims, perm, tiles):
    offsets = [tiled_offset(dims, perm, tiles, ix) for ix in all_indices(dims)]
    # Sanity of the reference itself: tiling is always injective.
    assert len(set(offsets)) == len(offsets), (dims, perm, tiles)
    return offsets, tiled_alloc(dims, perm, tiles)


# ----------------------------------------------------------------------------------------------
# Reference: strided (SPEC 2.2)
# ----------------------------------------------------------------------------------------------

def strided_reference(dims, strides, offset0):
    """Returns (offsets, alloc, valid)."""
    offsets = [offset0 + sum(i * s for i, s in zip(ix, strides)) for ix in all_indices(dims)]
    valid = min(offsets) >= 0
    return offsets, (max(offsets) + 1 if valid else None), valid


# ----------------------------------------------------------------------------------------------
# Self-check of the reference against every SPEC 2.1 vector
# ----------------------------------------------------------------------------------------------

def check_reference_against_spec():
    def off(dims, perm, tiles, ix):
        return tiled_offset(dims, perm, tiles, ix)

    t = [(2, 2)]
    assert off([3, 5], [0, 1], t, (2, 3)) == 17
    assert off([3, 5], [0, 1], t, (1, 4)) == 10
    assert off([3, 5], [0, 1], t, (2, 4)) == 20
    assert tiled_alloc([3, 5], [0, 1], t) == 24

    t = [(2, 4), (2, 1)]
    rows = [[off([4, 8], [0, 1], t, (r, c)) for c in range(8)] for r in range(4)]
    assert rows[0] == list(range(0, 16, 2)), rows[0]
    assert rows[1] == list(range(1, 16, 2)), rows[1]
    assert rows[2] == list(range(16, 32, 2)), rows[2]
    assert rows[3] == list(range(17, 32, 2)), rows[3]

    assert off([8, 8], [0, 1], [(2, 4), (2, 1, 1, 1)], (6, 5)) == 51

    t = [(8, 128), (2, 1)]
    for ix, want in (((1, 0), 1), ((0, 1), 2), ((2, 0), 256), ((9, 130), 3077)):
        assert off([16, 256], [0, 1], t, ix) == want, (ix, want)

    assert off([3, 5], [1, 0], [(2, 2)], (2, 3)) == 14

    assert off([2, 3, 5], [0, 1, 2], [(2, 2)], (1, 2, 3)) == 41
    assert tiled_alloc([2, 3, 5], [0, 1, 2], [(2, 2)]) == 48

    assert off([3, 200], [0, 1], [(128,)], (2, 130)) == 642
    assert tiled_alloc([3, 200], [0, 1], [(128,)]) == 768

    dims5 = [2, 7, 8, 11, 10]
    t = [(STAR, STAR, 2, STAR, 3)]
    shape, _ = tiled_transform(dims5, [0, 1, 2, 3, 4], t, None)
    assert shape == [56, 37, 2, 3], shape
    assert tiled_alloc(dims5, [0, 1, 2, 3, 4], t) == 12432
    # "acts as 112x110 tiled (2,3)": every element agrees with the 2-D equivalent.
    for ix in all_indices(dims5):
        r = (ix[0] * 7 + ix[1]) * 8 + ix[2]
        c = ix[3] * 10 + ix[4]
        assert off(dims5, [0, 1, 2, 3, 4], t, ix) == off([112, 110], [0, 1], [(2, 3)], (r, c))

    alloc = tiled_alloc([9216, 6144], [0, 1], [(64, 128), (8, 1)])
    assert (alloc * ELEMENT_BITS["i4"] + 7) // 8 == 28311552

    # Strided sanity (SPEC 2.2): 4x6 strided<[1,4], offset: 3>.
    offs, alloc, valid = strided_reference([4, 6], [1, 4], 3)
    assert valid and offs[0] == 3 and offs[1] == 7 and offs[6] == 4 and alloc == 3 + 3 + 20 + 1
    _, _, valid = strided_reference([3], [-1], 1)
    assert not valid


# ----------------------------------------------------------------------------------------------
# Case generation
# ----------------------------------------------------------------------------------------------

def spell_tiled(dims, elem, perm, tiles):
    parts = ["<" + ",".join(str(p) for p in perm) + ">"]
    for tile in tiles:
        parts.append("(" + ",".join(STAR if t == STAR else str(t) for t in tile) + ")")
    return "tensor<%sx%s, tiled_layout<%s>>" % ("x".join(str(d) for d in dims), elem, ",".join(parts))


def spell_strided(dims, elem, strides, offset0, write_offset):
    s = "strided<[" + ",".join(str(x) for x in strides) + "]"
    if write_offset:
        s += ", offset: %d" % offset0
    s += ">"
    return "tensor<%sx%s, %s>" % ("x".join(str(d) for d in dims), elem, s)


def random_dims(rng, max_numel=3000):
    while True:
        rank = rng.randint(1, 4)
        dims = [rng.randint(1, 7) for _ in range(rank)]
        if product(dims) <= max_numel:
            return dims


def random_tile(rng, rank):
    """A tile of rank 1..rank; '*' entries (never last) reduce the tiled shape's rank."""
    k = rng.randint(1, rank)
    tile = [rng.randint(1, 8) for _ in range(k)]
    if k >= 2 and rng.random() < 0.5:
        # Put '*' on some entries except the last one (so a non-'*' always follows).
        for j in range(k - 1):
            if rng.random() < 0.5:
                tile[j] = STAR
    return tuple(tile)


def gen_tiled(rng):
    dims = random_dims(rng)
    perm = list(range(len(dims)))
    rng.shuffle(perm)
    ntiles = rng.choice([0, 1, 1, 2, 2, 3])
    tiles = []
    cur_rank = len(dims)  # rank of the shape the next tile applies to
    for _ in range(ntiles):
        # A later tile may reach into the within-tile dims of earlier tiles (up to rank 4),
        # which is where '*' and non-dividing tiles mix logical dims.
        tile = random_tile(rng, min(max(len(dims), 4), cur_rank))
        stars = sum(1 for t in tile if t == STAR)
        cur_rank += len(tile) - 2 * stars
        tiles.append(tile)
    elem = rng.choice(sorted(ELEMENT_BITS))
    return {"kind": "tiled", "dims": dims, "perm": perm, "tiles": tiles, "elem": elem,
            "spelling": spell_tiled(dims, elem, perm, tiles)}


def gen_strided(rng, want_negative):
    dims = random_dims(rng)
    strides = []
    if rng.random() < 0.3:
        # Dense strides in a random dim order (row-major when the order is the identity),
        # sometimes padded or with one dim reversed: injective, sometimes contiguous.
        order = list(range(len(dims)))
        if rng.random() < 0.5:
            rng.shuffle(order)
        strides = [0] * len(dims)
        acc = 1
        for d in reversed(order):
            strides[d] = acc
            acc *= dims[d] + (rng.randint(1, 2) if rng.random() < 0.2 else 0)
        if rng.random() < 0.2:
            j = rng.randrange(len(dims))
            strides[j] = -strides[j]
        strides = [max(-4, min(30, x)) if x < 0 else x for x in strides]
    else:
        for _ in dims:
            r = rng.random()
            if r < 0.12:
                strides.append(0)
            elif r < 0.3:
                strides.append(rng.randint(-4, -1))
            else:
                strides.append(rng.randint(1, 30))
    min_contrib = sum(s * (d - 1) for s, d in zip(strides, dims) if s < 0)
    if want_negative:
        offset0 = -min_contrib - rng.randint(1, 3)
    else:
        offset0 = -min_contrib + rng.choice([0, 0, 0, rng.randint(1, 5)])
    # Omit ", offset: 0" sometimes (the default), write it explicitly other times.
    write_offset = offset0 != 0 or rng.random() < 0.5
    elem = rng.choice(sorted(ELEMENT_BITS))
    return {"kind": "strided", "dims": dims, "strides": strides, "offset0": offset0, "elem": elem,
            "spelling": spell_strided(dims, elem, strides, offset0, write_offset)}


def gen_cases(seed, n):
    rng = random.Random(seed)
    cases = []
    for c in range(n):
        r = rng.random()
        if r < 0.55:
            cases.append(gen_tiled(rng))
        elif r < 0.92:
            cases.append(gen_strided(rng, want_negative=False))
        else:
            cases.append(gen_strided(rng, want_negative=True))
    return cases


# ----------------------------------------------------------------------------------------------
# Running layoutc and checking a case
# ----------------------------------------------------------------------------------------------

TIMEOUT = 20


def run(layoutc, args):
    """Returns (rc, stdout, stderr); rc is None on timeout, negative on a signal."""
    try:
        p = subprocess.run([layoutc] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "", "timeout after %ds" % TIMEOUT
    except OSError as e:
        return 127, "", "error: cannot run %s: %s" % (layoutc, e)
    return (p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))


def first_line(s):
    s = s.strip()
    return s.splitlines()[0] if s else "<empty>"


def describe_rc(what, rc, err):
    if rc is None:
        return "%s: hang (%s)" % (what, err)
    if rc < 0:
        return "%s: killed by signal %d" % (what, -rc)
    return "%s: exit %d (%s)" % (what, rc, first_line(err))


def parse_offsets(out):
    vals = []
    for line in out.splitlines():
        line = line.strip()
        if not line:
            continue
        vals.append(int(line))
    return vals


def compare_offsets(label, got_text, want):
    try:
        got = parse_offsets(got_text)
    except ValueError as e:
        return ["%s: unparsable output (%s)" % (label, e)]
    if got == want:
        return []
    if len(got) != len(want):
        return ["%s: %d offsets printed, expected %d" % (label, len(got), len(want))]
    bad = [k for k in range(len(want)) if got[k] != want[k]]
    k = bad[0]
    return ["%s: %d offsets differ, first at element #%d: got %d, expected %d"
            % (label, len(bad), k, got[k], want[k])]


def get_json(label, out):
    try:
        obj = json.loads(out)
    except ValueError as e:
        return None, "%s: output is not one JSON object (%s)" % (label, e)
    if not isinstance(obj, dict):
        return None, "%s: output is not a JSON object" % label
    return obj, None


def check_field(problems, obj, key, want, label="describe"):
    if key not in obj:
        problems.append("%s: key %r missing" % (label, key))
    elif obj[key] != want or type(obj[key]) is not type(want):
        problems.append("%s: %s = %r, expected %r" % (label, key, obj[key], want))


def check_case(layoutc, case):
    spelling = case["spelling"]
    dims = case["dims"]
    numel = product(dims)
    bits = ELEMENT_BITS[case["elem"]]
    problems = []

    if case["kind"] == "tiled":
        want, alloc = tiled_reference(dims, case["perm"], case["tiles"])
        valid = True
    else:
        want, alloc, valid = strided_reference(dims, case["strides"], case["offset0"])

    if not valid:
        for args in (["offset", spelling, "--all"], ["describe", spelling, "--json"]):
            rc, out, err = run(layoutc, args)
            if rc != 1:
                if rc == 0:
                    problems.append("%s: accepted a layout reaching offset %d (exit 0, expected 1)"
                                    % (args[0], min(want)))
                else:
                    problems.append(describe_rc(args[0], rc, err) + ", expected exit 1")
            elif "error:" not in err:
                problems.append("%s: exit 1 but no 'error:' diagnostic on stderr" % args[0])
        return problems

    injective = len(set(want)) == len(want)
    contiguous = want == list(range(numel)) and alloc == numel
    size_bytes = (alloc * bits + 7) // 8

    # describe --json
    obj = None
    rc, out, err = run(layoutc, ["describe", spelling, "--json"])
    if rc != 0:
        problems.append(describe_rc("describe --json", rc, err))
    else:
        obj, e = get_json("describe --json", out)
        if e:
            problems.append(e)
    if obj is not None:
        check_field(problems, obj, "numel", numel)
        check_field(problems, obj, "rank", len(dims))
        check_field(problems, obj, "dims", list(dims))
        check_field(problems, obj, "element_bits", bits)
        check_field(problems, obj, "dynamic", False)
        check_field(problems, obj, "alloc_elements", alloc)
        check_field(problems, obj, "size_bytes", size_bytes)
        check_field(problems, obj, "injective", injective)
        check_field(problems, obj, "contiguous", contiguous)

    # offset --all: equal to the reference, and inside [0, alloc_elements) both for the
    # reference allocation and for the allocation layoutc itself reports.
    rc, out, err = run(layoutc, ["offset", spelling, "--all"])
    if rc != 0:
        problems.append(describe_rc("offset --all", rc, err))
    else:
        problems += compare_offsets("offset --all", out, want)
        try:
            got = parse_offsets(out)
        except ValueError:
            got = []
        bounds = {alloc}
        if obj is not None and type(obj.get("alloc_elements")) is int:
            bounds.add(obj["alloc_elements"])
        for b in sorted(bounds):
            bad = [o for o in got if not (0 <= o < b)]
            if bad:
                problems.append("offset --all: %d offsets outside [0, %d), e.g. %d" % (len(bad), b, bad[0]))

    if obj is None:
        return problems
    for key in ("type", "hash"):
        if key not in obj:
            problems.append("describe: key %r missing" % key)
    if "type" not in obj or not isinstance(obj["type"], str):
        return problems

    # Round trip: the canonical spelling re-parses to the same type.
    canon = obj["type"]
    rc, out2, err2 = run(layoutc, ["describe", canon, "--json"])
    if rc != 0:
        problems.append(describe_rc("round trip describe of %s" % canon, rc, err2))
        return problems
    obj2, e = get_json("round trip describe", out2)
    if e:
        problems.append(e)
        return problems
    for key in ("type", "hash", "numel", "alloc_elements", "size_bytes", "injective", "contiguous"):
        if key in obj and obj2.get(key) != obj.get(key):
            problems.append("round trip of %s: %s = %r, first describe gave %r"
                            % (canon, key, obj2.get(key), obj.get(key)))
    if canon != spelling:
        rc, out3, err3 = run(layoutc, ["offset", canon, "--all"])
        if rc != 0:
            problems.append(describe_rc("offset --all of canonical %s" % canon, rc, err3))
        else:
            problems += compare_offsets("offset --all of canonical %s" % canon, out3, want)
    return problems


# ----------------------------------------------------------------------------------------------

def find_layoutc(name):
    if os.sep in name:
        return name
    found = shutil.which(name)
    return found or name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layoutc", default="layoutc", help="layoutc binary (PATH is searched)")
    ap.add_argument("--seed", type=int, default=0x1A7007, help="random seed (deterministic)")
    ap.add_argument("--cases", type=int, default=quick(1500), help="number of random cases")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1))
    ap.add_argument("--self-check-only", action="store_true",
                    help="only verify the reference against SPEC 2.1 and exit")
    args = ap.parse_args()

    check_reference_against_spec()
    if args.self_check_only:
        print("reference: SPEC 2.1 vectors ok")
        return 0

    layoutc = find_layoutc(args.layoutc)
    print("seed: %d" % args.seed)
    cases = gen_cases(args.seed, args.cases)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = list(ex.map(lambda c: check_case(layoutc, c), cases))

    failures = 0
    for case, problems in zip(cases, results):
        if problems:
            failures += 1
            print("FAIL %s: %s" % (case["spelling"], "; ".join(problems)))
    print("property: %d cases, %d failures" % (len(cases), failures))
    sys.stdout.flush()
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
