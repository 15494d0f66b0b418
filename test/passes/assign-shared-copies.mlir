// RUN: layoutc opt %s --assign-layouts | FileCheck %s
// Copies of one value into one layout are shared by all its uses, the user's
// own relayouts included (SPEC 3.6); a user relayout to the layout its
// operand already has is removed.

// Three uses need %x blocked: one copy. The user's relayout is that copy.
// CHECK-LABEL: func.func @shared(
// CHECK-NEXT:    %0 = "layout.relayout"(%x) : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, "aBcd16b">
// CHECK-NOT:     "layout.relayout"
// CHECK:         "func.return"
func.func @shared(%x: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, "nChw16c">) {
  %0 = "layout.op"(%x) {name = "a", variants = [["nChw16c", "nChw16c", 0]]} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>
  %1 = "layout.op"(%x) {name = "b", variants = [["nChw16c", "nChw16c", 0]]} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>
  %2 = "layout.relayout"(%x) : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, "nChw16c">
  "func.return"(%0, %1, %2) : (tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, "nChw16c">) -> ()
}

// Sharing changes the answer: alone, each consumer would rather run plain
// (its blocked variant saves 4000 < 4096 bytes of copy), but the copy is paid
// once for both (8000 saved).
// CHECK-LABEL: func.func @sharing_pays(
// CHECK-NEXT:    %0 = "layout.relayout"(%x) : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, "aBcd16b">
// CHECK-NEXT:    %1 = "layout.op"(%0) {name = "a", variants = {{\[\[}}"nChw16c", "any", 0]]}
// CHECK-NEXT:    %2 = "layout.op"(%0) {name = "b", variants = {{\[\[}}"nChw16c", "any", 0]]}
func.func @sharing_pays(%x: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, any>) {
  %0 = "layout.op"(%x) {name = "a", variants = [["nchw", "any", 4000], ["nChw16c", "any", 0]]} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>
  %1 = "layout.op"(%x) {name = "b", variants = [["nchw", "any", 4000], ["nChw16c", "any", 0]]} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>
  "func.return"(%0, %1) : (tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, any>) -> ()
}

// The relayout into the declared ABI result vanishes when the producer is
// chosen to produce that layout.
// CHECK-LABEL: func.func @user_relayout_removed(
// CHECK-NEXT:    %0 = "layout.op"(%x) {name = "p", variants = {{\[\[}}"any", "ba", 10]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:    "func.return"(%0) : (tensor<4x6xf32, "ba">) -> ()
func.func @user_relayout_removed(%x: tensor<4x6xf32>) -> tensor<4x6xf32, "ba"> {
  %0 = "layout.op"(%x) {name = "p", variants = [["any", "ab", 0], ["any", "ba", 10]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  %1 = "layout.relayout"(%0) : (tensor<4x6xf32, any>) -> tensor<4x6xf32, "ba">
  "func.return"(%1) : (tensor<4x6xf32, "ba">) -> ()
}
