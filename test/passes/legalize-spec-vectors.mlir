// RUN: layoutc opt %s --legalize-reshapes | FileCheck %s
// The reshape reference vectors of SPEC §3.3 as IR: each reshape becomes a
// layout.view whose type the view algebra computes, with no copy.
// (Vectors that need a copy in the strided world: legalize-relayout.mlir.)

// CHECK-LABEL: func.func @split_rows(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<4x6xf32, strided<[12,1]>>) -> tensor<2x2x6xf32, strided<[24,12,1]>>
// CHECK-NEXT:    "func.return"(%0) : (tensor<2x2x6xf32, strided<[24,12,1]>>) -> ()
func.func @split_rows(%a: tensor<4x6xf32, strided<[12,1]>>) -> tensor<2x2x6xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32, strided<[12,1]>>) -> tensor<2x2x6xf32, any>
  "func.return"(%0) : (tensor<2x2x6xf32, any>) -> ()
}

// CHECK-LABEL: func.func @join_inner(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<2x12xf32, strided<[24,1]>>
func.func @join_inner(%a: tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<2x12xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<2x12xf32, any>
  "func.return"(%0) : (tensor<2x12xf32, any>) -> ()
}

// A size-1 dim's stride does not matter (the canonical spelling gives it the
// next outer stride).
// CHECK-LABEL: func.func @drop_unit(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<3x1x4xf32, strided<[8,8,2]>>) -> tensor<12xf32, strided<[2]>>
func.func @drop_unit(%a: tensor<3x1x4xf32, strided<[8,100,2]>>) -> tensor<12xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<3x1x4xf32, strided<[8,100,2]>>) -> tensor<12xf32, any>
  "func.return"(%0) : (tensor<12xf32, any>) -> ()
}

// CHECK-LABEL: func.func @add_unit(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<6xf32, strided<[2]>>) -> tensor<2x1x3xf32, strided<[6,6,2]>>
func.func @add_unit(%a: tensor<6xf32, strided<[2]>>) -> tensor<2x1x3xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<6xf32, strided<[2]>>) -> tensor<2x1x3xf32, any>
  "func.return"(%0) : (tensor<2x1x3xf32, any>) -> ()
}

// CHECK-LABEL: func.func @unit_outer(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<1x8x4xf32>) -> tensor<32xf32>
func.func @unit_outer(%a: tensor<1x8x4xf32, strided<[999,4,1]>>) -> tensor<32xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<1x8x4xf32, strided<[999,4,1]>>) -> tensor<32xf32, any>
  "func.return"(%0) : (tensor<32xf32, any>) -> ()
}

// oneDNN's vectors: "ba" 6x2 -> 2x3x2 has strides [3,1,6] ("cab").
// CHECK-LABEL: func.func @onednn_ba(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<6x2xf32, "ba">) -> tensor<2x3x2xf32, "cab">
func.func @onednn_ba(%a: tensor<6x2xf32, "ba">) -> tensor<2x3x2xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<6x2xf32, "ba">) -> tensor<2x3x2xf32, any>
  "func.return"(%0) : (tensor<2x3x2xf32, any>) -> ()
}

// "bca" 15x3x4 -> 3x5x6x1x2: strides [5,1,30,30,15] ("cdeab").
// CHECK-LABEL: func.func @onednn_bca(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<15x3x4xf32, "bca">) -> tensor<3x5x6x1x2xf32, "cdeab">
func.func @onednn_bca(%a: tensor<15x3x4xf32, "bca">) -> tensor<3x5x6x1x2xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<15x3x4xf32, "bca">) -> tensor<3x5x6x1x2xf32, any>
  "func.return"(%0) : (tensor<3x5x6x1x2xf32, any>) -> ()
}

// Splitting the blocked C of "nChw16c" 2x32x4x5 into 2x2x16x4x5 is a plain
// strided view (oneDNN refuses it).
// CHECK-LABEL: func.func @split_block(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32, "abdec">
func.func @split_block(%a: tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any>
  "func.return"(%0) : (tensor<2x2x16x4x5xf32, any>) -> ()
}

// Joining "aBcd8b" 2x8x3x4 into 2x96 (one block of 8 holds all of C, so the
// canonical spelling is "acdb"): the joined dim has digits c:8 (stride 1)
// and h*4+w:12 (stride 8), i.e. h stride 32 and w stride 8.
// CHECK-LABEL: func.func @join_block(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x8x3x4xf32, "acdb">) -> tensor<2x96xf32, tiled_layout<<0,1>,(12),(8,1)>>
func.func @join_block(%a: tensor<2x8x3x4xf32, "aBcd8b">) -> tensor<2x96xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x8x3x4xf32, "aBcd8b">) -> tensor<2x96xf32, any>
  "func.return"(%0) : (tensor<2x96xf32, any>) -> ()
}

// The view algebra goes beyond strided views: 4x6 strided<[1,4]> -> 24 is a
// view with two digits on one dim (with --strided-views it is a relayout,
// see legalize-relayout.mlir).
// CHECK-LABEL: func.func @column_major_flatten(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<4x6xf32, "ba">) -> tensor<24xf32, tiled_layout<<0>,(6),(4,1)>>
func.func @column_major_flatten(%a: tensor<4x6xf32, strided<[1,4]>>) -> tensor<24xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32, strided<[1,4]>>) -> tensor<24xf32, any>
  "func.return"(%0) : (tensor<24xf32, any>) -> ()
}

// Padded rows: 4x6 strided<[12,1]> -> 24 (row 0 at 0..5, row 1 at 12..17).
// CHECK-LABEL: func.func @padded_rows(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<4x6xf32, strided<[12,1]>>) -> tensor<24xf32, layout<[(d0) floordiv 6 * 12, (d0) mod 6 * 1], size: 42>>
func.func @padded_rows(%a: tensor<4x6xf32, strided<[12,1]>>) -> tensor<24xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32, strided<[12,1]>>) -> tensor<24xf32, any>
  "func.return"(%0) : (tensor<24xf32, any>) -> ()
}

// CHECK-LABEL: func.func @outer_join(
// CHECK-NEXT:    %0 = "layout.view"(%a) : (tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<6x4xf32, layout<[(d0) floordiv 3 * 24, (d0) mod 3 * 4, (d1) * 1], size: 36>>
func.func @outer_join(%a: tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<6x4xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x3x4xf32, strided<[24,4,1]>>) -> tensor<6x4xf32, any>
  "func.return"(%0) : (tensor<6x4xf32, any>) -> ()
}
