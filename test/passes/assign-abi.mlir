// RUN: layoutc opt %s --assign-layouts | FileCheck %s
// Declared layouts of arguments and results are the ABI: they never change.
// Those declared `any` are chosen, and the signature shows the choice.

// The argument is declared plain: it stays plain and is copied for the
// blocked op; the `any` argument is chosen blocked, at no copy.
// CHECK-LABEL: func.func @abi(%x: tensor<1x32x4x4xf32>, %y: tensor<1x32x4x4xf32, "aBcd16b">) -> (tensor<1x32x4x4xf32>, tensor<1x32x4x4xf32, "aBcd16b">)
// CHECK-NEXT:    %0 = "layout.relayout"(%x) : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, "aBcd16b">
// CHECK-NEXT:    %1 = "layout.op"(%0, %y)
// CHECK-NEXT:    %2 = "layout.relayout"(%1) : (tensor<1x32x4x4xf32, "aBcd16b">) -> tensor<1x32x4x4xf32>
// CHECK-NEXT:    "func.return"(%2, %1) : (tensor<1x32x4x4xf32>, tensor<1x32x4x4xf32, "aBcd16b">) -> ()
func.func @abi(%x: tensor<1x32x4x4xf32>, %y: tensor<1x32x4x4xf32, any>) -> (tensor<1x32x4x4xf32>, tensor<1x32x4x4xf32, any>) {
  %0 = "layout.op"(%x, %y) {name = "add", variants = [["nChw16c", "nChw16c", "nChw16c", 0]]} : (tensor<1x32x4x4xf32>, tensor<1x32x4x4xf32, any>) -> tensor<1x32x4x4xf32, any>
  %1 = "layout.relayout"(%0) : (tensor<1x32x4x4xf32, any>) -> tensor<1x32x4x4xf32>
  "func.return"(%1, %0) : (tensor<1x32x4x4xf32>, tensor<1x32x4x4xf32, any>) -> ()
}

// Nothing constrains an opaque op's result or an `any` argument: row-major
// is as good as anything, and chosen.
// CHECK-LABEL: func.func @free(%a: tensor<3x5xf32>) -> tensor<5x7xf32>
// CHECK-NEXT:    %0 = "layout.op"(%a) {name = "f"} : (tensor<3x5xf32>) -> tensor<5x7xf32>
func.func @free(%a: tensor<3x5xf32, any>) -> tensor<5x7xf32, any> {
  %0 = "layout.op"(%a) {name = "f"} : (tensor<3x5xf32, any>) -> tensor<5x7xf32, any>
  "func.return"(%0) : (tensor<5x7xf32, any>) -> ()
}

// A declaration's signature belongs to its definition, elsewhere: the pass
// leaves it as written, `any` included (docs/ir.md), and both its arguments
// and its results stay as declared.
// CHECK-LABEL: func.func private @external(tensor<4xf32, any>, tensor<4xf32, any>) -> tensor<4xf32, any>
// CHECK-LABEL: func.func @after(%x: tensor<4xf32>)
func.func private @external(tensor<4xf32, any>, tensor<4xf32, any>) -> tensor<4xf32, any>
func.func @after(%x: tensor<4xf32, any>) -> tensor<4xf32, any> {
  "func.return"(%x) : (tensor<4xf32, any>) -> ()
}

// A dialect type may spell `any` inside it (`!foo.buffer<4, any>`, as memref<4xf32, any> would): it is not a tensor layout and is
// left alone, while the tensor beside it is chosen.
// CHECK-LABEL: func.func @dialect(%m: !foo.buffer<4, any>, %x: tensor<4xf32>) -> tensor<4xf32>
func.func @dialect(%m: !foo.buffer<4, any>, %x: tensor<4xf32, any>) -> tensor<4xf32, any> {
  "func.return"(%x) : (tensor<4xf32, any>) -> ()
}
