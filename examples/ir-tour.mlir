func.func @f(%a: tensor<2x32x4x5xf32, "nChw16c">, %x: tensor<4x6xf32>, %y: tensor<1x6xf32>)
    -> (tensor<2x2x16x5x4xf32, any>, tensor<4x6xf32, any>) {
  %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any>
  %1 = "layout.transpose"(%0) {permutation = [0, 1, 2, 4, 3]}
      : (tensor<2x2x16x4x5xf32, any>) -> tensor<2x2x16x5x4xf32, any>
  %2 = "layout.slice"(%x) {offsets = [0, 2], sizes = [4, 3]} : (tensor<4x6xf32>) -> tensor<4x3xf32, any>
  %3 = "layout.broadcast"(%y) : (tensor<1x6xf32>) -> tensor<4x6xf32, any>
  %4 = "layout.relayout"(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">   // an explicit copy
  %5 = "layout.view"(%x) : (tensor<4x6xf32>) -> tensor<24xf32>               // metadata only
  %6 = "layout.op"(%4, %3) {name = "add"} : (tensor<4x6xf32, "ba">, tensor<4x6xf32, any>) -> tensor<4x6xf32, any>
  "func.return"(%1, %6) : (tensor<2x2x16x5x4xf32, any>, tensor<4x6xf32, any>) -> ()
}
