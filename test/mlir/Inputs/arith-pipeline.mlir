func.func @step(%x: tensor<1x32x4x4xf32>, %n: index) -> (tensor<1x32x4x4xf32, #layout.any>, index) {
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  %y = "layout.op"(%x, %m) {name = "conv", variants = [["nChw16c", "any", "nChw16c", 10]]} : (tensor<1x32x4x4xf32>, index) -> tensor<1x32x4x4xf32, #layout.any>
  return %y, %m : tensor<1x32x4x4xf32, #layout.any>, index
}
