func.func @resnet(%v0: tensor<1x3x224x224xf32>, %v1: tensor<64x3x7x7xf32>, %v4: tensor<64x64x1x1xf32>, %v6: tensor<64x64x3x3xf32>, %v8: tensor<256x64x1x1xf32>, %v10: tensor<256x64x1x1xf32>, %v13: tensor<64x256x1x1xf32>, %v15: tensor<64x64x3x3xf32>, %v17: tensor<256x64x1x1xf32>, %v20: tensor<64x256x1x1xf32>, %v22: tensor<64x64x3x3xf32>, %v24: tensor<256x64x1x1xf32>, %v27: tensor<128x256x1x1xf32>, %v29: tensor<128x128x3x3xf32>, %v31: tensor<512x128x1x1xf32>, %v33: tensor<512x256x1x1xf32>, %v36: tensor<128x512x1x1xf32>, %v38: tensor<128x128x3x3xf32>, %v40: tensor<512x128x1x1xf32>, %v43: tensor<128x512x1x1xf32>, %v45: tensor<128x128x3x3xf32>, %v47: tensor<512x128x1x1xf32>, %v50: tensor<128x512x1x1xf32>, %v52: tensor<128x128x3x3xf32>, %v54: tensor<512x128x1x1xf32>, %v57: tensor<256x512x1x1xf32>, %v59: tensor<256x256x3x3xf32>, %v61: tensor<1024x256x1x1xf32>, %v63: tensor<1024x512x1x1xf32>, %v66: tensor<256x1024x1x1xf32>, %v68: tensor<256x256x3x3xf32>, %v70: tensor<1024x256x1x1xf32>, %v73: tensor<256x1024x1x1xf32>, %v75: tensor<256x256x3x3xf32>, %v77: tensor<1024x256x1x1xf32>, %v80: tensor<256x1024x1x1xf32>, %v82: tensor<256x256x3x3xf32>, %v84: tensor<1024x256x1x1xf32>, %v87: tensor<256x1024x1x1xf32>, %v89: tensor<256x256x3x3xf32>, %v91: tensor<1024x256x1x1xf32>, %v94: tensor<256x1024x1x1xf32>, %v96: tensor<256x256x3x3xf32>, %v98: tensor<1024x256x1x1xf32>, %v101: tensor<512x1024x1x1xf32>, %v103: tensor<512x512x3x3xf32>, %v105: tensor<2048x512x1x1xf32>, %v107: tensor<2048x1024x1x1xf32>, %v110: tensor<512x2048x1x1xf32>, %v112: tensor<512x512x3x3xf32>, %v114: tensor<2048x512x1x1xf32>, %v117: tensor<512x2048x1x1xf32>, %v119: tensor<512x512x3x3xf32>, %v121: tensor<2048x512x1x1xf32>, %v126: tensor<2048x1000xf32>) -> tensor<1x1000xf32> {
  %0 = "layout.relayout"(%v1) : (tensor<64x3x7x7xf32>) -> tensor<64x3x7x7xf32, "Acdb16a">
  %v2 = "layout.op"(%v0, %0) {name = "conv7x7", variants = [["nchw", "Ohwi16o", "nChw16c", 2107392]]} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32, "Acdb16a">) -> tensor<1x64x112x112xf32, "aBcd16b">
  %v3 = "layout.op"(%v2) {name = "maxpool", variants = [["nChw16c", "nChw16c", 100352]]} : (tensor<1x64x112x112xf32, "aBcd16b">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %1 = "layout.relayout"(%v4) : (tensor<64x64x1x1xf32>) -> tensor<64x64x1x1xf32, "Abcd16a">
  %v5 = "layout.op"(%v3, %1) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 200704]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<64x64x1x1xf32, "Abcd16a">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %2 = "layout.relayout"(%v6) : (tensor<64x64x3x3xf32>) -> tensor<64x64x3x3xf32, "ABcd16b16a">
  %v7 = "layout.op"(%v5, %2) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<64x64x3x3xf32, "ABcd16b16a">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %3 = "layout.relayout"(%v8) : (tensor<256x64x1x1xf32>) -> tensor<256x64x1x1xf32, "Abcd16a">
  %v9 = "layout.op"(%v7, %3) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<256x64x1x1xf32, "Abcd16a">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %4 = "layout.relayout"(%v10) : (tensor<256x64x1x1xf32>) -> tensor<256x64x1x1xf32, "Abcd16a">
  %v11 = "layout.op"(%v3, %4) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<256x64x1x1xf32, "Abcd16a">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %v12 = "layout.op"(%v9, %v11) {name = "add_relu", elementwise = true} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<1x256x56x56xf32, "aBcd16b">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %5 = "layout.relayout"(%v13) : (tensor<64x256x1x1xf32>) -> tensor<64x256x1x1xf32, "Abcd16a">
  %v14 = "layout.op"(%v12, %5) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<64x256x1x1xf32, "Abcd16a">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %6 = "layout.relayout"(%v15) : (tensor<64x64x3x3xf32>) -> tensor<64x64x3x3xf32, "ABcd16b16a">
  %v16 = "layout.op"(%v14, %6) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<64x64x3x3xf32, "ABcd16b16a">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %7 = "layout.relayout"(%v17) : (tensor<256x64x1x1xf32>) -> tensor<256x64x1x1xf32, "Abcd16a">
  %v18 = "layout.op"(%v16, %7) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<256x64x1x1xf32, "Abcd16a">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %v19 = "layout.op"(%v18, %v12) {name = "add_relu", elementwise = true} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<1x256x56x56xf32, "aBcd16b">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %8 = "layout.relayout"(%v20) : (tensor<64x256x1x1xf32>) -> tensor<64x256x1x1xf32, "Abcd16a">
  %v21 = "layout.op"(%v19, %8) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<64x256x1x1xf32, "Abcd16a">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %9 = "layout.relayout"(%v22) : (tensor<64x64x3x3xf32>) -> tensor<64x64x3x3xf32, "ABcd16b16a">
  %v23 = "layout.op"(%v21, %9) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<64x64x3x3xf32, "ABcd16b16a">) -> tensor<1x64x56x56xf32, "aBcd16b">
  %10 = "layout.relayout"(%v24) : (tensor<256x64x1x1xf32>) -> tensor<256x64x1x1xf32, "Abcd16a">
  %v25 = "layout.op"(%v23, %10) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x64x56x56xf32, "aBcd16b">, tensor<256x64x1x1xf32, "Abcd16a">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %v26 = "layout.op"(%v25, %v19) {name = "add_relu", elementwise = true} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<1x256x56x56xf32, "aBcd16b">) -> tensor<1x256x56x56xf32, "aBcd16b">
  %11 = "layout.relayout"(%v27) : (tensor<128x256x1x1xf32>) -> tensor<128x256x1x1xf32, "Abcd16a">
  %v28 = "layout.op"(%v26, %11) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1605632]]} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<128x256x1x1xf32, "Abcd16a">) -> tensor<1x128x56x56xf32, "aBcd16b">
  %12 = "layout.relayout"(%v29) : (tensor<128x128x3x3xf32>) -> tensor<128x128x3x3xf32, "ABcd16b16a">
  %v30 = "layout.op"(%v28, %12) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x128x56x56xf32, "aBcd16b">, tensor<128x128x3x3xf32, "ABcd16b16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %13 = "layout.relayout"(%v31) : (tensor<512x128x1x1xf32>) -> tensor<512x128x1x1xf32, "Abcd16a">
  %v32 = "layout.op"(%v30, %13) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<512x128x1x1xf32, "Abcd16a">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %14 = "layout.relayout"(%v33) : (tensor<512x256x1x1xf32>) -> tensor<512x256x1x1xf32, "Abcd16a">
  %v34 = "layout.op"(%v26, %14) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1605632]]} : (tensor<1x256x56x56xf32, "aBcd16b">, tensor<512x256x1x1xf32, "Abcd16a">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %v35 = "layout.op"(%v32, %v34) {name = "add_relu", elementwise = true} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<1x512x28x28xf32, "aBcd16b">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %15 = "layout.relayout"(%v36) : (tensor<128x512x1x1xf32>) -> tensor<128x512x1x1xf32, "Abcd16a">
  %v37 = "layout.op"(%v35, %15) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<128x512x1x1xf32, "Abcd16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %16 = "layout.relayout"(%v38) : (tensor<128x128x3x3xf32>) -> tensor<128x128x3x3xf32, "ABcd16b16a">
  %v39 = "layout.op"(%v37, %16) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<128x128x3x3xf32, "ABcd16b16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %17 = "layout.relayout"(%v40) : (tensor<512x128x1x1xf32>) -> tensor<512x128x1x1xf32, "Abcd16a">
  %v41 = "layout.op"(%v39, %17) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<512x128x1x1xf32, "Abcd16a">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %v42 = "layout.op"(%v41, %v35) {name = "add_relu", elementwise = true} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<1x512x28x28xf32, "aBcd16b">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %18 = "layout.relayout"(%v43) : (tensor<128x512x1x1xf32>) -> tensor<128x512x1x1xf32, "Abcd16a">
  %v44 = "layout.op"(%v42, %18) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<128x512x1x1xf32, "Abcd16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %19 = "layout.relayout"(%v45) : (tensor<128x128x3x3xf32>) -> tensor<128x128x3x3xf32, "ABcd16b16a">
  %v46 = "layout.op"(%v44, %19) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<128x128x3x3xf32, "ABcd16b16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %20 = "layout.relayout"(%v47) : (tensor<512x128x1x1xf32>) -> tensor<512x128x1x1xf32, "Abcd16a">
  %v48 = "layout.op"(%v46, %20) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<512x128x1x1xf32, "Abcd16a">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %v49 = "layout.op"(%v48, %v42) {name = "add_relu", elementwise = true} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<1x512x28x28xf32, "aBcd16b">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %21 = "layout.relayout"(%v50) : (tensor<128x512x1x1xf32>) -> tensor<128x512x1x1xf32, "Abcd16a">
  %v51 = "layout.op"(%v49, %21) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<128x512x1x1xf32, "Abcd16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %22 = "layout.relayout"(%v52) : (tensor<128x128x3x3xf32>) -> tensor<128x128x3x3xf32, "ABcd16b16a">
  %v53 = "layout.op"(%v51, %22) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<128x128x3x3xf32, "ABcd16b16a">) -> tensor<1x128x28x28xf32, "aBcd16b">
  %23 = "layout.relayout"(%v54) : (tensor<512x128x1x1xf32>) -> tensor<512x128x1x1xf32, "Abcd16a">
  %v55 = "layout.op"(%v53, %23) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x128x28x28xf32, "aBcd16b">, tensor<512x128x1x1xf32, "Abcd16a">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %v56 = "layout.op"(%v55, %v49) {name = "add_relu", elementwise = true} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<1x512x28x28xf32, "aBcd16b">) -> tensor<1x512x28x28xf32, "aBcd16b">
  %24 = "layout.relayout"(%v57) : (tensor<256x512x1x1xf32>) -> tensor<256x512x1x1xf32, "Abcd16a">
  %v58 = "layout.op"(%v56, %24) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1605632]]} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<256x512x1x1xf32, "Abcd16a">) -> tensor<1x256x28x28xf32, "aBcd16b">
  %25 = "layout.relayout"(%v59) : (tensor<256x256x3x3xf32>) -> tensor<256x256x3x3xf32, "ABcd16b16a">
  %v60 = "layout.op"(%v58, %25) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x256x28x28xf32, "aBcd16b">, tensor<256x256x3x3xf32, "ABcd16b16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %26 = "layout.relayout"(%v61) : (tensor<1024x256x1x1xf32>) -> tensor<1024x256x1x1xf32, "Abcd16a">
  %v62 = "layout.op"(%v60, %26) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<1024x256x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %27 = "layout.relayout"(%v63) : (tensor<1024x512x1x1xf32>) -> tensor<1024x512x1x1xf32, "Abcd16a">
  %v64 = "layout.op"(%v56, %27) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1605632]]} : (tensor<1x512x28x28xf32, "aBcd16b">, tensor<1024x512x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %v65 = "layout.op"(%v62, %v64) {name = "add_relu", elementwise = true} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %28 = "layout.relayout"(%v66) : (tensor<256x1024x1x1xf32>) -> tensor<256x1024x1x1xf32, "Abcd16a">
  %v67 = "layout.op"(%v65, %28) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<256x1024x1x1xf32, "Abcd16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %29 = "layout.relayout"(%v68) : (tensor<256x256x3x3xf32>) -> tensor<256x256x3x3xf32, "ABcd16b16a">
  %v69 = "layout.op"(%v67, %29) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<256x256x3x3xf32, "ABcd16b16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %30 = "layout.relayout"(%v70) : (tensor<1024x256x1x1xf32>) -> tensor<1024x256x1x1xf32, "Abcd16a">
  %v71 = "layout.op"(%v69, %30) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<1024x256x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %v72 = "layout.op"(%v71, %v65) {name = "add_relu", elementwise = true} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %31 = "layout.relayout"(%v73) : (tensor<256x1024x1x1xf32>) -> tensor<256x1024x1x1xf32, "Abcd16a">
  %v74 = "layout.op"(%v72, %31) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<256x1024x1x1xf32, "Abcd16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %32 = "layout.relayout"(%v75) : (tensor<256x256x3x3xf32>) -> tensor<256x256x3x3xf32, "ABcd16b16a">
  %v76 = "layout.op"(%v74, %32) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<256x256x3x3xf32, "ABcd16b16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %33 = "layout.relayout"(%v77) : (tensor<1024x256x1x1xf32>) -> tensor<1024x256x1x1xf32, "Abcd16a">
  %v78 = "layout.op"(%v76, %33) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<1024x256x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %v79 = "layout.op"(%v78, %v72) {name = "add_relu", elementwise = true} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %34 = "layout.relayout"(%v80) : (tensor<256x1024x1x1xf32>) -> tensor<256x1024x1x1xf32, "Abcd16a">
  %v81 = "layout.op"(%v79, %34) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<256x1024x1x1xf32, "Abcd16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %35 = "layout.relayout"(%v82) : (tensor<256x256x3x3xf32>) -> tensor<256x256x3x3xf32, "ABcd16b16a">
  %v83 = "layout.op"(%v81, %35) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<256x256x3x3xf32, "ABcd16b16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %36 = "layout.relayout"(%v84) : (tensor<1024x256x1x1xf32>) -> tensor<1024x256x1x1xf32, "Abcd16a">
  %v85 = "layout.op"(%v83, %36) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<1024x256x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %v86 = "layout.op"(%v85, %v79) {name = "add_relu", elementwise = true} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %37 = "layout.relayout"(%v87) : (tensor<256x1024x1x1xf32>) -> tensor<256x1024x1x1xf32, "Abcd16a">
  %v88 = "layout.op"(%v86, %37) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<256x1024x1x1xf32, "Abcd16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %38 = "layout.relayout"(%v89) : (tensor<256x256x3x3xf32>) -> tensor<256x256x3x3xf32, "ABcd16b16a">
  %v90 = "layout.op"(%v88, %38) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<256x256x3x3xf32, "ABcd16b16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %39 = "layout.relayout"(%v91) : (tensor<1024x256x1x1xf32>) -> tensor<1024x256x1x1xf32, "Abcd16a">
  %v92 = "layout.op"(%v90, %39) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<1024x256x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %v93 = "layout.op"(%v92, %v86) {name = "add_relu", elementwise = true} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %40 = "layout.relayout"(%v94) : (tensor<256x1024x1x1xf32>) -> tensor<256x1024x1x1xf32, "Abcd16a">
  %v95 = "layout.op"(%v93, %40) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<256x1024x1x1xf32, "Abcd16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %41 = "layout.relayout"(%v96) : (tensor<256x256x3x3xf32>) -> tensor<256x256x3x3xf32, "ABcd16b16a">
  %v97 = "layout.op"(%v95, %41) {name = "conv3x3", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 1806336]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<256x256x3x3xf32, "ABcd16b16a">) -> tensor<1x256x14x14xf32, "aBcd16b">
  %42 = "layout.relayout"(%v98) : (tensor<1024x256x1x1xf32>) -> tensor<1024x256x1x1xf32, "Abcd16a">
  %v99 = "layout.op"(%v97, %42) {name = "conv1x1", variants = [["nChw16c", "OIhw16i16o", "nChw16c", 802816]]} : (tensor<1x256x14x14xf32, "aBcd16b">, tensor<1024x256x1x1xf32, "Abcd16a">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %v100 = "layout.op"(%v99, %v93) {name = "add_relu", elementwise = true} : (tensor<1x1024x14x14xf32, "aBcd16b">, tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32, "aBcd16b">
  %43 = "layout.relayout"(%v100) : (tensor<1x1024x14x14xf32, "aBcd16b">) -> tensor<1x1024x14x14xf32>
  %v102 = "layout.op"(%43, %v101) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 6422528]]} : (tensor<1x1024x14x14xf32>, tensor<512x1024x1x1xf32>) -> tensor<1x512x14x14xf32>
  %v104 = "layout.op"(%v102, %v103) {name = "conv3x3", variants = [["nchw", "oihw", "nchw", 7225344]]} : (tensor<1x512x14x14xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %v106 = "layout.op"(%v104, %v105) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 3211264]]} : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %v108 = "layout.op"(%43, %v107) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 6422528]]} : (tensor<1x1024x14x14xf32>, tensor<2048x1024x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %v109 = "layout.op"(%v106, %v108) {name = "add_relu", elementwise = true} : (tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32>
  %v111 = "layout.op"(%v109, %v110) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 3211264]]} : (tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>) -> tensor<1x512x7x7xf32>
  %v113 = "layout.op"(%v111, %v112) {name = "conv3x3", variants = [["nchw", "oihw", "nchw", 7225344]]} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %v115 = "layout.op"(%v113, %v114) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 3211264]]} : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %v116 = "layout.op"(%v115, %v109) {name = "add_relu", elementwise = true} : (tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32>
  %v118 = "layout.op"(%v116, %v117) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 3211264]]} : (tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>) -> tensor<1x512x7x7xf32>
  %v120 = "layout.op"(%v118, %v119) {name = "conv3x3", variants = [["nchw", "oihw", "nchw", 7225344]]} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %v122 = "layout.op"(%v120, %v121) {name = "conv1x1", variants = [["nchw", "oihw", "nchw", 3211264]]} : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %v123 = "layout.op"(%v122, %v116) {name = "add_relu", elementwise = true} : (tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32>
  %v124 = "layout.op"(%v123) {name = "avgpool", variants = [["nchw", "nchw", 50176]]} : (tensor<1x2048x7x7xf32>) -> tensor<1x2048x1x1xf32>
  %v125 = "layout.view"(%v124) : (tensor<1x2048x1x1xf32>) -> tensor<1x2048xf32>
  %v127 = "layout.op"(%v125, %v126) {name = "fc", variants = [["ab", "ab", "ab", 64000]]} : (tensor<1x2048xf32>, tensor<2048x1000xf32>) -> tensor<1x1000xf32>
  "func.return"(%v127) : (tensor<1x1000xf32>) -> ()
}
