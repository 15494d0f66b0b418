#!/usr/bin/env python3
"""Differential test: layoutc's format-tag geometry against oneDNN's, element by element.

For each case, `dnnl_oracle` measures every element's offset through a real libdnnl reorder, and
`layoutc offset --all` / `layoutc describe --json` must give the same offsets and allocation size.
Standard library only (runs under /usr/bin/python3).
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

# (layoutc spelling, oneDNN abstract tag, dims). When the two spellings differ, the first is a named
# family alias; each alias was checked against dnnl_types.h (`dnnl_nChw16c = dnnl_aBcd16b`, ...),
# except "NCHW", which SPEC §2.3 defines as "nchw". Dims mix shapes that need padding with shapes that
# do not, and include every shape from SPEC §2.3's vector table.
CASES = [
    # plain, ranks 1..6 (and beyond: abstract tags run to 'l'), identity and permuted
    ("a", "a", [7]),
    ("ab", "ab", [5, 3]),
    ("ba", "ba", [6, 2]),
    ("ba", "ba", [5, 7]),
    ("abc", "abc", [2, 3, 4]),
    ("acb", "acb", [3, 5, 7]),
    ("bca", "bca", [15, 3, 4]),
    ("cba", "cba", [4, 3, 5]),
    ("abcd", "abcd", [2, 3, 4, 5]),
    ("acdb", "acdb", [3, 5, 7, 2]),
    ("cdba", "cdba", [3, 4, 5, 6]),
    ("bcda", "bcda", [2, 3, 4, 5]),
    ("acbd", "acbd", [3, 2, 5, 4]),
    ("abcde", "abcde", [2, 3, 4, 5, 6]),
    ("acdeb", "acdeb", [2, 3, 4, 5, 3]),
    ("decab", "decab", [2, 3, 4, 3, 2]),
    ("abcdef", "abcdef", [2, 3, 2, 3, 2, 3]),
    ("defcab", "defcab", [2, 3, 4, 2, 3, 2]),
    ("abdfce", "abdfce", [3, 2, 2, 3, 2, 4]),
    ("abcdefhg", "abcdefhg", [2, 2, 2, 3, 2, 2, 3, 2]),
    ("abcdefghijlk", "abcdefghijlk", [2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 3, 2]),
    # one blocked dim
    ("aBcd16b", "aBcd16b", [2, 20, 3, 3]),
    ("aBcd16b", "aBcd16b", [2, 3, 4, 5]),
    ("aBcd16b", "aBcd16b", [2, 32, 4, 5]),
    ("aBcd8b", "aBcd8b", [2, 8, 3, 4]),
    ("aBcd8b", "aBcd8b", [3, 13, 2, 3]),
    ("aBc4b", "aBc4b", [3, 6, 5]),
    ("aBcde16b", "aBcde16b", [2, 17, 2, 3, 2]),
    ("aBcdef16b", "aBcdef16b", [2, 5, 2, 2, 3, 2]),
    ("Abcd8a", "Abcd8a", [10, 3, 2, 2]),
    ("Abc16a", "Abc16a", [17, 2, 3]),
    ("Acdb16a", "Acdb16a", [20, 3, 3, 2]),
    ("Acdeb16a", "Acdeb16a", [18, 2, 2, 2, 3]),
    ("aBdc16b", "aBdc16b", [2, 18, 3, 4]),
    ("Adcb16a", "Adcb16a", [17, 2, 3, 2]),
    ("decbA16a", "decbA16a", [18, 2, 2, 3, 2]),
    ("abDc32d", "abDc32d", [2, 3, 2, 33]),
    ("cBa2b", "cBa2b", [3, 5, 4]),
    ("adCb4c", "adCb4c", [2, 3, 6, 5]),
    # two blocks
    ("ABcd8b8a", "ABcd8b8a", [10, 12, 3, 3]),
    ("ABcd8b8a", "ABcd8b8a", [16, 8, 2, 2]),
    ("ABcd16b16a", "ABcd16b16a", [20, 18, 3, 3]),
    ("ABcd16a16b", "ABcd16a16b", [17, 33, 2, 1]),
    ("ABcd4a4b", "ABcd4a4b", [5, 7, 2, 3]),
    ("ABcd8a8b", "ABcd8a8b", [8, 16, 3, 1]),
    ("aBCd16b16c", "aBCd16b16c", [2, 17, 20, 3]),
    ("aCBd16b16c", "aCBd16b16c", [3, 18, 17, 2]),
    ("aBCd4c4b", "aBCd4c4b", [2, 6, 7, 3]),
    ("ABcde8b8a", "ABcde8b8a", [9, 10, 2, 2, 3]),
    ("ABc16a16b", "ABc16a16b", [17, 18, 3]),
    ("BAcd16a16b", "BAcd16a16b", [18, 20, 2, 2]),
    ("AB16b16a", "AB16b16a", [20, 30]),
    ("BA16a16b", "BA16a16b", [18, 17]),
    ("AcB16a2b", "AcB16a2b", [20, 5, 3]),
    ("ABc8a4b", "ABc8a4b", [9, 6, 5]),
    # three blocks
    ("ABcd4b16a4b", "ABcd4b16a4b", [32, 64, 3, 3]),
    ("ABcd4b16a4b", "ABcd4b16a4b", [20, 10, 3, 2]),
    ("ABcd8a16b2a", "ABcd8a16b2a", [18, 20, 2, 2]),
    ("ABcde4b16a4b", "ABcde4b16a4b", [17, 9, 2, 2, 2]),
    ("aBCd4c16b4c", "aBCd4c16b4c", [2, 18, 20, 2]),
    ("ABcd16b16a2b", "ABcd16b16a2b", [20, 33, 2, 1]),
    ("aBCde2c8b4c", "aBCde2c8b4c", [2, 9, 10, 2, 2]),
    ("ABcd2b8a4b", "ABcd2b8a4b", [9, 10, 2, 3]),
    ("BAcd8a16b2a", "BAcd8a16b2a", [17, 18, 2, 2]),
    # four blocks
    ("ABcd2a8b8a2b", "ABcd2a8b8a2b", [20, 17, 2, 2]),
    ("ABc2b8a16b4a", "ABc2b8a16b4a", [17, 70, 2]),
    ("AB32a32b8a4b", "AB32a32b8a4b", [40, 70]),
    ("aBCd4b8c8b4c", "aBCd4b8c8b4c", [2, 20, 40, 2]),
    # named-family spellings (layoutc) against oneDNN's abstract equivalent (oracle)
    ("nchw", "abcd", [2, 3, 4, 5]),
    ("NCHW", "abcd", [2, 3, 4, 5]),
    ("nhwc", "acdb", [2, 3, 4, 5]),
    ("nChw16c", "aBcd16b", [2, 20, 3, 3]),
    ("nChw8c", "aBcd8b", [1, 4, 1, 1]),
    ("OIhw8i8o", "ABcd8b8a", [10, 12, 3, 3]),
    ("OIhw16i16o", "ABcd16b16a", [20, 18, 3, 3]),
    ("OIhw4i16o4i", "ABcd4b16a4b", [32, 64, 3, 3]),
    ("OIhw16o16i", "ABcd16a16b", [17, 33, 2, 1]),
    ("IOhw16o16i", "BAcd16a16b", [18, 20, 2, 2]),
    ("gOIhw16i16o", "aBCde16c16b", [2, 20, 18, 3, 2]),
    ("Goihw16g", "Abcde16a", [18, 2, 3, 2, 2]),
    ("hwio", "cdba", [3, 4, 2, 3]),
    ("ohwi", "acdb", [3, 5, 2, 3]),
    ("nCdhw16c", "aBcde16b", [2, 20, 2, 3, 2]),
    ("ndhwc", "acdeb", [2, 3, 2, 3, 4]),
    ("nwc", "acb", [2, 3, 5]),
    ("ntc", "bac", [5, 3, 7]),
    ("tnc", "abc", [3, 4, 5]),
    ("x", "a", [9]),
]

MIN_CASES = 40
TIMEOUT = 60


def run(argv):
    """Runs a tool; returns (ok, stdout, diagnostic)."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, "", "timed out after %d s" % TIMEOUT
    except OSError as e:
        return False, "", str(e)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode != 0:
        return False, out, "exit %d: %s" % (p.returncode, err.splitlines()[0] if err else "(no stderr)")
    return True, out, err


