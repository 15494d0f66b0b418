func.func @transformer(%v0: tensor<128x768xf32>, %v1: tensor<768x768xf32, any>, %v5: tensor<768x768xf32, any>, %v9: tensor<768x768xf32, any>, %v18: tensor<768x768xf32, any>, %v22: tensor<768x3072xf32, any>, %v25: tensor<3072x768xf32, any>) -> tensor<128x768xf32> {
  %v2 = "layout.op"(%v0, %v1) {name = "matmul", variants = [["ab", "ab", "ab", 4718592], ["ab", "ba", "ab", 3145728], ["ab", "AB16b16a", "ab", 3774873]]} : (tensor<128x768xf32>, tensor<768x768xf32, any>) -> tensor<128x768xf32, any>
  %v3 = "layout.reshape"(%v2) : (tensor<128x768xf32, any>) -> tensor<128x12x64xf32, any>
  %v4 = "layout.transpose"(%v3) {permutation = [1, 0, 2]} : (tensor<128x12x64xf32, any>) -> tensor<12x128x64xf32, any>
  %v6 = "layout.op"(%v0, %v5) {name = "matmul", variants = [["ab", "ab", "ab", 4718592], ["ab", "ba", "ab", 3145728], ["ab", "AB16b16a", "ab", 3774873]]} : (tensor<128x768xf32>, tensor<768x768xf32, any>) -> tensor<128x768xf32, any>
  %v7 = "layout.reshape"(%v6) : (tensor<128x768xf32, any>) -> tensor<128x12x64xf32, any>
  %v8 = "layout.transpose"(%v7) {permutation = [1, 2, 0]} : (tensor<128x12x64xf32, any>) -> tensor<12x64x128xf32, any>
  %v10 = "layout.op"(%v0, %v9) {name = "matmul", variants = [["ab", "ab", "ab", 4718592], ["ab", "ba", "ab", 3145728], ["ab", "AB16b16a", "ab", 3774873]]} : (tensor<128x768xf32>, tensor<768x768xf32, any>) -> tensor<128x768xf32, any>
  %v11 = "layout.reshape"(%v10) : (tensor<128x768xf32, any>) -> tensor<128x12x64xf32, any>
  %v12 = "layout.transpose"(%v11) {permutation = [1, 0, 2]} : (tensor<128x12x64xf32, any>) -> tensor<12x128x64xf32, any>
  %v13 = "layout.op"(%v4, %v8) {name = "bmm", variants = [["abc", "abc", "abc", 786432], ["bac", "cab", "abc", 898779]]} : (tensor<12x128x64xf32, any>, tensor<12x64x128xf32, any>) -> tensor<12x128x128xf32, any>
  %v14 = "layout.op"(%v13) {name = "softmax", elementwise = true} : (tensor<12x128x128xf32, any>) -> tensor<12x128x128xf32, any>
  %v15 = "layout.op"(%v14, %v12) {name = "bmm", variants = [["abc", "abc", "abc", 786432], ["abc", "bac", "abc", 898779], ["abc", "bac", "bac", 967916]]} : (tensor<12x128x128xf32, any>, tensor<12x128x64xf32, any>) -> tensor<12x128x64xf32, any>
  %v16 = "layout.transpose"(%v15) {permutation = [1, 0, 2]} : (tensor<12x128x64xf32, any>) -> tensor<128x12x64xf32, any>
  %v17 = "layout.reshape"(%v16) : (tensor<128x12x64xf32, any>) -> tensor<128x768xf32, any>
  %v19 = "layout.op"(%v17, %v18) {name = "matmul", variants = [["ab", "ab", "ab", 4718592], ["ab", "ba", "ab", 3145728], ["ab", "AB16b16a", "ab", 3774873]]} : (tensor<128x768xf32, any>, tensor<768x768xf32, any>) -> tensor<128x768xf32, any>
  %v20 = "layout.op"(%v19, %v0) {name = "add", elementwise = true} : (tensor<128x768xf32, any>, tensor<128x768xf32>) -> tensor<128x768xf32, any>
  %v21 = "layout.op"(%v20) {name = "layernorm", variants = [["ab", "ab", 49152], ["ba", "ab", 196608]]} : (tensor<128x768xf32, any>) -> tensor<128x768xf32, any>
  %v23 = "layout.op"(%v21, %v22) {name = "matmul", variants = [["ab", "ab", "ab", 18874368], ["ab", "ba", "ab", 12582912], ["ab", "AB16b16a", "ab", 15099494]]} : (tensor<128x768xf32, any>, tensor<768x3072xf32, any>) -> tensor<128x3072xf32, any>
  %v24 = "layout.op"(%v23) {name = "gelu", elementwise = true} : (tensor<128x3072xf32, any>) -> tensor<128x3072xf32, any>
  %v26 = "layout.op"(%v24, %v25) {name = "matmul", variants = [["ab", "ab", "ab", 18874368], ["ab", "ba", "ab", 12582912], ["ab", "AB16b16a", "ab", 15099494]]} : (tensor<128x3072xf32, any>, tensor<3072x768xf32, any>) -> tensor<128x768xf32, any>
  %v27 = "layout.op"(%v26, %v21) {name = "add", elementwise = true} : (tensor<128x768xf32, any>, tensor<128x768xf32, any>) -> tensor<128x768xf32, any>
  %v28 = "layout.op"(%v27) {name = "layernorm", variants = [["ab", "ab", 49152], ["ba", "ab", 196608]]} : (tensor<128x768xf32, any>) -> tensor<128x768xf32, any>
  %v29 = "layout.relayout"(%v28) : (tensor<128x768xf32, any>) -> tensor<128x768xf32>
  "func.return"(%v29) : (tensor<128x768xf32>) -> ()
}
