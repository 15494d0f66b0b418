// Types inside the IR are parsed by the type grammar; its diagnostics point
// into this file: line, column, the source line and a caret.
// RUN: not layoutc opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK: type-diagnostics.mlir:[[@LINE+3]]:57: error: format tag has 3 dims but the type has rank 2
// CHECK-NEXT: {{^}}func.func @tag(%a: tensor<4x6xf32>) -> tensor<4x6xf32, "abc"> {
// CHECK-NEXT: {{^                                                        \^}}
func.func @tag(%a: tensor<4x6xf32>) -> tensor<4x6xf32, "abc"> {
  "func.return"(%a) : (tensor<4x6xf32>) -> ()
}

// -----
// A '>' that is missing: the type ends at the ')' that follows.
// CHECK: type-diagnostics.mlir:[[@LINE+3]]:35: error: ')' does not close '<' opened at column 27
// CHECK-NEXT: {{^}}func.func @open(%a: tensor<4x6xf32) {
// CHECK-NEXT: {{^                                  \^}}
func.func @open(%a: tensor<4x6xf32) {
  "func.return"() : () -> ()
}

// -----
// A type may span lines; a diagnostic on its second line names that line.
// CHECK: type-diagnostics.mlir:[[@LINE+4]]:13: error: unknown element type 'f33'
// CHECK-NEXT: {{^}}    4 x 6 x f33, "ba">) {
// CHECK-NEXT: {{^            \^}}
func.func @multiline(%a: tensor<
    4 x 6 x f33, "ba">) {
  "func.return"() : () -> ()
}

// -----
// A type's '>' that is missing at the end of a line: the next token is in
// the way (a type may span lines; it ends at '{', '}', '=' or '->').
// CHECK: type-diagnostics.mlir:[[@LINE+4]]:3: error: expected '<', '>' or ',', found '"func.return"'
// CHECK-NEXT: {{^}}  "func.return"() : () -> ()
func.func @arrow(%a: tensor<4x6xf32>) {
  %0 = "layout.view"(%a) : (tensor<4x6xf32>) -> tensor<24xf32
  "func.return"() : () -> ()
}

// -----
// 'tensor' must be followed by '<'.
// CHECK: type-diagnostics.mlir:[[@LINE+1]]:27: error: expected '<', found end of input
func.func @bare(%a: tensor) {
  "func.return"() : () -> ()
}
