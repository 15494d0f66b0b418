// RUN: layoutc opt %s --split-input-file --legalize-reshapes | FileCheck %s
// RUN: layoutc opt %s --split-input-file --legalize-reshapes --strided-views | FileCheck --check-prefix=STRIDED %s
// When the operand's layout admits no view, a layout.relayout to the layout
// the view algebra picks (lyTypeGetReshapeRelayout) goes first, then the view.

// Padding is in the way: C=20 is padded to 32 in "nChw16c", so n and c
// cannot join. The relayout keeps c blocked, by 4, which divides 20.
// CHECK-LABEL: func.func @padded_join(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<2x20x3x3xf32, "aBcd16b">) -> tensor<2x20x3x3xf32, "aBcd4b">
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<2x20x3x3xf32, "aBcd4b">) -> tensor<40x3x3xf32, "Abc4a">
// CHECK-NEXT:    "func.return"(%1) : (tensor<40x3x3xf32, "Abc4a">) -> ()
func.func @padded_join(%a: tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x3x3xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x3x3xf32, any>
  "func.return"(%0) : (tensor<40x3x3xf32, any>) -> ()
}

// -----
// Joining h and w of the same padded type is a view: the padding is on c.
// CHECK-LABEL: func.func @padded_keep(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x20x3x3xf32, "aBcd16b">) -> tensor<2x20x9xf32, "aBc16b">
func.func @padded_keep(%a: tensor<2x20x3x3xf32, "nChw16c">) -> tensor<2x20x9xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<2x20x9xf32, any>
  "func.return"(%0) : (tensor<2x20x9xf32, any>) -> ()
}

// -----
// The relayouted value is an ordinary value: later ops use the view.
// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<2x20x3x3xf32, "aBcd16b">) -> tensor<2x20x3x3xf32, "aBcd4b">
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<2x20x3x3xf32, "aBcd4b">) -> tensor<40x9xf32, "Ab4a">
// CHECK-NEXT:    %2 = "layout.view"(%1) : (tensor<40x9xf32, "Ab4a">) -> tensor<9x40xf32, "Ba4b">
// CHECK-NEXT:    %3 = "layout.op"(%2) {name = "matmul"} : (tensor<9x40xf32, "Ba4b">) -> tensor<9x40xf32, any>
func.func @chain(%a: tensor<2x20x3x3xf32, "nChw16c">) -> tensor<9x40xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x9xf32, any>
  %1 = "layout.transpose"(%0) {permutation = [1, 0]} : (tensor<40x9xf32, any>) -> tensor<9x40xf32, any>
  %2 = "layout.op"(%1) {name = "matmul"} : (tensor<9x40xf32, any>) -> tensor<9x40xf32, any>
  "func.return"(%2) : (tensor<9x40xf32, any>) -> ()
}

// -----
// A slice that starts inside a block of 16 and leaves it: no view of the
// blocked layout; row-major is the fallback target.
// CHECK-LABEL: func.func @slice_across_blocks(
// CHECK-NEXT:    %0 = "layout.relayout"(%a) : (tensor<2x32x3x3xf32, "aBcd16b">) -> tensor<2x32x3x3xf32>
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<2x32x3x3xf32>) -> tensor<2x5x3x3xf32, strided<[288,9,3,1], offset: 135>>
func.func @slice_across_blocks(%a: tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x5x3x3xf32, any> {
  %0 = "layout.slice"(%a) {offsets = [0, 15, 0, 0], sizes = [2, 5, 3, 3]} : (tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x5x3x3xf32, any>
  "func.return"(%0) : (tensor<2x5x3x3xf32, any>) -> ()
}

// -----
// With --strided-views a reshape is a view only in MLIR's strided form (one
// stride per dim), as in SPEC §3.3's reference vectors: 4x6 [1,4] -> 24 and
// 2x3x4 [24,4,1] -> 6x4 need a copy; 4x6 [12,1] -> 2x2x6 does not.
// CHECK-LABEL: func.func @strided_vectors(
// CHECK-NEXT:    %0 = "layout.view"(%cm) : (tensor<4x6xf32, "ba">) -> tensor<24xf32, tiled_layout<<0>,(6),(4,1)>>
// STRIDED-LABEL: func.func @strided_vectors(
// STRIDED-NEXT:    %0 = "layout.relayout"(%cm) : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32>
// STRIDED-NEXT:    %1 = "layout.view"(%0) : (tensor<4x6xf32>) -> tensor<24xf32>
// STRIDED-NEXT:    %2 = "layout.relayout"(%p) : (tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<2x3x4xf32>
// STRIDED-NEXT:    %3 = "layout.view"(%2) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// STRIDED-NEXT:    %4 = "layout.view"(%r) : (tensor<4x6xf32, strided<[12,1]>>) -> tensor<2x2x6xf32, strided<[24,12,1]>>
// STRIDED-NEXT:    %5 = "layout.relayout"(%b) : (tensor<2x8x3x4xf32, "acdb">) -> tensor<2x8x3x4xf32>
// STRIDED-NEXT:    %6 = "layout.view"(%5) : (tensor<2x8x3x4xf32>) -> tensor<2x96xf32>
func.func @strided_vectors(%cm: tensor<4x6xf32, strided<[1,4]>>, %p: tensor<2x3x4xf32, strided<[24,4,1]>>,
                           %r: tensor<4x6xf32, strided<[12,1]>>, %b: tensor<2x8x3x4xf32, "aBcd8b">) {
  %0 = "layout.reshape"(%cm) : (tensor<4x6xf32, strided<[1,4]>>) -> tensor<24xf32, any>
  %1 = "layout.reshape"(%p) : (tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<6x4xf32, any>
  %2 = "layout.reshape"(%r) : (tensor<4x6xf32, strided<[12,1]>>) -> tensor<2x2x6xf32, any>
  %3 = "layout.reshape"(%b) : (tensor<2x8x3x4xf32, "aBcd8b">) -> tensor<2x96xf32, any>
  "func.return"() : () -> ()
}
