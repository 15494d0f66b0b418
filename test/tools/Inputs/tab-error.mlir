func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
	return %b : tensor<4xf32>
}
