func.func @f(%a: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2xf32, "bcdefghijklma">) -> (tensor<2x2x2x2x2x2x2x2x2x2x2x2x2xf32, "bcdefghijklma">) {
  "func.return"(%a) : (tensor<2x2x2x2x2x2x2x2x2x2x2x2x2xf32, "bcdefghijklma">) -> ()
}
