// RUN: layoutc opt %s --legalize-reshapes | FileCheck %s
// The result type the user wrote is honoured: `any` takes the view's layout;
// a concrete layout equal to the view's needs nothing more; a concrete layout
// that differs gets a layout.relayout after the view. That relayout defines
// the old result value, so its uses (and the function's signature) keep the
// declared type.

// CHECK-LABEL: func.func @declared_differs(%a: tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32> {
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32, "abdec">
// CHECK-NEXT:    %1 = "layout.relayout"(%0) : (tensor<2x2x16x4x5xf32, "abdec">) -> tensor<2x2x16x4x5xf32>
// CHECK-NEXT:    %2 = "layout.op"(%1) {name = "relu"} : (tensor<2x2x16x4x5xf32>) -> tensor<2x2x16x4x5xf32>
// CHECK-NEXT:    "func.return"(%2) : (tensor<2x2x16x4x5xf32>) -> ()
func.func @declared_differs(%a: tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32> {
  %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32>
  %1 = "layout.op"(%0) {name = "relu"} : (tensor<2x2x16x4x5xf32>) -> tensor<2x2x16x4x5xf32>
  "func.return"(%1) : (tensor<2x2x16x4x5xf32>) -> ()
}

// The declared layout is the view's: no copy.
// CHECK-LABEL: func.func @declared_same(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32, "abdec">
// CHECK-NEXT:    "func.return"(%0)
func.func @declared_same(%a: tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, "abdec"> {
  %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, "abdec">
  "func.return"(%0) : (tensor<2x2x16x4x5xf32, "abdec">) -> ()
}

// Named values keep their names; the view in between is numbered.
// CHECK-LABEL: func.func @named(
// CHECK-NEXT:    %0 = "layout.view"(%x) : (tensor<4x6xf32>) -> tensor<6x4xf32, "ba">
// CHECK-NEXT:    %xt = "layout.relayout"(%0) : (tensor<6x4xf32, "ba">) -> tensor<6x4xf32>
// CHECK-NEXT:    "func.return"(%xt) : (tensor<6x4xf32>) -> ()
func.func @named(%x: tensor<4x6xf32>) -> tensor<6x4xf32> {
  %xt = "layout.transpose"(%x) {permutation = [1, 0]} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  "func.return"(%xt) : (tensor<6x4xf32>) -> ()
}

// Both at once: padding is in the way, and the declared layout is not the
// view's. One copy does both: the operand is relayouted straight to the
// layout whose view is the declared result ("ba" 40x9 viewed back as
// 2x20x3x3 is "cdab").
// CHECK-LABEL: func.func @both(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<2x20x3x3xf32, "aBcd16b">) -> tensor<2x20x3x3xf32, "cdab">
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<2x20x3x3xf32, "cdab">) -> tensor<40x9xf32, "ba">
// CHECK-NEXT:    "func.return"(%1) : (tensor<40x9xf32, "ba">) -> ()
func.func @both(%a: tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x9xf32, "ba"> {
  %0 = "layout.reshape"(%a) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x9xf32, "ba">
  "func.return"(%0) : (tensor<40x9xf32, "ba">) -> ()
}

// The same for a slice, which has no inverse: relayout to the fallback
// (row-major), view, then relayout to the declared layout.
// CHECK-LABEL: func.func @slice_both(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<2x32x3x3xf32, "aBcd16b">) -> tensor<2x32x3x3xf32>
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<2x32x3x3xf32>) -> tensor<2x5x3x3xf32, strided<[288,9,3,1], offset: 135>>
// CHECK-NEXT:    %2 = "layout.relayout"(%1) : (tensor<2x5x3x3xf32, strided<[288,9,3,1], offset: 135>>) -> tensor<2x5x3x3xf32, "acdb">
func.func @slice_both(%a: tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x5x3x3xf32, "nhwc"> {
  %0 = "layout.slice"(%a) {offsets = [0, 15, 0, 0], sizes = [2, 5, 3, 3]} : (tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x5x3x3xf32, "nhwc">
  "func.return"(%0) : (tensor<2x5x3x3xf32, "nhwc">) -> ()
}
