func.func @f(%m: !foo.buffer<4, any>, %x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
