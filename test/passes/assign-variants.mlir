// RUN: layoutc opt %s --assign-layouts | FileCheck %s
// RUN: layoutc opt %s --assign-layouts | layoutc opt - --assign-layouts | FileCheck %s
// The pass picks one variant per op (the only one left in the output) for the
// least total of variant costs and relayout bytes, padding included.

// The blocked convolution runs 30000 cheaper; relayouting its input (16384
// bytes) pays off, the weights are already blocked.
// CHECK-LABEL: func.func @pick(
// CHECK-SAME:    -> tensor<1x32x8x8xf32, "aBcd16b">
// CHECK-NEXT:    %0 = "layout.relayout"(%x) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, "aBcd16b">
// CHECK-NEXT:    %1 = "layout.op"(%0, %w) {name = "conv", variants = {{\[\[}}"nChw16c", "OIhw16i16o", "nChw16c", 20000]]}
// CHECK-NEXT:    "func.return"(%1)
func.func @pick(%x: tensor<1x32x8x8xf32>, %w: tensor<32x32x3x3xf32, "OIhw16i16o">) -> tensor<1x32x8x8xf32, any> {
  %0 = "layout.op"(%x, %w) {name = "conv", variants = [["nchw", "oihw", "nchw", 50000], ["nChw16c", "OIhw16i16o", "nChw16c", 20000]]} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32, "OIhw16i16o">) -> tensor<1x32x8x8xf32, any>
  "func.return"(%0) : (tensor<1x32x8x8xf32, any>) -> ()
}

// The same convolution when running blocked saves less than the copy.
// CHECK-LABEL: func.func @keep_plain(
// CHECK-NEXT:    %0 = "layout.op"(%x, %w) {name = "conv", variants = {{\[\[}}"nchw", "oihw", "nchw", 50000]]}
func.func @keep_plain(%x: tensor<1x32x8x8xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x8x8xf32, any> {
  %0 = "layout.op"(%x, %w) {name = "conv", variants = [["nchw", "oihw", "nchw", 50000], ["nChw16c", "OIhw16i16o", "nChw16c", 20000]]} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x8x8xf32, any>
  "func.return"(%0) : (tensor<1x32x8x8xf32, any>) -> ()
}

// Padding makes a layout costlier: C = 24 pads to 32 in nChw16c (8192 bytes
// against 6144 in nChw8c), so at equal variant costs the 8-blocked one wins.
// CHECK-LABEL: func.func @padding(
// CHECK-NEXT:    %0 = "layout.relayout"(%x) : (tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32, "aBcd8b">
// CHECK-NEXT:    %1 = "layout.op"(%0) {name = "pool", variants = {{\[\[}}"nChw8c", "nChw8c", 0]]}
func.func @padding(%x: tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32, any> {
  %0 = "layout.op"(%x) {name = "pool", variants = [["nChw16c", "nChw16c", 0], ["nChw8c", "nChw8c", 0]]} : (tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32, any>
  "func.return"(%0) : (tensor<1x24x8x8xf32, any>) -> ()
}

// A variant's "any" takes the operand as it comes, and an "any" result is
// free: the consumer's layout is chosen for it.
// CHECK-LABEL: func.func @any_entries(
// CHECK-NEXT:    %0 = "layout.op"(%x) {name = "producer", variants = {{\[\[}}"any", "any", 0]]} : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32, "ba">
// CHECK-NEXT:    %1 = "layout.op"(%0) {name = "consumer", variants = {{\[\[}}"ba", "ab", 0]]} : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32>
func.func @any_entries(%x: tensor<4x6xf32, "ba">) -> tensor<4x6xf32, any> {
  %0 = "layout.op"(%x) {name = "producer", variants = [["any", "any", 0]]} : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32, any>
  %1 = "layout.op"(%0) {name = "consumer", variants = [["ba", "ab", 0]]} : (tensor<4x6xf32, any>) -> tensor<4x6xf32, any>
  "func.return"(%1) : (tensor<4x6xf32, any>) -> ()
}
