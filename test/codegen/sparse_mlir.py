"""The buffer lists of sparse formats (sparse_driver check) against mlir-opt's own storage layout.

mlir-opt --sparse-tensor-codegen replaces a sparse tensor argument by its buffers in MLIR's storage
order (positions, coordinates, values, then a storage specifier); the memref element types of that
list must be the kinds and widths sparse_driver lists for the same format.

usage: sparse_mlir.py SPARSE_DRIVER MLIR_OPT
"""
import re
import subprocess
import sys

# (MLIR tensor type with its encoding, sparse_driver spec)
CASES = [
    ("tensor<4x6xf32, #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32 }>>",
     "f32,p32,c32,4x6,i0:dense,i1:compressed"),
    ("tensor<4x6xf64, #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed), posWidth = 16, crdWidth = 8 }>>",
     "f64,p16,c8,4x6,i1:dense,i0:compressed"),
    ("tensor<2x3x4xf64, #sparse_tensor.encoding<{ map = (i, j, k) -> (i : compressed(nonunique), j : singleton(nonunique), k : singleton), posWidth = 8, crdWidth = 16 }>>",
     "f64,p8,c16,2x3x4,i0:compressed+nu,i1:singleton+nu,i2:singleton"),
    ("tensor<2x3x4xi8, #sparse_tensor.encoding<{ map = (i, j, k) -> (i : compressed(nonunique), j : singleton(nonunique, soa), k : singleton(soa)), posWidth = 8, crdWidth = 16 }>>",
     "i8,p8,c16,2x3x4,i0:compressed+nu,i1:singleton+nu+soa,i2:singleton+soa"),
    ("tensor<4x6xf32, #sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 3 : compressed, i mod 2 : dense, j mod 3 : dense), posWidth = 32, crdWidth = 32 }>>",
     "f32,p32,c32,4x6,i0/2:dense,i1/3:compressed,i0%2:dense,i1%3:dense"),
    ("tensor<2x8xf16, #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]), crdWidth = 8 }>>",
     "f16,p0,c8,2x8,i0:dense,i1/4:dense,i1%4:nm,nm2:4"),
    ("tensor<4x6xbf16, #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed), posWidth = 16, crdWidth = 8 }>>",
     "bf16,p16,c8,4x6,i0:compressed,i1:compressed"),
    ("tensor<3x3xi64, #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : loose_compressed) }>>",
     "i64,p0,c0,3x3,i0:dense,i1:loose"),
    ("tensor<3x5xi32, #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique), j : singleton), posWidth = 64, crdWidth = 32 }>>",
     "i32,p64,c32,3x5,i0:compressed+nu,i1:singleton"),
]


def mlir_buffers(mlir_opt, ty):
    src = "func.func @f(%%a: %s) -> %s { return %%a : %s }\n" % (ty, ty, ty)
    out = subprocess.run([mlir_opt, "--sparse-tensor-codegen"], input=src, capture_output=True, text=True,
                         check=True).stdout
    sig = re.search(r"func\.func @f\((.*?)\) ->", out).group(1)
    # width 0 is MLIR's index, 64 bits on the hosts layoutc targets
    return ["i64" if t == "index" else t for t in re.findall(r"memref<\?x(\w+)>", sig)]


def driver_buffers(driver, spec, value_type):
    lines = subprocess.run([driver, "check", spec], capture_output=True, text=True, check=True).stdout.split("\n")
    kinds = []
    for line in filter(None, lines):
        words = line.split()
        bits = words[-1].split("-")[0]
        kinds.append(value_type if words[0] == "values" else "i" + bits)
    return kinds


def main():
    driver, mlir_opt = sys.argv[1], sys.argv[2]
    failures = 0
    for ty, spec in CASES:
        value = re.match(r"tensor<[0-9x]+x(\w+),", ty).group(1)
        want, got = mlir_buffers(mlir_opt, ty), driver_buffers(driver, spec, value)
        if want != got:
            failures += 1
            print("FAIL %s: mlir-opt %s, sparse_driver %s" % (spec, want, got))
    print("sparse_mlir: %d formats, %d failures" % (len(CASES), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