def parse_ints(text):
    return [int(line) for line in text.split()]


def unravel(linear, dims):
    idx = []
    for d in reversed(dims):
        idx.append(linear % d)
        linear //= d
    return "(" + ",".join(str(i) for i in reversed(idx)) + ")"


def check_case(layoutc, oracle, case):
    """Returns (numel, [mismatch lines]) for one case."""
    ltag, otag, dims = case
    name = '%s %s' % (ltag if ltag == otag else "%s (dnnl %s)" % (ltag, otag), "x".join(map(str, dims)))
    numel = 1
    for d in dims:
        numel *= d
    ty = 'tensor<%sxf32, "%s">' % ("x".join(map(str, dims)), ltag)

    ok, out, err = run([oracle, otag, ",".join(map(str, dims))])
    if not ok:
        return numel, ["%s: oracle failed: %s" % (name, err)]
    lines = out.split("\n", 1)
    if not lines[0].startswith("size_bytes: "):
        return numel, ["%s: oracle printed no size_bytes line" % name]
    want_size = int(lines[0][len("size_bytes: "):])
    want = parse_ints(lines[1] if len(lines) > 1 else "")
    if len(want) != numel:
        return numel, ["%s: oracle printed %d offsets for %d elements" % (name, len(want), numel)]

    bad = []
    ok, out, err = run([layoutc, "offset", ty, "--all"])
    if not ok:
        bad.append("%s: layoutc offset failed: %s" % (name, err))
    else:
        try:
            got = parse_ints(out)
        except ValueError:
            got = None
        if got is None:
            bad.append("%s: layoutc offset printed a non-integer line" % name)
        elif got != want:
            first = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), None)
            if first is None:
                bad.append("%s: layoutc printed %d offsets, oneDNN has %d elements" % (name, len(got), len(want)))
            else:
                ndiff = sum(1 for g, w in zip(got, want) if g != w)
                bad.append("%s: first mismatch at element %d %s: layoutc %d, dnnl %d (%d elements differ)"
                           % (name, first, unravel(first, dims), got[first], want[first], ndiff))

    ok, out, err = run([layoutc, "describe", ty, "--json"])
    if not ok:
        bad.append("%s: layoutc describe failed: %s" % (name, err))
    else:
        try:
            desc = json.loads(out)
        except ValueError as e:
            desc = None
            bad.append("%s: layoutc describe --json is not one JSON object: %s" % (name, e))
        if isinstance(desc, dict):
            if desc.get("size_bytes") != want_size:
                bad.append("%s: size_bytes: layoutc %r, dnnl %d" % (name, desc.get("size_bytes"), want_size))
            if desc.get("numel") != numel:
                bad.append("%s: numel: layoutc %r, expected %d" % (name, desc.get("numel"), numel))
        elif desc is not None:
            bad.append("%s: layoutc describe --json printed %s, not an object" % (name, type(desc).__name__))
    return numel, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layoutc", required=True, help="layoutc executable")
    ap.add_argument("--oracle", required=True, help="dnnl_oracle executable")
    ap.add_argument("-j", "--jobs", type=int, default=min(8, os.cpu_count() or 1))
    args = ap.parse_args()

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda c: check_case(args.layoutc, args.oracle, c), CASES))
    elements = 0
    mismatches = 0
    for numel, bad in results:
        elements += numel
        for line in bad:
            print(line)
        mismatches += len(bad)
    print("dnnl differential: %d cases, %d elements, %d mismatches" % (len(CASES), elements, mismatches))
    return 0 if mismatches == 0 and len(CASES) >= MIN_CASES else 1


if __name__ == "__main__":
    sys.exit(main())
