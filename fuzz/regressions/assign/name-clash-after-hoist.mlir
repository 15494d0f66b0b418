func.func @shared_relayout(%a: tensor<4x6xf32>) {
  "foo.region"() ({
    %c = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
    "foo.use"(%c) : (tensor<4x6xf32, "ba">) -> ()
  }) : () -> ()
  "foo.region"() ({
    %c = "foo.def"() : () -> tensor<4x6xf32, "ba">
    "foo.use"(%c) : (tensor<4x6xf32, "ba">) -> ()
  }) : () -> ()
  "layout.op"(%a) {name = "after", variants = [["ba", 0]]} : (tensor<4x6xf32>) -> ()
  return
}
