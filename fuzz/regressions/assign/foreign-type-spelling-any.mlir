func.func @f(%m: memref<4xf32, any>, %x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
