// A loop as a real MLIR pipeline writes it: scf.for with a tensor carried
// through iter_args, a layout op inside the loop body.
func.func @loop(%a: tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>, %n: index) -> tensor<2x32x4x5xf32, #layout.tag<"nChw16c">> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>) {
    %v = "layout.reshape"(%acc) : (tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>) -> tensor<2x2x16x4x5xf32, #layout.any>
    %s = "layout.op"(%v, %acc) {name = "step", variants = [["any", "nchw", "nChw16c", 0]]} : (tensor<2x2x16x4x5xf32, #layout.any>, tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>) -> tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>
    scf.yield %s : tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>
  }
  return %r : tensor<2x32x4x5xf32, #layout.tag<"nChw16c">>
}
