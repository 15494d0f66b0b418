// RUN: layoutc opt %s --assign-layouts | FileCheck %s
// elementwise = true: every result and every operand of result 0's dims share
// one layout, any one. The pass picks the one that needs the fewest copies.

// Both inputs arrive blocked: the add runs blocked, nothing is copied; the
// broadcast bias (other dims) is taken as it comes.
// CHECK-LABEL: func.func @follow_operands(
// CHECK-SAME:    -> tensor<2x32x4x4xf32, "aBcd16b">
// CHECK-NEXT:    %0 = "layout.op"(%a, %b, %bias) {name = "add", elementwise = true} : (tensor<2x32x4x4xf32, "aBcd16b">, tensor<2x32x4x4xf32, "aBcd16b">, tensor<32xf32>) -> tensor<2x32x4x4xf32, "aBcd16b">
// CHECK-NEXT:    "func.return"(%0)
func.func @follow_operands(%a: tensor<2x32x4x4xf32, "nChw16c">, %b: tensor<2x32x4x4xf32, "nChw16c">, %bias: tensor<32xf32>) -> tensor<2x32x4x4xf32, any> {
  %0 = "layout.op"(%a, %b, %bias) {name = "add", elementwise = true} : (tensor<2x32x4x4xf32, "nChw16c">, tensor<2x32x4x4xf32, "nChw16c">, tensor<32xf32>) -> tensor<2x32x4x4xf32, any>
  "func.return"(%0) : (tensor<2x32x4x4xf32, any>) -> ()
}

// Two blocked inputs against one plain: one copy (of the plain one) is the
// least; the tie is broken by bytes, not by operand order.
// CHECK-LABEL: func.func @majority(
// CHECK-NEXT:    %0 = "layout.relayout"(%c) : (tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32, "aBcd16b">
// CHECK-NEXT:    %1 = "layout.op"(%0, %a, %b) {name = "add3", elementwise = true} : (tensor<2x32x4x4xf32, "aBcd16b">, tensor<2x32x4x4xf32, "aBcd16b">, tensor<2x32x4x4xf32, "aBcd16b">) -> tensor<2x32x4x4xf32, "aBcd16b">
func.func @majority(%c: tensor<2x32x4x4xf32>, %a: tensor<2x32x4x4xf32, "nChw16c">, %b: tensor<2x32x4x4xf32, "nChw16c">) -> tensor<2x32x4x4xf32, any> {
  %0 = "layout.op"(%c, %a, %b) {name = "add3", elementwise = true} : (tensor<2x32x4x4xf32>, tensor<2x32x4x4xf32, "nChw16c">, tensor<2x32x4x4xf32, "nChw16c">) -> tensor<2x32x4x4xf32, any>
  "func.return"(%0) : (tensor<2x32x4x4xf32, any>) -> ()
}

// A declared result fixes the shared layout: both operands follow it, and
// the second result (declared any) takes it too.
// CHECK-LABEL: func.func @declared_result(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:    %1, %2 = "layout.op"(%0) {name = "split", elementwise = true} : (tensor<4x6xf32, "ba">) -> (tensor<4x6xf32, "ba">, tensor<4x6xf32, "ba">)
func.func @declared_result(%a: tensor<4x6xf32>) -> (tensor<4x6xf32, "ba">, tensor<4x6xf32, any>) {
  %0, %1 = "layout.op"(%a) {name = "split", elementwise = true} : (tensor<4x6xf32>) -> (tensor<4x6xf32, "ba">, tensor<4x6xf32, any>)
  "func.return"(%0, %1) : (tensor<4x6xf32, "ba">, tensor<4x6xf32, any>) -> ()
}
