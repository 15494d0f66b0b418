// RUN: layoutc opt %s | FileCheck %s
// RUN: layoutc opt --emit=mlir %s | FileCheck %s --check-prefix=MLIR
// RUN: layoutc opt --emit=mlir %s | layoutc opt --emit=mlir - | FileCheck %s --check-prefix=MLIR
// What mlir-opt prints for layoutc's functions, read back: a module with
// attributes, aliases, custom and generic func forms, declarations,
// argument attributes, locations, typed integers, unit attributes, dense
// arrays, result groups and ops layoutc does not know.

#map = affine_map<(d0, d1) -> (d1, d0)>
module @m attributes {test.flag, test.n = 3 : i64} {
  func.func @f(%arg0: tensor<4x6xf32, #layout.tag<"ab">> {test.arg = 1 : i32} loc("a.py":1:2), %arg1: tensor<4x6xf32, #layout.tiled<<0,1>,(2,2)>>) -> tensor<4x6xf32, #layout.any> attributes {test.fn} {
    %0:2 = "test.split"(%arg0) {m = #map, f = 1.500000e+00 : f32, a = array<i64: 1, 0>} : (tensor<4x6xf32, #layout.tag<"ab">>) -> (tensor<4x6xf32>, tensor<4x6xf32, #layout.any>) loc("a.py":3:4)
    %1 = "layout.transpose"(%0#1) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32, #layout.any>) -> tensor<6x4xf32, #layout.any>
    %2 = "layout.op"(%0#0, %arg1) {name = "add", test.unit} : (tensor<4x6xf32>, tensor<4x6xf32, #layout.tiled<<0,1>,(2,2)>>) -> tensor<4x6xf32, #layout.strided<[1, 4]>>
    %3 = builtin.unrealized_conversion_cast %2 : tensor<4x6xf32, #layout.strided<[1, 4]>> to tensor<4x6xf32, #layout.any>
    return %3 : tensor<4x6xf32, #layout.any> loc(#loc1)
  } loc(#loc)
  func.func private @g(tensor<4x6xf32, #layout.memspace<1>>, tensor<?x6xf32, #layout.tag<"ba">>) -> tensor<4x6xf32, #layout.any<memspace<"gpu">>>
  func.func @h() {
    "func.return"() : () -> ()
  }
}
#loc = loc("a.py":5:6)
#loc1 = loc("a.py":7:8)

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #loc = loc("a.py":5:6)
// CHECK-NEXT: #loc1 = loc("a.py":7:8)
// CHECK-EMPTY:
// CHECK-NEXT: module @m attributes {test.flag, test.n = 3} {
// CHECK-NEXT: func.func @f(%arg0: tensor<4x6xf32> {test.arg = 1 : i32}, %arg1: tensor<4x6xf32, "AB2a2b">) -> tensor<4x6xf32, any> attributes {test.fn} {
// CHECK-NEXT:   %0, %1 = "test.split"(%arg0) {m = #map, f = 1.500000e+00 : f32, a = array<i64: 1, 0>} : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32, any>)
// CHECK-NEXT:   %2 = "layout.transpose"(%1) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32, any>) -> tensor<6x4xf32, any>
// CHECK-NEXT:   %3 = "layout.op"(%0, %arg1) {name = "add", test.unit} : (tensor<4x6xf32>, tensor<4x6xf32, "AB2a2b">) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:   "func.return"(%3) : (tensor<4x6xf32, "ba">) -> ()
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: func.func private @g(tensor<4x6xf32, memspace<1>>, tensor<?x6xf32, "ba">) -> tensor<4x6xf32, any, memspace<"gpu">>
// CHECK-EMPTY:
// CHECK-NEXT: func.func @h() {
// CHECK-NEXT:   "func.return"() : () -> ()
// CHECK-NEXT: }
// CHECK-NEXT: }

// MLIR:      #map = affine_map<(d0, d1) -> (d1, d0)>
// MLIR-NEXT: module @m attributes {test.flag, test.n = 3 : i64} {
// MLIR-NEXT:   func.func @f(%arg0: tensor<4x6xf32> {test.arg = 1 : i32}, %arg1: tensor<4x6xf32, #layout.tag<"AB2a2b">>) -> tensor<4x6xf32, #layout.any> attributes {test.fn} {
// MLIR-NEXT:     %0:2 = "test.split"(%arg0) {a = array<i64: 1, 0>, f = 1.500000e+00 : f32, m = #map} : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32, #layout.any>)
// MLIR-NEXT:     %1 = "layout.transpose"(%0#1) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32, #layout.any>) -> tensor<6x4xf32, #layout.any>
// MLIR-NEXT:     %2 = "layout.op"(%0#0, %arg1) {name = "add", test.unit} : (tensor<4x6xf32>, tensor<4x6xf32, #layout.tag<"AB2a2b">>) -> tensor<4x6xf32, #layout.tag<"ba">>
// MLIR-NEXT:     %3 = builtin.unrealized_conversion_cast %2 : tensor<4x6xf32, #layout.tag<"ba">> to tensor<4x6xf32, #layout.any>
// MLIR-NEXT:     return %3 : tensor<4x6xf32, #layout.any>
// MLIR-NEXT:   }
// MLIR-NEXT:   func.func private @g(tensor<4x6xf32, #layout.memspace<1>>, tensor<?x6xf32, #layout.tag<"ba">>) -> tensor<4x6xf32, #layout.any<memspace<"gpu">>>
// MLIR-NEXT:   func.func @h() {
// MLIR-NEXT:     return
// MLIR-NEXT:   }
// MLIR-NEXT: }
