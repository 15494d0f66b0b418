// RUN: layoutc opt %s --split-input-file --verify-diagnostics
// Every verifier rule, one violation per chunk (docs/ir.md, "Verifier rules").

// --- counts and attributes ---------------------------------------------------

func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.reshape' op expects 1 operand, found 2}}
  %0 = "layout.reshape"(%a, %a) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<24xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.view' op expects 1 result, found 0}}
  "layout.view"(%a) : (tensor<4x6xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.reshape' op does not take attribute 'permutation'}}
  %0 = "layout.reshape"(%a) {permutation = [1, 0]} : (tensor<4x6xf32>) -> tensor<24xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'func.return' op expects 0 results, found 1}}
  %0 = "func.return"() : () -> tensor<4x6xf32>
}

// --- element type and memory space --------------------------------------------

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.reshape' op result element type f16 differs from the operand's f32}}
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32>) -> tensor<24xf16>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.relayout' op result element type bf16 differs from the operand's f32}}
  %0 = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xbf16>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.view' op result memory space differs from the operand's}}
  %0 = "layout.view"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, memspace<1>>
  "func.return"() : () -> ()
}

// --- reshape and view ------------------------------------------------------------

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.reshape' op result has 25 elements but the operand has 24}}
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32>) -> tensor<25xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // A view may reach only the operand's storage.
  // expected-error@+1 {{'layout.view' op result reaches 48 elements of storage but the operand's allocation has only 24}}
  %0 = "layout.view"(%a) : (tensor<4x6xf32>) -> tensor<48xf32>
  "func.return"() : () -> ()
}

// --- transpose -------------------------------------------------------------------

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op requires attribute 'permutation'}}
  %0 = "layout.transpose"(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op attribute 'permutation' must be an array of integers}}
  %0 = "layout.transpose"(%a) {permutation = [0, "1", 2]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op attribute 'permutation' has 2 entries but the operand has rank 3}}
  %0 = "layout.transpose"(%a) {permutation = [1, 0]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op permutation entry 3 is out of range 0..2}}
  %0 = "layout.transpose"(%a) {permutation = [0, 3, 1]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op permutation entry -1 is out of range 0..2}}
  %0 = "layout.transpose"(%a) {permutation = [0, -1, 1]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op permutation entry 1 appears twice}}
  %0 = "layout.transpose"(%a) {permutation = [1, 1, 0]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // MLIR's convention: result dim i is operand dim perm[i], so [2, 0, 1]
  // gives 4x2x3, not 3x4x2 (oneDNN's permute_axes would).
  // expected-error@+1 {{'layout.transpose' op result dim 0 must be 4 (operand dim 2), found 3}}
  %0 = "layout.transpose"(%a) {permutation = [2, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'layout.transpose' op result rank 2 differs from the operand rank 3}}
  %0 = "layout.transpose"(%a) {permutation = [1, 2, 0]} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  "func.return"() : () -> ()
}

// --- slice -------------------------------------------------------------------------

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.slice' op requires attribute 'sizes'}}
  %0 = "layout.slice"(%a) {offsets = [0, 0]} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.slice' op attribute 'offsets' has 1 entry but the operand has rank 2}}
  %0 = "layout.slice"(%a) {offsets = [0], sizes = [4, 6]} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.slice' op the box [3, 3 + 2) exceeds dim 0 of extent 4}}
  %0 = "layout.slice"(%a) {offsets = [3, 0], sizes = [2, 6]} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.slice' op offsets entry 1 is negative}}
  %0 = "layout.slice"(%a) {offsets = [0, -1], sizes = [4, 2]} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.slice' op result dim 1 must be the size 2, found 4x3}}
  %0 = "layout.slice"(%a) {offsets = [0, 1], sizes = [4, 2]} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.slice' op does not take attribute 'strides'}}
  %0 = "layout.slice"(%a) {offsets = [0, 1], sizes = [4, 2], strides = [1, 1]} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  "func.return"() : () -> ()
}

// --- broadcast -----------------------------------------------------------------------

// -----
func.func @f(%a: tensor<3x6xf32>) {
  // expected-error@+1 {{'layout.broadcast' op operand dim 0 of extent 3 cannot broadcast to result dim 1 of extent 4 (it must be 1 or equal)}}
  %0 = "layout.broadcast"(%a) : (tensor<3x6xf32>) -> tensor<2x4x6xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<3x6xf32>) {
  // expected-error@+1 {{'layout.broadcast' op result rank 1 is less than the operand rank 2}}
  %0 = "layout.broadcast"(%a) : (tensor<3x6xf32>) -> tensor<18xf32>
  "func.return"() : () -> ()
}

// --- relayout --------------------------------------------------------------------------

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.relayout' op result dims 6x4 differ from the operand dims 4x6}}
  %0 = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<6x4xf32, "ba">
  "func.return"() : () -> ()
}

// --- opaque compute --------------------------------------------------------------------

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op requires a string attribute 'name' (the compute it stands for)}}
  %0 = "layout.op"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op requires a string attribute 'name'}}
  %0 = "layout.op"(%a) {name = 3} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// --- func.return -------------------------------------------------------------------------

// -----
func.func @f(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'func.return' op returns 0 values but '@f' declares 1 result}}
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) -> tensor<4x6xf32, "ba"> {
  // expected-error@+1 {{'func.return' op operand #0 has type tensor<4x6xf32> but result #0 of '@f' is tensor<4x6xf32, "ba">}}
  "func.return"(%a) : (tensor<4x6xf32>) -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) -> tensor<6x4xf32, any> {
  // A result declared `any` accepts any layout, but not other dims.
  // expected-error@+1 {{'func.return' op operand #0 has type tensor<4x6xf32> but result #0 of '@f' is tensor<6x4xf32, any>}}
  "func.return"(%a) : (tensor<4x6xf32>) -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32, any>) -> tensor<4x6xf32> {
  // ... and a concrete result does not accept `any`.
  // expected-error@+1 {{'func.return' op operand #0 has type tensor<4x6xf32, any> but result #0 of '@f' is tensor<4x6xf32>}}
  "func.return"(%a) : (tensor<4x6xf32, any>) -> ()
}

// -----
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'func.return' op must be the last op of '@f'}}
  "func.return"() : () -> ()
  "func.return"() : () -> ()
}

// -----
// expected-error@+1 {{function '@f' does not end with 'func.return'}}
func.func @f(%a: tensor<4x6xf32>) {
  %0 = "layout.view"(%a) : (tensor<4x6xf32>) -> tensor<24xf32>
}

// -----
// expected-error@+1 {{function '@empty' does not end with 'func.return'}}
func.func @empty() {
}

// -----
// The verifier reports every problem, not only the first.
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.reshape' op result has 12 elements but the operand has 24}}
  %0 = "layout.reshape"(%a) : (tensor<4x6xf32>) -> tensor<12xf32>
  // expected-error@+1 {{'layout.relayout' op result dims 24 differ from the operand dims 4x6}}
  %1 = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<24xf32>
  "func.return"() : () -> ()
}
