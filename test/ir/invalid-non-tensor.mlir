// RUN: layoutc opt %s --split-input-file --verify-diagnostics
// Values that are not tensors: layout ops refuse them, variants must say
// "any" for them, misspelled types are not carried through, and layoutc's own
// ops take attributes, not properties.

func.func @reshape_scalar(%n: index) {
  // expected-error@+1 {{the operand must be a tensor, not 'index'}}
  %0 = "layout.reshape"(%n) : (index) -> tensor<4xf32>
  return
}

// -----

func.func @relayout_to_scalar(%x: tensor<4xf32>) {
  // expected-error@+1 {{the result must be a tensor, not 'i32'}}
  %0 = "layout.relayout"(%x) : (tensor<4xf32>) -> i32
  return
}

// -----

func.func @variant_on_scalar(%x: tensor<4x6xf32>, %n: i32) {
  // expected-error@+1 {{layout "ab" does not apply to operand #1 (i32): the type is not a tensor: it has no layout (write "any" for it)}}
  %0 = "layout.op"(%x, %n) {name = "f", variants = [["ab", "ab", "ab", 1]]} : (tensor<4x6xf32>, i32) -> tensor<4x6xf32, any>
  return
}

// -----

func.func @elementwise_scalar(%n: i32) {
  // expected-error@+1 {{is elementwise but result #0 is not a tensor}}
  %0 = "layout.op"(%n) {name = "f", elementwise = true} : (i32) -> i32
  return
}

// -----

// expected-error@+1 {{unknown type 'tensr<4xf32>' (expected a tensor type, an MLIR builtin type such as index, i32 or memref<...>, or a dialect type !dialect.name)}}
func.func @typo(%n: tensr<4xf32>) {
  return
}

// -----

// expected-error@+1 {{unknown type 'float'}}
func.func @typo2(%n: float) {
  return
}

// -----

func.func @props_on_layout_op(%x: tensor<4xf32>) {
  // expected-error@+1 {{'layout.op' takes attributes {...}, not properties <{...}>}}
  %0 = "layout.op"(%x) <{name = "f"}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}
