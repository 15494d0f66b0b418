// RUN: layoutc opt %s --assign-layouts --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=EXACT %s
// RUN: layoutc opt %s --assign-layouts=greedy --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=GREEDY %s
// RUN: layoutc opt %s --assign-layouts=row-major --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=ROWMAJOR %s
// RUN: layoutc opt %s --assign-layouts=greedy | FileCheck --check-prefix=OUT %s
// RUN: not layoutc opt %s --assign-layouts=best 2>&1 | FileCheck --check-prefix=USAGE %s
// The baselines the pass is measured against (docs/passes.md): a greedy
// propagation in program order, which fixes the `any` argument before it
// sees its consumer, and everything row-major. Both pay a copy that the
// exact solution avoids.

// EXACT: total cost 20000 (relayout bytes 0, variants 20000); lower bound 20000; proven optimal
// GREEDY: assign-layouts (greedy): total cost 36384 (relayout bytes 16384, variants 20000)
// ROWMAJOR: assign-layouts (row-major): total cost 36384 (relayout bytes 16384, variants 20000)
// OUT: func.func @f(%x: tensor<1x32x8x8xf32>
// USAGE: --assign-layouts= takes exact, greedy or row-major
func.func @f(%x: tensor<1x32x8x8xf32, any>, %w: tensor<32x32x3x3xf32, "OIhw16i16o">) -> tensor<1x32x8x8xf32, any> {
  %0 = "layout.op"(%x, %w) {name = "conv", variants = [["nchw", "oihw", "nchw", 50000], ["nChw16c", "OIhw16i16o", "nChw16c", 20000]]} : (tensor<1x32x8x8xf32, any>, tensor<32x32x3x3xf32, "OIhw16i16o">) -> tensor<1x32x8x8xf32, any>
  "func.return"(%0) : (tensor<1x32x8x8xf32, any>) -> ()
}
