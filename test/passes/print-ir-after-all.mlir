// RUN: layoutc opt %s --legalize-reshapes --print-ir-after-all 2>&1 >/dev/null | FileCheck --check-prefix=DUMP %s
// RUN: layoutc opt %s --legalize-reshapes --legalize-reshapes --print-ir-after-all 2>&1 >/dev/null | FileCheck --check-prefix=TWICE %s
// --print-ir-after-all prints the IR after each pass to stderr, as MLIR does.

// DUMP:      // -----// IR Dump After legalize-reshapes //----- //
// DUMP-NEXT: func.func @f(%a: tensor<6x4xf32>) -> tensor<4x6xf32, any> {
// DUMP-NEXT:   %0 = "layout.view"(%a) : (tensor<6x4xf32>) -> tensor<4x6xf32, "ba">
// DUMP-NEXT:   "func.return"(%0) : (tensor<4x6xf32, "ba">) -> ()
// DUMP-NEXT: }
// DUMP-NOT:  IR Dump

// Passes run in command-line order; a second run changes nothing.
// TWICE:      // -----// IR Dump After legalize-reshapes //----- //
// TWICE-NEXT: func.func @f(
// TWICE-NEXT:   %0 = "layout.view"(%a) : (tensor<6x4xf32>) -> tensor<4x6xf32, "ba">
// TWICE:      // -----// IR Dump After legalize-reshapes //----- //
// TWICE-NEXT: func.func @f(
// TWICE-NEXT:   %0 = "layout.view"(%a) : (tensor<6x4xf32>) -> tensor<4x6xf32, "ba">
func.func @f(%a: tensor<6x4xf32>) -> tensor<4x6xf32, any> {
  %0 = "layout.transpose"(%a) {permutation = [1, 0]} : (tensor<6x4xf32>) -> tensor<4x6xf32, any>
  "func.return"(%0) : (tensor<4x6xf32, any>) -> ()
}
