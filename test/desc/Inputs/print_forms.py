#!/usr/bin/env python3
"""SPEC 3.5: every type spelled as a format tag or a tiled layout prints as a
tag, a tiled layout or a strided form, never the general form; the printed
form is the same type (same hash). The tags of SPEC 2.3 and tilings of 2.1,
with each blocked dim below, equal to and above its block."""
import itertools
import json
import re
import subprocess
import sys

TAGS = ["nchw", "nhwc", "nChw16c", "aBcd16b", "OIhw8i8o", "OIhw16i16o", "OIhw4i16o4i", "nChw8c", "ABcd8b8a",
        "Acdb16a", "aBCd4c4b"]
TILED = ["tiled_layout<<0,1>,(2,2)>", "tiled_layout<<0,1>,(2,4),(2,1)>", "tiled_layout<<1,0>,(2,2)>",
         "tiled_layout<<0,1>,(8,128),(2,1)>", "tiled_layout<<0,1>,(128)>"]


def blocks(tag):
    out = {}
    for n, c in re.findall(r"(\d+)([a-z])", tag):
        out[c] = out.get(c, 1) * int(n)
    return out


def letter_dims(tag):
    letters = re.match(r"[a-zA-Z]+", tag).group(0).lower()
    fam = [f for f in ("nchw", "ncdhw", "goihw", "oihw", "abcdefgh") if all(c in f for c in letters)][0]
    return sorted(letters, key=fam.index)


def sizes(b):
    return sorted({max(1, b // 2), b, b + 3}) if b > 1 else [3]


def describe(t):
    r = subprocess.run(["layoutc", "describe", t, "--json"], capture_output=True, text=True)
    if r.returncode:
        print(f"FAIL {t}: {r.stderr}")
        sys.exit(1)
    return json.loads(r.stdout)


def check(t):
    d = describe(t)
    printed = d["type"]
    if "layout<" in printed.replace("tiled_layout<", ""):
        print(f"GENERAL {t} prints in the general form: {printed}")
        return False
    if describe(printed)["hash"] != d["hash"]:
        print(f"FAIL {t}: printed {printed} is another type")
        sys.exit(1)
    return True


def main():
    n = bad = 0
    for tag in TAGS:
        b = blocks(tag)
        dims = letter_dims(tag)
        choices = [sizes(b.get(c, 1)) for c in dims]
        for shape in itertools.product(*choices):
            bad += not check(f"tensor<{'x'.join(map(str, shape))}xf32, \"{tag}\">")
            n += 1
    print(f"tags: {n} types, {bad} in the general form")
    n = bad = 0
    for tl in TILED:
        tiles = [int(x) for x in re.findall(r"\d+", tl.split(">", 1)[1])]
        for shape in itertools.product([1, 2, 3, 5, 8, 9], [2, 4, 7, 128, 130]):
            bad += not check(f"tensor<{shape[0]}x{shape[1]}xf32, {tl}>")
            n += 1
    print(f"tiled: {n} types, {bad} in the general form")


if __name__ == "__main__":
    main()
