func.func @f(%x: tensor<2x20x3x3xf32, "nChw16c">) -> (tensor<2x20x9xf32, any>, tensor<40x9xf32, any>) {
  %0 = "layout.reshape"(%x) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<2x20x9xf32, any>
  %1 = "layout.reshape"(%x) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x9xf32, any>
  "func.return"(%0, %1) : (tensor<2x20x9xf32, any>, tensor<40x9xf32, any>) -> ()
}
