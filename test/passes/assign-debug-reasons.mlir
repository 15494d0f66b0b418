// RUN: layoutc opt %s --assign-layouts --debug-reasons --verify-diagnostics
// --debug-reasons: a note at each chosen variant and each inserted relayout,
// and a remark (a note at the function) with the total cost, a lower bound
// and whether the answer is proven optimal.

// expected-note@+1 {{assign-layouts: total cost 36384 (relayout bytes 16384, variants 20000); lower bound 36384; proven optimal}}
func.func @f(%x: tensor<1x32x8x8xf32>, %w: tensor<32x32x3x3xf32, "OIhw16i16o">) -> tensor<1x32x8x8xf32, any> {
  // expected-note@+2 {{'layout.op' takes variant #1 of 2 (cost 20000)}}
  // expected-note@+1 {{'layout.op' needs an operand in tensor<1x32x8x8xf32, "aBcd16b">: a relayout from tensor<1x32x8x8xf32> (16384 bytes, shared by every use that needs it)}}
  %0 = "layout.op"(%x, %w) {name = "conv", variants = [["nchw", "oihw", "nchw", 50000], ["nChw16c", "OIhw16i16o", "nChw16c", 20000]]} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32, "OIhw16i16o">) -> tensor<1x32x8x8xf32, any>
  // expected-note@+1 {{'layout.relayout' is removed: its operand already is tensor<1x32x8x8xf32, "aBcd16b">}}
  %1 = "layout.relayout"(%0) : (tensor<1x32x8x8xf32, any>) -> tensor<1x32x8x8xf32, "nChw16c">
  "func.return"(%1) : (tensor<1x32x8x8xf32, "nChw16c">) -> ()
}
