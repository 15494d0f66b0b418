// RUN: layoutc opt %s --split-input-file --legalize-reshapes --debug-reasons --verify-diagnostics | FileCheck %s
// Ops the pass cannot legalize stay as they are; it does not fail. With
// --debug-reasons it says why, as notes at the op.

// The operand's layout is not chosen yet: layout assignment comes first.
// CHECK-LABEL: func.func @any_operand(
// CHECK-NEXT:    %0 = "layout.reshape"(%a) : (tensor<4x6xf32, any>) -> tensor<24xf32, any>
func.func @any_operand(%a: tensor<4x6xf32, any>) -> tensor<24xf32, any> {
  // expected-note@+1 {{'layout.reshape' stays: its operand's layout is not chosen yet ('any')}}
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32, any>) -> tensor<24xf32, any>
  "func.return"(%0) : (tensor<24xf32, any>) -> ()
}

// -----
// Dynamic dims: the view algebra needs static geometry.
// CHECK-LABEL: func.func @dynamic(
// CHECK-NEXT:    %0 = "layout.reshape"(%a) : (tensor<?x6xf32>) -> tensor<?x2x3xf32, any>
func.func @dynamic(%a: tensor<?x6xf32>) -> tensor<?x2x3xf32, any> {
  // expected-note@+1 {{'layout.reshape' stays: views need static dims, strides and offsets}}
  %0 = "layout.reshape"(%a) : (tensor<?x6xf32>) -> tensor<?x2x3xf32, any>
  "func.return"(%0) : (tensor<?x2x3xf32, any>) -> ()
}
