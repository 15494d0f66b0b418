// RUN: layoutc opt %s --assign-layouts --dump-pbqp=%t > /dev/null
// RUN: FileCheck %s < %t
// RUN: not layoutc opt %s --dump-pbqp=%t 2>&1 | FileCheck --check-prefix=USAGE %s
// '-' is standard output (as for -o), before the function the pass returns:
// RUN: layoutc opt %s --assign-layouts --dump-pbqp=- | FileCheck --check-prefix=STDOUT %s
// RUN: rm -rf %t.dir && mkdir %t.dir && cd %t.dir && layoutc opt %s --assign-layouts --dump-pbqp=- -o - > /dev/null && not ls %t.dir/-
// STDOUT: pbqp @sharing_pays nodes 6 edges 5
// STDOUT: func.func @sharing_pays(
// --dump-pbqp writes the PBQP assign-layouts builds and the answer it chose
// (docs/passes.md, "Dumping the PBQP"): here the shared copy of %x into the
// blocked layout is one two-choice node, which each blocked variant requires
// (inf), paid once by its edge to %x (2048 + 2048 bytes). A transpose's
// result has one candidate, the view of its operand's only one.

// CHECK:      pbqp @sharing_pays nodes 6 edges 5
// CHECK-NEXT: node 0 1 0 ; value %x
// CHECK-NEXT: layout 0 0 tensor<1x32x4x4xf32>
// CHECK-NEXT: node 1 2 4000 0 ; variants %0
// CHECK-NEXT: node 2 2 0 0 ; value %0
// CHECK-NEXT: layout 2 0 tensor<1x32x4x4xf32>
// CHECK-NEXT: layout 2 1 tensor<1x32x4x4xf32, "aBcd16b">
// CHECK-NEXT: node 3 2 4000 0 ; variants %1
// CHECK-NEXT: node 4 2 0 0 ; value %1
// CHECK-NEXT: layout 4 0 tensor<1x32x4x4xf32>
// CHECK-NEXT: layout 4 1 tensor<1x32x4x4xf32, "aBcd16b">
// CHECK-NEXT: node 5 2 0 0 ; copy %x tensor<1x32x4x4xf32, "aBcd16b">
// CHECK-NEXT: edge 1 2 0 0 0 0
// CHECK-NEXT: edge 3 4 0 0 0 0
// CHECK-NEXT: edge 0 5 0 4096
// CHECK-NEXT: edge 3 5 0 0 inf 0
// CHECK-NEXT: edge 1 5 0 0 inf 0
// CHECK-NEXT: select 0 1 0 1 0 1
// CHECK-NEXT: cost 4096
// CHECK-NEXT: output-cost 4096
// CHECK-NEXT: lower-bound 4096
// CHECK-NEXT: status proven-optimal
// CHECK-NEXT: end
// CHECK-NEXT: pbqp @fixed nodes 2 edges 0
// CHECK-NEXT: node 0 1 0 ; value %y
// CHECK-NEXT: layout 0 0 tensor<4x12xf32>
// CHECK-NEXT: node 1 1 0 ; value %t
// CHECK-NEXT: layout 1 0 tensor<12x4xf32, "ba">
// CHECK-NEXT: select 0 0
// CHECK-NEXT: cost 0
// CHECK-NEXT: output-cost 0
// CHECK-NEXT: lower-bound 0
// CHECK-NEXT: status proven-optimal
// CHECK-NEXT: end

// USAGE: layoutc: error: --dump-pbqp= needs --assign-layouts: that pass builds the PBQP
// USAGE-NEXT: layoutc: note: usage: layoutc opt FILE

func.func @sharing_pays(%x: tensor<1x32x4x4xf32>) -> (tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, any>) {
  %0 = "layout.op"(%x) {name = "a", variants = [["nchw", "any", 4000], ["nChw16c", "any", 0]]} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>
  %1 = "layout.op"(%x) {name = "b", variants = [["nchw", "any", 4000], ["nChw16c", "any", 0]]} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>
  "func.return"(%0, %1) : (tensor<1x32x4x4xf32, any>, tensor<1x32x4x4xf32, any>) -> ()
}

func.func @fixed(%y: tensor<4x12xf32>) -> tensor<12x4xf32, any> {
  %t = "layout.transpose"(%y) {permutation = [1, 0]} : (tensor<4x12xf32>) -> tensor<12x4xf32, any>
  "func.return"(%t) : (tensor<12x4xf32, any>) -> ()
}
