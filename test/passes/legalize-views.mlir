// RUN: layoutc opt %s --legalize-reshapes | FileCheck %s
// Transposes, slices and broadcasts become views of their operand's layout.

// A transpose of a blocked layout is a view. MLIR's convention: result dim i
// is operand dim perm[i].
// CHECK-LABEL: func.func @transpose_blocked(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x32x5x4xf32, "aBdc16b">
// CHECK-NEXT:    %1 = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<32x5x2x4xf32, "cAdb16a">
func.func @transpose_blocked(%a: tensor<2x32x4x5xf32, "nChw16c">) -> (tensor<2x32x5x4xf32, any>, tensor<32x5x2x4xf32, any>) {
  %0 = "layout.transpose"(%a) {permutation = [0, 1, 3, 2]} : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x32x5x4xf32, any>
  %1 = "layout.transpose"(%a) {permutation = [1, 3, 0, 2]} : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<32x5x2x4xf32, any>
  "func.return"(%0, %1) : (tensor<2x32x5x4xf32, any>, tensor<32x5x2x4xf32, any>) -> ()
}

// nchw -> nhwc as a view: the "acdb" order of an nchw buffer.
// CHECK-LABEL: func.func @transpose_plain(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32, "adbc">
func.func @transpose_plain(%a: tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32, any> {
  %0 = "layout.transpose"(%a) {permutation = [0, 2, 3, 1]} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32, any>
  "func.return"(%0) : (tensor<2x4x5x3xf32, any>) -> ()
}

// A transpose then a reshape that the transposed layout allows.
// CHECK-LABEL: func.func @transpose_then_reshape(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<6x4xf32>) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<4x6xf32, "ba">) -> tensor<4x2x3xf32, "bca">
func.func @transpose_then_reshape(%a: tensor<6x4xf32>) -> tensor<4x2x3xf32, any> {
  %0 = "layout.transpose"(%a) {permutation = [1, 0]} : (tensor<6x4xf32>) -> tensor<4x6xf32, any>
  %1 = "layout.reshape"(%0) : (tensor<4x6xf32, any>) -> tensor<4x2x3xf32, any>
  "func.return"(%1) : (tensor<4x2x3xf32, any>) -> ()
}

// A slice inside one block of 16: offset 4, size 8 on C of "nChw16c" stays
// in the first block, so it is a strided view with a base offset.
// CHECK-LABEL: func.func @slice_in_block(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x32x3x3xf32, "aBcd16b">) -> tensor<2x8x3x3xf32, strided<[288,1,48,16], offset: 4>>
func.func @slice_in_block(%a: tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x8x3x3xf32, any> {
  %0 = "layout.slice"(%a) {offsets = [0, 4, 0, 0], sizes = [2, 8, 3, 3]} : (tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x8x3x3xf32, any>
  "func.return"(%0) : (tensor<2x8x3x3xf32, any>) -> ()
}

// A slice of whole blocks (oneDNN submemory): one block of C is left, so
// the view is strided, at offset 1*288 + 1*144.
// CHECK-LABEL: func.func @slice_blocks(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x32x3x3xf32, "aBcd16b">) -> tensor<1x16x3x3xf32, strided<[16,1,48,16], offset: 432>>
func.func @slice_blocks(%a: tensor<2x32x3x3xf32, "nChw16c">) -> tensor<1x16x3x3xf32, any> {
  %0 = "layout.slice"(%a) {offsets = [1, 16, 0, 0], sizes = [1, 16, 3, 3]} : (tensor<2x32x3x3xf32, "nChw16c">) -> tensor<1x16x3x3xf32, any>
  "func.return"(%0) : (tensor<1x16x3x3xf32, any>) -> ()
}

// A slice of a strided layout.
// CHECK-LABEL: func.func @slice_strided(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<4x6xf32, "ba">) -> tensor<2x3xf32, strided<[1,4], offset: 9>>
func.func @slice_strided(%a: tensor<4x6xf32, strided<[1,4]>>) -> tensor<2x3xf32, any> {
  %0 = "layout.slice"(%a) {offsets = [1, 2], sizes = [2, 3]} : (tensor<4x6xf32, strided<[1,4]>>) -> tensor<2x3xf32, any>
  "func.return"(%0) : (tensor<2x3xf32, any>) -> ()
}

// Broadcasts are stride-0 views (NumPy rules: new leading dims, size-1 dims).
// CHECK-LABEL: func.func @broadcast(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<1x6xf32>) -> tensor<4x6xf32, strided<[0,1]>>
// CHECK-NEXT:    %1 = "layout.view"(%b) : (tensor<6xf32>) -> tensor<2x4x6xf32, strided<[0,0,1]>>
func.func @broadcast(%a: tensor<1x6xf32>, %b: tensor<6xf32>) -> (tensor<4x6xf32, any>, tensor<2x4x6xf32, any>) {
  %0 = "layout.broadcast"(%a) : (tensor<1x6xf32>) -> tensor<4x6xf32, any>
  %1 = "layout.broadcast"(%b) : (tensor<6xf32>) -> tensor<2x4x6xf32, any>
  "func.return"(%0, %1) : (tensor<4x6xf32, any>, tensor<2x4x6xf32, any>) -> ()
}

// Relayouts, views and compute ops are left alone.
// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:    %1 = "layout.view"(%a) : (tensor<4x6xf32>) -> tensor<24xf32>
// CHECK-NEXT:    %2 = "layout.op"(%0) {name = "relu"} : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32, any>
func.func @untouched(%a: tensor<4x6xf32>) -> tensor<4x6xf32, any> {
  %0 = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
  %1 = "layout.view"(%a) : (tensor<4x6xf32>) -> tensor<24xf32>
  %2 = "layout.op"(%0) {name = "relu"} : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32, any>
  "func.return"(%2) : (tensor<4x6xf32, any>) -> ()
}
