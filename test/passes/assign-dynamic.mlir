// RUN: layoutc opt %s --assign-layouts | FileCheck %s
// RUN: layoutc opt %s --assign-layouts --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=NOTE %s
// Dynamic dims count as 1024 in costs (SPEC 3.6): copying a ?x64xf32 tensor
// costs 2 * 1024 * 64 * 4 = 524288.

// CHECK-LABEL: func.func @copy_is_cheaper(
// CHECK-NEXT:    %0 = "layout.relayout"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32, "ba">
// CHECK-NEXT:    %1 = "layout.op"(%0) {name = "mm", variants = {{\[\[}}"ba", "ab", 0]]}
func.func @copy_is_cheaper(%x: tensor<?x64xf32>) -> tensor<?x64xf32, any> {
  %0 = "layout.op"(%x) {name = "mm", variants = [["ab", "ab", 524289], ["ba", "ab", 0]]} : (tensor<?x64xf32>) -> tensor<?x64xf32, any>
  "func.return"(%0) : (tensor<?x64xf32, any>) -> ()
}
// NOTE: note: assign-layouts: total cost 524288 (relayout bytes 524288, variants 0)

// NOTE: note: assign-layouts: total cost 524287 (relayout bytes 0, variants 524287)
// CHECK-LABEL: func.func @variant_is_cheaper(
// CHECK-NEXT:    %0 = "layout.op"(%x) {name = "mm", variants = {{\[\[}}"ab", "ab", 524287]]}
func.func @variant_is_cheaper(%x: tensor<?x64xf32>) -> tensor<?x64xf32, any> {
  %0 = "layout.op"(%x) {name = "mm", variants = [["ab", "ab", 524287], ["ba", "ab", 0]]} : (tensor<?x64xf32>) -> tensor<?x64xf32, any>
  "func.return"(%0) : (tensor<?x64xf32, any>) -> ()
}

// A reshape of dynamic dims cannot become a view: it stays, on a row-major
// operand, with a row-major result, and nothing is left `any`.
// CHECK-LABEL: func.func @dynamic_reshape(%x: tensor<?x64xf32>) -> tensor<?x8x8xf32>
// CHECK-NEXT:    %0 = "layout.op"(%x) {name = "relu", elementwise = true} : (tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK-NEXT:    %1 = "layout.reshape"(%0) : (tensor<?x64xf32>) -> tensor<?x8x8xf32>
func.func @dynamic_reshape(%x: tensor<?x64xf32>) -> tensor<?x8x8xf32, any> {
  %0 = "layout.op"(%x) {name = "relu", elementwise = true} : (tensor<?x64xf32>) -> tensor<?x64xf32, any>
  %1 = "layout.reshape"(%0) : (tensor<?x64xf32, any>) -> tensor<?x8x8xf32, any>
  "func.return"(%1) : (tensor<?x8x8xf32, any>) -> ()
}
