// RUN: layoutc opt %s --split-input-file --verify-diagnostics --assign-layouts
// Bad variants and elementwise attributes are located errors; constraints
// that contradict each other are an error of the pass.

func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op variant #0 must list 2 layouts (1 operand, 1 result) then a cost}}
  %0 = "layout.op"(%x) {name = "a", variants = [["ab", 3]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op variant #1: cost must be an integer >= 0, found -5}}
  %0 = "layout.op"(%x) {name = "a", variants = [["ab", "ab", 0], ["ba", "ab", -5]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op variant #0: layout "nChw16c" does not apply to operand #0 (tensor<4x6xf32>): format tag has 4 dims but the type has rank 2}}
  %0 = "layout.op"(%x) {name = "a", variants = [["nChw16c", "ab", 0]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op variant #0: layout "tiled_layout<<0,1>,(8" does not apply to result #0}}
  %0 = "layout.op"(%x) {name = "a", variants = [["ab", "tiled_layout<<0,1>,(8", 0]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // A layout string cannot smuggle in a memory space.
  // expected-error@+1 {{'layout.op' op variant #0: layout "strided<[1,4]>, memspace<3>" does not apply to result #0 (tensor<4x6xf32, any>): it changes more than the layout}}
  %0 = "layout.op"(%x) {name = "a", variants = [["ab", "strided<[1,4]>, memspace<3>", 0]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op variant #0: entry #1 must be a layout string}}
  %0 = "layout.op"(%x) {name = "a", variants = [["ab", 7, 0]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op attribute 'variants' must be a non-empty array of variants [layouts..., cost]}}
  %0 = "layout.op"(%x) {name = "a", variants = []} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op attribute 'elementwise' must be true or false}}
  %0 = "layout.op"(%x) {name = "a", elementwise = "yes"} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op is elementwise but result #1 has other dims than result #0}}
  %0, %1 = "layout.op"(%x) {name = "a", elementwise = true} : (tensor<4x6xf32>) -> (tensor<4x6xf32, any>, tensor<6x4xf32, any>)
  "func.return"() : () -> ()
}

// -----
func.func @f(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'layout.op' op takes 'variants' or 'elementwise = true', not both}}
  %0 = "layout.op"(%x) {name = "a", elementwise = true, variants = [["ab", "ab", 0]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  "func.return"() : () -> ()
}

// -----
// The variant's result layout contradicts the declared one, and no other
// variant exists.
// expected-error@+1 {{no layout assignment of '@f' meets its constraints}}
func.func @f(%x: tensor<4x6xf32>) -> tensor<4x6xf32, "ba"> {
  %0 = "layout.op"(%x) {name = "a", variants = [["ab", "ab", 0]]} : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
  "func.return"(%0) : (tensor<4x6xf32, "ba">) -> ()
}

// -----
// An elementwise op whose two results are declared in different layouts.
// expected-error@+1 {{no layout assignment of '@f' meets its constraints}}
func.func @f(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32, "ba">) {
  %0, %1 = "layout.op"(%x) {name = "a", elementwise = true} : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32, "ba">)
  "func.return"(%0, %1) : (tensor<4x6xf32>, tensor<4x6xf32, "ba">) -> ()
}
