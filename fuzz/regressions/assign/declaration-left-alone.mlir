func.func private @d(tensor<4xf32, any>) -> tensor<4xf32, any>
