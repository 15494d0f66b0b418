// RUN: layoutc opt %s | FileCheck %s
// RUN: layoutc opt %s --assign-layouts --legalize-reshapes | FileCheck %s --check-prefix=PASS
// RUN: layoutc opt --emit=mlir %s | layoutc opt --emit=mlir - | FileCheck %s --check-prefix=MLIR
// Values that are not tensors, as a real MLIR pipeline has them: builtin
// scalars, memrefs, vectors, complex and tuple types, dialect types; results
// with attributes; properties <{...}> on ops layoutc does not know (the
// generic form of registered ops such as arith.constant). layoutc keeps
// their text, every pass carries them through, and variants say "any" for
// them (test/mlir/fixed-point.test sends this file through mlir-opt-19).

func.func @scalars(%n: index, %k: i32, %h: f16, %u: ui8, %s: si64, %m: memref<4x?xf32, strided<[1, 4]>>,
                   %v: vector<4xf32>, %c: complex<f32>, %t: tuple<i32, f32>, %p: !llvm.ptr, %q: !foo.thing<1, "x">,
                   %x: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32, any> {test.result = 1 : i32}, i32) {
  %c0 = "test.constant"() <{value = 0 : i32}> : () -> i32
  %y = "layout.op"(%x, %n, %k) {name = "conv", variants = [["nChw16c", "any", "any", "nChw16c", 10]]} : (tensor<1x32x4x4xf32>, index, i32) -> tensor<1x32x4x4xf32, any>
  %z = "layout.op"(%y, %c0) {name = "scale", elementwise = true} : (tensor<1x32x4x4xf32, any>, i32) -> tensor<1x32x4x4xf32, any>
  %w = "test.use"(%m, %v, %c, %t, %p, %q, %h, %u, %s) : (memref<4x?xf32, strided<[1, 4]>>, vector<4xf32>, complex<f32>, tuple<i32, f32>, !llvm.ptr, !foo.thing<1, "x">, f16, ui8, si64) -> !foo.thing<1, "x">
  return %z, %c0 : tensor<1x32x4x4xf32, any>, i32
}

func.func private @decl(index, !llvm.ptr) -> (f32 {test.q}, tensor<2xf32>)

// CHECK: func.func @scalars(%n: index, %k: i32, %h: f16, %u: ui8, %s: si64, %m: memref<4x?xf32, strided<[1, 4]>>, %v: vector<4xf32>, %c: complex<f32>, %t: tuple<i32, f32>, %p: !llvm.ptr, %q: !foo.thing<1, "x">, %x: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32, any> {test.result = 1 : i32}, i32) {
// CHECK-NEXT:   %c0 = "test.constant"() <{value = 0 : i32}> : () -> i32
// CHECK:        %w = "test.use"(%m, %v, %c, %t, %p, %q, %h, %u, %s) : (memref<4x?xf32, strided<[1, 4]>>, vector<4xf32>, complex<f32>, tuple<i32, f32>, !llvm.ptr, !foo.thing<1, "x">, f16, ui8, si64) -> !foo.thing<1, "x">
// CHECK:      func.func private @decl(index, !llvm.ptr) -> (f32 {test.q}, tensor<2xf32>)

// The pass chooses the blocked layout for the tensors and leaves the rest.
// PASS:      -> (tensor<1x32x4x4xf32, "aBcd16b"> {test.result = 1 : i32}, i32) {
// PASS:      %0 = "layout.relayout"(%x) : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, "aBcd16b">
// PASS-NEXT: %y = "layout.op"(%0, %n, %k) {{.*}} : (tensor<1x32x4x4xf32, "aBcd16b">, index, i32) -> tensor<1x32x4x4xf32, "aBcd16b">
// PASS-NEXT: %z = "layout.op"(%y, %c0) {{.*}} : (tensor<1x32x4x4xf32, "aBcd16b">, i32) -> tensor<1x32x4x4xf32, "aBcd16b">

// MLIR: func.func @scalars(%arg0: index, %arg1: i32, %arg2: f16, %arg3: ui8, %arg4: si64, %arg5: memref<4x?xf32, strided<[1, 4]>>, %arg6: vector<4xf32>, %arg7: complex<f32>, %arg8: tuple<i32, f32>, %arg9: !llvm.ptr, %arg10: !foo.thing<1, "x">, %arg11: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32, #layout.any> {test.result = 1 : i32}, i32) {
// MLIR-NEXT: %0 = "test.constant"() <{value = 0 : i32}> : () -> i32
