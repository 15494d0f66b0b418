// RUN: layoutc opt %s | FileCheck %s
// Printing is a fixed point: print -> parse -> print gives the same text.
// RUN: layoutc opt %s -o %t.1.mlir
// RUN: layoutc opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

// Every op of the IR, types in their canonical spelling ("nChw16c" prints as
// oneDNN's abstract "aBcd16b"), numbered values renumbered in order.

// CHECK-LABEL: func.func @every_op(%a: tensor<2x32x4x5xf32, "aBcd16b">, %x: tensor<4x6xf32>, %y: tensor<1x6xf32>) -> (tensor<2x2x16x5x4xf32, any>, tensor<4x6xf32, any>) {
// CHECK-NEXT:    %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32, any>
// CHECK-NEXT:    %1 = "layout.transpose"(%0) {permutation = [0, 1, 2, 4, 3]} : (tensor<2x2x16x4x5xf32, any>) -> tensor<2x2x16x5x4xf32, any>
// CHECK-NEXT:    %2 = "layout.slice"(%x) {offsets = [0, 2], sizes = [4, 3]} : (tensor<4x6xf32>) -> tensor<4x3xf32, any>
// CHECK-NEXT:    %3 = "layout.broadcast"(%y) : (tensor<1x6xf32>) -> tensor<4x6xf32, any>
// CHECK-NEXT:    %4 = "layout.relayout"(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:    %5 = "layout.view"(%x) : (tensor<4x6xf32>) -> tensor<24xf32>
// CHECK-NEXT:    %6 = "layout.op"(%4, %3) {name = "add"} : (tensor<4x6xf32, "ba">, tensor<4x6xf32, any>) -> tensor<4x6xf32, any>
// CHECK-NEXT:    "func.return"(%1, %6) : (tensor<2x2x16x5x4xf32, any>, tensor<4x6xf32, any>) -> ()
// CHECK-NEXT:  }
func.func @every_op(%a: tensor<2x32x4x5xf32, "nChw16c">, %x: tensor<4x6xf32>, %y: tensor<1x6xf32>)
    -> (tensor<2x2x16x5x4xf32, any>, tensor<4x6xf32, any>) {
  %10 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any>
  %11 = "layout.transpose"(%10) {permutation = [0, 1, 2, 4, 3]}
      : (tensor<2x2x16x4x5xf32, any>) -> tensor<2x2x16x5x4xf32, any>
  %12 = "layout.slice"(%x) {offsets = [0, 2], sizes = [4, 3]} : (tensor<4x6xf32>) -> tensor<4x3xf32, any>
  %13 = "layout.broadcast"(%y) : (tensor<1x6xf32>) -> tensor<4x6xf32, any>
  %14 = "layout.relayout"(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">   // an explicit copy
  %15 = "layout.view"(%x) : (tensor<4x6xf32>) -> tensor<24xf32>               // metadata only
  %16 = "layout.op"(%14, %13) {name = "add"} : (tensor<4x6xf32, "ba">, tensor<4x6xf32, any>) -> tensor<4x6xf32, any>
  "func.return"(%11, %16) : (tensor<2x2x16x5x4xf32, any>, tensor<4x6xf32, any>) -> ()
}

// Several functions per module, separated by a blank line; no results, rank 0,
// memory spaces, every layout spelling (canonical: the XLA tiling is a tag).
// CHECK-EMPTY:
// CHECK-NEXT: func.func @no_results(%0: tensor<f32>, %1: tensor<8xi4, memspace<1>>) {
// CHECK-NEXT:   "func.return"() : () -> ()
// CHECK-NEXT: }
func.func @no_results(%0: tensor<f32>, %1: tensor<8xi4, memspace<1>>) -> () {
  "func.return"() : () -> ()
}

// CHECK-LABEL: func.func @spellings(
// CHECK-SAME: %t: tensor<3x5xf32, "AB2a2b">
// CHECK-SAME: %s: tensor<4x6xf32, strided<[1,4], offset: 3>>
// CHECK-SAME: %d: tensor<?x4xf16>
// CHECK-SAME: %g: tensor<4xf32, layout<[(d0) floordiv 2 * 1], size: 2>>
// CHECK-SAME: -> tensor<3x5xf32, "AB2a2b">
func.func @spellings(%t: tensor<3x5xf32, tiled_layout<<0,1>,(2,2)>>,
                     %s: tensor<4x6xf32, strided<[1,4], offset: 3>>,
                     %d: tensor<?x4xf16>,
                     %g: tensor<4xf32, layout<[(d0) floordiv 2 * 1], size: 2>>)
    -> tensor<3x5xf32, tiled_layout<<0,1>,(2,2)>> {
  "func.return"(%t) : (tensor<3x5xf32, tiled_layout<<0,1>,(2,2)>>) -> ()
}

// An opaque op with several results and every attribute form.
// CHECK-LABEL: func.func @compute(
// CHECK-NEXT:   %a, %b = "layout.op"(%x) {name = "split", axis = -1, flag = true, off = false, nested = {{\[\[}}0, 1], [], {{\[}}"a"]]} : (tensor<4x6xf32>) -> (tensor<4x3xf32, any>, tensor<4x3xf32, any>)
// CHECK-NEXT:   "layout.op"(%a) {name = "sink"} : (tensor<4x3xf32, any>) -> ()
// CHECK-NEXT:   "func.return"(%b) : (tensor<4x3xf32, any>) -> ()
func.func @compute(%x: tensor<4x6xf32>) -> tensor<4x3xf32, any> {
  %a, %b = "layout.op"(%x) {name = "split", axis = -1, flag = true, off = false, nested = [[0, 1], [], ["a"]]}
      : (tensor<4x6xf32>) -> (tensor<4x3xf32, any>, tensor<4x3xf32, any>)
  "layout.op"(%a) {name = "sink"} : (tensor<4x3xf32, any>) -> ()
  "func.return"(%b) : (tensor<4x3xf32, any>) -> ()
}
