func.func @mx(%a: tensor<32xf8E8M0FNU>, %b: tensor<3x5xf6E2M3FN, tiled_layout<<1,0>,(2,2)>>, %c: tensor<8xf6E3M2FN, strided<[2], offset: 1>>, %d: tensor<4x32xf4E2M1FN, "ba">) {
  return
}
