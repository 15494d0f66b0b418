// RUN: layoutc opt %s --assign-layouts | FileCheck %s
// Transposes and reshapes cost nothing where the chosen operand layout makes
// the result a view; the pass chooses such layouts (the candidates include
// the images of every layout through the function's transposes and reshape
// views), and the legalizer turns the ops into layout.view.

// The consumer needs 4x8 row-major: %x is chosen column-major ("ba"), whose
// transpose is exactly that, for free.
// CHECK-LABEL: func.func @free_view(%x: tensor<8x4xf32, "ba">) -> tensor<4x8xf32>
// CHECK-NEXT:    %0 = "layout.view"(%x) : (tensor<8x4xf32, "ba">) -> tensor<4x8xf32>
// CHECK-NEXT:    %1 = "layout.op"(%0)
func.func @free_view(%x: tensor<8x4xf32, any>) -> tensor<4x8xf32, any> {
  %0 = "layout.transpose"(%x) {permutation = [1, 0]} : (tensor<8x4xf32, any>) -> tensor<4x8xf32, any>
  %1 = "layout.op"(%0) {name = "mm", variants = [["ab", "ab", 0]]} : (tensor<4x8xf32, any>) -> tensor<4x8xf32, any>
  "func.return"(%1) : (tensor<4x8xf32, any>) -> ()
}

// MLIR's convention: [0, 2, 3, 1] takes NCHW dims to NHWC dims. The nhwc
// convolution's output, transposed so, is plain row-major: no copy.
// CHECK-LABEL: func.func @nhwc(
// CHECK-NEXT:    %0 = "layout.op"(%x) {name = "conv", variants = {{\[\[}}"nhwc", "nhwc", 0]]} : (tensor<2x16x5x5xf32, "acdb">) -> tensor<2x16x5x5xf32, "acdb">
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<2x16x5x5xf32, "acdb">) -> tensor<2x5x5x16xf32>
// CHECK-NEXT:    %2 = "layout.op"(%1)
func.func @nhwc(%x: tensor<2x16x5x5xf32, any>) -> tensor<2x5x5x16xf32, any> {
  %0 = "layout.op"(%x) {name = "conv", variants = [["nchw", "nchw", 100], ["nhwc", "nhwc", 0]]} : (tensor<2x16x5x5xf32, any>) -> tensor<2x16x5x5xf32, any>
  %1 = "layout.transpose"(%0) {permutation = [0, 2, 3, 1]} : (tensor<2x16x5x5xf32, any>) -> tensor<2x5x5x16xf32, any>
  %2 = "layout.op"(%1) {name = "norm", variants = [["abcd", "abcd", 0]]} : (tensor<2x5x5x16xf32, any>) -> tensor<2x5x5x16xf32, any>
  "func.return"(%2) : (tensor<2x5x5x16xf32, any>) -> ()
}

// Attention heads: a reshape (a view of row-major), then a transpose of the
// heads; the batched matmul has a variant that reads the transposed view as
// it is, so nothing is copied.
// CHECK-LABEL: func.func @heads(
// CHECK-NEXT:    %0 = "layout.view"(%x) : (tensor<4x12xf32>) -> tensor<4x3x4xf32>
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<4x3x4xf32>) -> tensor<3x4x4xf32, "bac">
// CHECK-NEXT:    %2 = "layout.op"(%1) {name = "bmm", variants = {{\[\[}}"bac", "abc", 100]]}
func.func @heads(%x: tensor<4x12xf32>) -> tensor<3x4x4xf32, any> {
  %0 = "layout.reshape"(%x) : (tensor<4x12xf32>) -> tensor<4x3x4xf32, any>
  %1 = "layout.transpose"(%0) {permutation = [1, 0, 2]} : (tensor<4x3x4xf32, any>) -> tensor<3x4x4xf32, any>
  %2 = "layout.op"(%1) {name = "bmm", variants = [["abc", "abc", 0], ["bac", "abc", 100]]} : (tensor<3x4x4xf32, any>) -> tensor<3x4x4xf32, any>
  "func.return"(%2) : (tensor<3x4x4xf32, any>) -> ()
}

// A transpose whose operand is fixed in a layout that its consumer cannot
// read: one copy, before or after, of the same bytes.
// CHECK-LABEL: func.func @one_copy(
// CHECK-COUNT-1: "layout.relayout"
// CHECK-NOT:     "layout.relayout"
// CHECK:         "func.return"
func.func @one_copy(%x: tensor<4x12xf32>) -> tensor<12x4xf32, any> {
  %0 = "layout.transpose"(%x) {permutation = [1, 0]} : (tensor<4x12xf32>) -> tensor<12x4xf32, any>
  %1 = "layout.op"(%0) {name = "mm", variants = [["ab", "ab", 0]]} : (tensor<12x4xf32, any>) -> tensor<12x4xf32, any>
  "func.return"(%1) : (tensor<12x4xf32, any>) -> ()
}
