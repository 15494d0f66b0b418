// RUN: layoutc opt %s --assign-layouts --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=EXACT %s
// RUN: layoutc opt %s --assign-layouts=greedy --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=GREEDY %s
// RUN: layoutc opt %s --assign-layouts=row-major --debug-reasons -o %t 2>&1 | FileCheck --check-prefix=ROWMAJOR %s
// RUN: layoutc opt %s --assign-layouts=greedy | FileCheck --check-prefix=OUT %s
// RUN: not layoutc opt %s --assign-layouts=best 2>&1 | FileCheck --check-prefix=USAGE %s
// The baselines the pass is measured against (docs/passes.md). Greedy
// propagation in program order (XLA-style) runs the producer's cheaper plain
// variant, not seeing that its consumer needs the result blocked, and pays a
// copy (2 * 8192 bytes); row-major keeps the `any` argument %y plain and
// pays its copy instead. The exact solution runs the producer blocked.

// EXACT: total cost 200 (relayout bytes 0, variants 200); lower bound 200; proven optimal
// GREEDY: assign-layouts (greedy): total cost 16484 (relayout bytes 16384, variants 100)
// ROWMAJOR: assign-layouts (row-major): total cost 16584 (relayout bytes 16384, variants 200)
// OUT: %1 = "layout.relayout"(%0) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, "aBcd16b">
// USAGE: --assign-layouts= takes exact, greedy or row-major
func.func @f(%x: tensor<1x32x8x8xf32>, %y: tensor<1x32x8x8xf32, any>) -> tensor<1x32x8x8xf32, any> {
  %0 = "layout.op"(%x) {name = "producer", variants = [["nchw", "nchw", 100], ["nchw", "nChw16c", 200]]} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, any>
  %1 = "layout.op"(%0, %y) {name = "consumer", variants = [["nChw16c", "nChw16c", "nChw16c", 0]]} : (tensor<1x32x8x8xf32, any>, tensor<1x32x8x8xf32, any>) -> tensor<1x32x8x8xf32, any>
  "func.return"(%1) : (tensor<1x32x8x8xf32, any>) -> ()
}
