#!/usr/bin/env python3
"""Plans that promise non-temporal stores keep the promise: for each pair whose plan (`layoutc
repack --plan`) says "non-temporal stores", the kernel's non-temporal variant (`ly_repack_nt` in
`layoutc emit-llvm --repack`) must hold at least one store marked !nontemporal; a variant
without one is a second compile of the plain kernel, and its destination goes through the cache.
On x86-64 the variant is also compiled for the host (`llc -O3 -mcpu=native`) and its machine code
must hold a non-temporal store instruction: LLVM 19 drops the mark from stores of half vectors
on hosts with AVX512-FP16, where f32 -> f16 once stored through the cache with a marked IR store.
Prints one line per pair (the counts) and `nt_stores: N pairs, K without`; exit status 0 only if
K == 0 and every pair was planned with them (the pairs are all past the threshold and aligned).
Usage: nt_stores.py"""
import platform
import re
import subprocess
import sys

MACHINE = platform.machine() in ("x86_64", "AMD64")

PAIRS = [
    # blocked, channels-last and plain transposes of the benchmark
    ("tensor<32x64x56x56xf32>", 'tensor<32x64x56x56xf32, "nChw16c">'),
    ('tensor<32x64x56x56xf32, "nChw16c">', "tensor<32x64x56x56xf32>"),
    ("tensor<32x64x56x56xf32>", 'tensor<32x64x56x56xf32, "nhwc">'),
    ('tensor<32x64x56x56xf32, "nhwc">', "tensor<32x64x56x56xf32>"),
    ("tensor<8192x8192xf32>", "tensor<8192x8192xf32, tiled_layout<<1,0>>>"),
    ("tensor<6000x5000xf32>", "tensor<6000x5000xf32, tiled_layout<<1,0>>>"),
    ("tensor<64x512x512xf32>", 'tensor<64x512x512xf32, "cba">'),
    ("tensor<512x512x3x3xf32>", 'tensor<512x512x3x3xf32, "OIhw16i16o">'),
    ('tensor<32x64x56x56xi8, "nhwc">', "tensor<32x64x56x56xf32>"),
    ("tensor<32x64x56x56xf32>", 'tensor<32x64x56x56xbf16, "nChw16c">'),
    ("tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf16>"),
    # Y shorter than a vector (3 or 5 channels: tiles of fewer Y positions than V, stored a Y
    # position at a time) and rows of 3 or 5 elements (packed tiles of whole lines)
    ('tensor<64x3x224x224xf32, "nhwc">', "tensor<64x3x224x224xf32>"),
    ("tensor<64x3x224x224xf32>", 'tensor<64x3x224x224xf32, "nhwc">'),
    ("tensor<64x5x100x100xf32>", 'tensor<64x5x100x100xf32, "nhwc">'),
    ("tensor<64x100x100x5xf32>", "tensor<64x100x100x5xf32, tiled_layout<<0,3,1,2>>>"),
    ("tensor<32x224x224x3xf32>", "tensor<32x224x224x3xbf16, tiled_layout<<0,3,1,2>>>"),
    # odd sizes: a partial last Y block, a chunk of X left over
    ("tensor<4000x2002xf32>", "tensor<4000x2002xf32, tiled_layout<<1,0>>>"),
    ("tensor<2000x4002xf32>", "tensor<2000x4002xf32, tiled_layout<<1,0>>>"),
    ("tensor<4096x4100xi8>", "tensor<4096x4100xi8, tiled_layout<<1,0>>>"),
    ("tensor<4096x4096xf64>", "tensor<4096x4096xf64, tiled_layout<<1,0>>>"),
    # destination rows not a whole number of lines apart: through the panel (plan.c's zip_panel)
    ("tensor<6004x5000xf32>", "tensor<6004x5000xf32, tiled_layout<<1,0>>>"),
    ("tensor<3001x4000xbf16>", "tensor<3001x4000xbf16, tiled_layout<<1,0>>>"),
    ('tensor<64x256x14x14xf32, "nhwc">', "tensor<64x256x14x14xf32>"),
    # under the threshold, transposes into destination rows a multiple of 4 KB apart (past the
    # tests' 1 MB L2: plan.c's stores_alias)
    ("tensor<1024x256xf32>", "tensor<1024x256xf32, tiled_layout<<1,0>>>"),
    ("tensor<2048x1024xbf16>", "tensor<2048x1024xbf16, tiled_layout<<1,0>>>"),
    ("tensor<4x1024x16x32xf32>", 'tensor<4x1024x16x32xf32, "nhwc">'),
]


def run(*args, stdin=None):
    r = subprocess.run(list(args), input=stdin, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def machine_nt(ir):
    """Non-temporal store instructions in the host machine code of ly_repack_nt and the
    functions after it (its panel flush)."""
    asm = run("llc", "-O3", "-mcpu=native", "-o", "-", stdin=ir)
    at = asm.find("\nly_repack_nt:")
    return len(re.findall(r"\b(v?movnt\w*|movnti)\s", asm[at:])) if at >= 0 else 0


without = 0
for s, d in PAIRS:
    planned = "non-temporal stores" in run("layoutc", "repack", s, d, "--plan")
    ir = run("layoutc", "emit-llvm", "--repack", s, d)
    at = ir.find("define void @ly_repack_nt(")
    n = ir[at:].count("!nontemporal") if at >= 0 else 0
    m = machine_nt(ir) if MACHINE else "-"
    print(f"{n:4d} {m:>4} {s} -> {d}{'' if planned else ' (not planned)'}")
    without += not planned or n == 0 or m == 0
print(f"nt_stores: {len(PAIRS)} pairs, {without} without")
sys.exit(1 if without else 0)
