// RUN: layoutc opt %s | FileCheck %s
// Printing is a fixed point: print -> parse -> print gives the same text.
// RUN: layoutc opt %s -o %t.1.mlir
// RUN: layoutc opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: layoutc opt --emit=mlir %s | FileCheck %s --check-prefix=MLIR

// Ops with regions, in MLIR's generic form: properties, regions, attributes,
// signature. A region is one block; its label is printed when it has
// arguments. Values defined in a region are not seen outside it, so a
// sibling region may use the same names (mlir-opt prints them so).

// CHECK-LABEL: func.func @loop(%a: tensor<4xf32>, %lb: index, %ub: index) -> tensor<4xf32> {
// CHECK-NEXT:    %r = "foo.for"(%lb, %ub, %a) <{step = 1 : index}> ({
// CHECK-NEXT:    ^bb0(%i: index, %acc: tensor<4xf32>):
// CHECK-NEXT:      %0 = "layout.op"(%acc, %a) {name = "add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %1 = "foo.if"(%i) ({
// CHECK-NEXT:        %x = "layout.view"(%0) : (tensor<4xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:        "foo.yield"(%0) : (tensor<4xf32>) -> ()
// CHECK-NEXT:      }, {
// CHECK-NEXT:        %x = "layout.relayout"(%acc) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:        "foo.yield"(%x) : (tensor<4xf32>) -> ()
// CHECK-NEXT:      }) {tag} : (index) -> tensor<4xf32>
// CHECK-NEXT:      "foo.yield"(%1) : (tensor<4xf32>) -> ()
// CHECK-NEXT:    }) {unroll = 2} : (index, index, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    "foo.empty"() ({
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    "foo.bare"() ({
// CHECK-NEXT:      "foo.bar"() : () -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:    ^bb0(%2: index):
// CHECK-NEXT:      "foo.use"(%2, %r) : (index, tensor<4xf32>) -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    "func.return"(%r) : (tensor<4xf32>) -> ()
// CHECK-NEXT:  }

// MLIR numbers a block's values first, then each region of its ops from
// there: sibling regions reuse numbers, block arguments are %argN.
// MLIR-LABEL:  func.func @loop(%arg0: tensor<4xf32>, %arg1: index, %arg2: index) -> tensor<4xf32> {
// MLIR-NEXT:     %0 = "foo.for"(%arg1, %arg2, %arg0) <{step = 1 : index}> ({
// MLIR-NEXT:     ^bb0(%arg3: index, %arg4: tensor<4xf32>):
// MLIR-NEXT:       %1 = "layout.op"(%arg4, %arg0) {name = "add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MLIR-NEXT:       %2 = "foo.if"(%arg3) ({
// MLIR-NEXT:         %3 = "layout.view"(%1) : (tensor<4xf32>) -> tensor<2x2xf32>
// MLIR-NEXT:         "foo.yield"(%1) : (tensor<4xf32>) -> ()
// MLIR-NEXT:       }, {
// MLIR-NEXT:         %3 = "layout.relayout"(%arg4) : (tensor<4xf32>) -> tensor<4xf32>
// MLIR-NEXT:         "foo.yield"(%3) : (tensor<4xf32>) -> ()
// MLIR-NEXT:       }) {tag} : (index) -> tensor<4xf32>
// MLIR-NEXT:       "foo.yield"(%2) : (tensor<4xf32>) -> ()
// MLIR-NEXT:     }) {unroll = 2 : i64} : (index, index, tensor<4xf32>) -> tensor<4xf32>
// MLIR-NEXT:     "foo.empty"() ({
// MLIR-NEXT:     }) : () -> ()
// MLIR-NEXT:     "foo.bare"() ({
// MLIR-NEXT:       "foo.bar"() : () -> ()
// MLIR-NEXT:     }, {
// MLIR-NEXT:     ^bb0(%arg3: index):
// MLIR-NEXT:       "foo.use"(%arg3, %0) : (index, tensor<4xf32>) -> ()
// MLIR-NEXT:     }) : () -> ()
// MLIR-NEXT:     return %0 : tensor<4xf32>
// MLIR-NEXT:   }
func.func @loop(%a: tensor<4xf32>, %lb: index, %ub: index) -> tensor<4xf32> {
  %r = "foo.for"(%lb, %ub, %a) <{step = 1 : index}> ({
  ^bb0(%i: index, %acc: tensor<4xf32>):
    %0 = "layout.op"(%acc, %a) {name = "add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = "foo.if"(%i) ({
      %x = "layout.view"(%0) : (tensor<4xf32>) -> tensor<2x2xf32>
      "foo.yield"(%0) : (tensor<4xf32>) -> ()
    }, {
      %x = "layout.relayout"(%acc) : (tensor<4xf32>) -> tensor<4xf32>
      "foo.yield"(%x) : (tensor<4xf32>) -> ()
    }) {tag} : (index) -> tensor<4xf32>
    "foo.yield"(%1) : (tensor<4xf32>) -> ()
  }) {unroll = 2} : (index, index, tensor<4xf32>) -> tensor<4xf32>
  "foo.empty"() ({}) : () -> ()
  "foo.bare"() ({ "foo.bar"() : () -> () }, { ^bb0(%0: index): "foo.use"(%0, %r) : (index, tensor<4xf32>) -> () }) : () -> ()
  return %r : tensor<4xf32>
}
