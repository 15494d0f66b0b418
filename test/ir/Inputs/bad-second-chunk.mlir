func.func @good(%a: tensor<4xf32>) -> tensor<4xf32> {
  "func.return"(%a) : (tensor<4xf32>) -> ()
}
// -----
// The error is on line 7 of the file.
func.func @bad(%a: tensor<4xf32>) -> tensor<4xf32> {
  "func.return"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> ()
}
