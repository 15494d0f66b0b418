func.func @first(%a: tensor<4xf32>) -> tensor<4xf32> {
  "func.return"(%a) : (tensor<4xf32>) -> ()
}
// -----
func.func @second(%a: tensor<4xf32>) -> tensor<4xf32> {
  "func.return"(%a) : (tensor<4xf32>) -> ()
}
