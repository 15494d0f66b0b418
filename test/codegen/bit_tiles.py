#!/usr/bin/env python3
"""Sub-byte bit tiles against the interpreter: for each pair and each vector width (16, 32, 64
bytes), `layoutc repack -i -o` with the compiled kernel and with --interpret on random source
bytes must write the same bytes. The pairs are tiles of k = 8/bits rows copied whole into one
destination byte per column (XLA's (8,1) tiles of i1, (4,1) of i2, (2,1) of i4), whose runs of
Y blocks are one wide tile (plan: ym), with Y lengths that leave blocks after the last whole
run and tails; and i1, i2 and i4 transposes (i1 with GFNI when the host has it and LAYOUTC_GFNI
is not 0: each 8x8 bit matrix by GF2P8AFFINEQB; otherwise k rows' fields moved across the rows).
Checks that the wide runs (and, with --gfni, the GFNI tiles; with 64-byte vectors, the staged
i4 transposes of 256-row groups) were planned, so a planner change cannot quietly skip them.
Usage: bit_tiles.py TMPDIR [--gfni]"""
import os
import random
import subprocess
import sys

tmp = sys.argv[1]
want_gfni = "--gfni" in sys.argv[2:]
os.makedirs(tmp, exist_ok=True)

PAIRS = [
    ("i1", "64x1024", "(32,128),(8,1)"),
    ("i1", "16x1024", "(8,512),(8,1)"),
    ("i1", "24x1344", "(8,448),(8,1)"),   # 7 blocks of 64: a run of 4, then 2, then 1
    ("i1", "16x1088", "(8,1088),(8,1)"),  # 17 blocks of 64: two runs of 8, then 1
    ("i2", "32x512", "(16,128),(4,1)"),
    ("i2", "12x768", "(4,384),(4,1)"),
    ("i4", "16x512", "(8,128),(2,1)"),
    ("i4", "6x640", "(2,320),(2,1)"),
]
# Transposes: i2 and i4 (and i1 without GFNI) move k rows' fields across the rows, then transpose
# byte rows; some leave pieces of destination rows, grouped by chunks (xg).
TRANSPOSES = [("i1", "128x192"), ("i1", "64x64"), ("i1", "64x320"), ("i2", "128x192"), ("i2", "256x128"),
              ("i4", "128x192"), ("i4", "192x320"), ("i4", "512x256"),
              # 64-byte vectors: groups of 256 rows whose runs of 4 Y blocks go through the stack
              # (plan: staged), with a block left over, super-blocks, and streaming stores
              ("i4", "1024x320"), ("i4", "2304x1280"), ("i4", "1280x2304"),
              # partial 64-wide tiles by byte columns: rows and Y positions left over
              ("i4", "600x520"), ("i4", "520x560")]


def run(args, env):
    return subprocess.run(["layoutc"] + args, env=env, capture_output=True, text=True)


failures = wide = gfni = staged = staged_want = 0
cases = []
for elem, shape, tiles in PAIRS:
    cases.append((f"tensor<{shape}x{elem}>", f"tensor<{shape}x{elem}, tiled_layout<<0,1>,{tiles}>>", True))
for elem, shape in TRANSPOSES:
    cases.append((f"tensor<{shape}x{elem}>", f"tensor<{shape}x{elem}, tiled_layout<<1,0>>>", False))
rng = random.Random(7)
for n, (src, dst, tiled) in enumerate(cases):
    rows, cols = (int(v) for v in src[len("tensor<"):].split("x")[:2])
    bits = int(src.split("x")[2][1:].rstrip(">"))
    data = bytes(rng.randrange(256) for _ in range(rows * cols * bits // 8))
    inp = os.path.join(tmp, f"in{n}")
    with open(inp, "wb") as f:
        f.write(data)
    for vb in ("16", "32", "64"):
        env = dict(os.environ, LAYOUTC_VECTOR_BYTES=vb)
        plan = run([ "repack", src, dst, "--plan"], env).stdout
        wide += tiled and " ym=" in plan
        gfni += " gfni" in plan
        if not tiled and bits == 4 and plan.startswith("vector 64") and rows % 256 == 0 and cols >= 256:
            staged_want += 1
            staged += " staged" in plan
        out = {}
        for mode in ("jit", "ref"):
            path = os.path.join(tmp, f"out{n}.{vb}.{mode}")
            r = run(["repack", src, dst, "-i", inp, "-o", path] + (["--interpret"] if mode == "ref" else []), env)
            out[mode] = open(path, "rb").read() if r.returncode == 0 else None
        if out["jit"] is None or out["jit"] != out["ref"]:
            failures += 1
            print(f"FAIL {src} -> {dst} (vector {vb} bytes)\n{plan}")
total = 3 * len(cases)
if wide != 3 * len(PAIRS):
    failures += 1
    print(f"FAIL: {wide} of {3 * len(PAIRS)} tiled plans have wide runs")
if staged != staged_want:
    failures += 1
    print(f"FAIL: {staged} of {staged_want} i4 transposes of 256-row groups staged")
ones = sum(src.endswith("xi1>") for src, _, _ in cases)
if want_gfni and gfni != 3 * ones:  # every i1 plan
    failures += 1
    print(f"FAIL: only {gfni} plans use GFNI")
if not want_gfni and gfni:
    failures += 1
    print(f"FAIL: {gfni} plans use GFNI with LAYOUTC_GFNI=0")
print(f"bit_tiles: {total} runs, {failures} failures")
