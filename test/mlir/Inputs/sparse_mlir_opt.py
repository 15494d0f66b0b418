#!/usr/bin/env python3
"""The sparse encodings layoutc prints in MLIR's form (`opt --emit=mlir`)
are read by mlir-opt-19 (no unregistered dialects) and printed back
unchanged (--mlir-print-local-scope keeps them inline); layoutc reads
mlir-opt's spelling back to the same type (same hash)."""
import json
import re
import subprocess
import sys

layoutc, mlir_opt = sys.argv[1], sys.argv[2]
TYPES = [
    "tensor<4x6xf32, csr<nnz: ?, index: i32, pointer: i32>>",
    "tensor<4x6xf32, csr<nnz: ?>>",
    "tensor<4x6x3xf64, coo<nnz: ?, index: i16>>",
    "tensor<8x8xf32, #sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, "
    "i mod 2 : dense, j mod 2 : dense) }>>",
    "tensor<8x8xf32, #sparse_tensor.encoding<{ map = (i, j) -> (j : compressed, i : compressed), posWidth = 8 }>>",
    "tensor<8x8xf16, #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, "
    "j mod 4 : structured[2, 4]), crdWidth = 8 }>>",
    "tensor<8x8x8xf32, #sparse_tensor.encoding<{ map = (i, j, k) -> (i : compressed(nonunique, nonordered), "
    "j : singleton(nonunique, nonordered), k : singleton(nonordered)) }>>",
    "tensor<?x8xf32, #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : loose_compressed(nonordered)), "
    "posWidth = 64, crdWidth = 16 }>>",
]


def run(cmd, text=None):
    return subprocess.run(cmd, input=text, capture_output=True, text=True, check=True).stdout


def describe(t):
    return json.loads(run([layoutc, "describe", "--json", t]))


same = 0
for i, t in enumerate(TYPES):
    src = f"func.func private @f{i}({t})\n"
    ours = run([layoutc, "opt", "--emit=mlir", "-"], src)
    theirs = run([mlir_opt, "--mlir-print-local-scope"], ours)
    a = re.search(r"\((tensor<.*>)\)", ours).group(1)
    b = re.search(r"\((tensor<.*>)\)", theirs).group(1)
    if a != b:
        print(f"differs: layoutc {a}\n         mlir-opt {b}")
        continue
    if describe(b)["hash"] != describe(t)["hash"]:
        print(f"reads back as another type: {b}")
        continue
    same += 1
print(f"{same} of {len(TYPES)} encodings print identically in mlir-opt-19 and read back")
