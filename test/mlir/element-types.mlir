// RUN: layoutc opt %s | FileCheck %s
// RUN: layoutc opt --emit=mlir %s | FileCheck %s --check-prefix=MLIR
// REQUIRES: mlir-opt
// RUN: layoutc opt --emit=mlir %s | mlir-opt-19 --allow-unregistered-dialect | FileCheck %s --check-prefix=MLIR
// Element types in MLIR's spelling: signed and unsigned integers, index, the FNUZ f8 formats,
// tf32 and complex, as MLIR 19's builtin types (fixed-point.test also round-trips this file).
// mlir-opt-19 predates f8E8M0FNU, f6E2M3FN, f6E3M2FN and f4E2M1FN: element-types-new.test.

func.func @ints(%a: tensor<4x6xui8, "ba">, %b: tensor<2xsi16>, %c: tensor<2xui64>, %d: tensor<2x2xindex, strided<[1, 2]>>) -> tensor<4x6xsi32> {
  %0 = "layout.op"(%a, %b, %c, %d) {name = "x"} : (tensor<4x6xui8, "ba">, tensor<2xsi16>, tensor<2xui64>, tensor<2x2xindex, strided<[1, 2]>>) -> tensor<4x6xsi32>
  return %0 : tensor<4x6xsi32>
}
// CHECK: func.func @ints(%a: tensor<4x6xui8, "ba">, %b: tensor<2xsi16>, %c: tensor<2xui64>, %d: tensor<2x2xindex, "ba">) -> tensor<4x6xsi32> {
// MLIR: func.func @ints(%arg0: tensor<4x6xui8, #layout.tag<"ba">>, %arg1: tensor<2xsi16>, %arg2: tensor<2xui64>, %arg3: tensor<2x2xindex, #layout.tag<"ba">>) -> tensor<4x6xsi32> {

// -----

func.func @floats(%a: tensor<16xf8E4M3FNUZ>, %b: tensor<16xf8E5M2FNUZ, "a">, %c: tensor<16xf8E4M3B11FNUZ>, %d: tensor<3x5xtf32, tiled_layout<<1,0>,(2,2)>>) {
  return
}
// CHECK: func.func @floats(%a: tensor<16xf8E4M3FNUZ>, %b: tensor<16xf8E5M2FNUZ>, %c: tensor<16xf8E4M3B11FNUZ>, %d: tensor<3x5xtf32, "BA2b2a">) {
// MLIR: func.func @floats(%arg0: tensor<16xf8E4M3FNUZ>, %arg1: tensor<16xf8E5M2FNUZ>, %arg2: tensor<16xf8E4M3B11FNUZ>, %arg3: tensor<3x5xtf32, #layout.tag<"BA2b2a">>) {

// -----

func.func @complex(%a: tensor<2x3xcomplex<f32>, "ba">) -> tensor<2x3xcomplex<f64>, any> {
  %0 = "layout.op"(%a) {name = "widen"} : (tensor<2x3xcomplex<f32>, "ba">) -> tensor<2x3xcomplex<f64>, any>
  return %0 : tensor<2x3xcomplex<f64>, any>
}
// CHECK: func.func @complex(%a: tensor<2x3xcomplex<f32>, "ba">) -> tensor<2x3xcomplex<f64>, any> {
// MLIR: func.func @complex(%arg0: tensor<2x3xcomplex<f32>, #layout.tag<"ba">>) -> tensor<2x3xcomplex<f64>, #layout.any> {
