// RUN: layoutc opt %s --split-input-file --verify-diagnostics
// Every diagnostic of the IR parser, one per chunk. Parsing stops at the
// first error, as mlir-opt's does.

// expected-error@+1 {{expected end of input, attribute alias, 'func.func', 'module' or '"builtin.module"', found 'func'}}
func @f() {
}

// -----
// expected-error@+2 {{expected string, value name, location, result group, 'return', 'builtin.unrealized_conversion_cast' or '}', found end of input}}
func.func @f(%a: tensor<4xf32>) {
  "func.return"() : () -> ()
// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{use of undefined value '%b'}}
  %0 = "layout.view"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // A value is visible only after its definition (one block, no forward uses).
  // expected-error@+1 {{use of undefined value '%1'}}
  %0 = "layout.view"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "layout.view"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
// Names are scoped to their function.
func.func @f(%a: tensor<4xf32>) {
  "func.return"() : () -> ()
}
func.func @g() {
  // expected-error@+1 {{use of undefined value '%a'}}
  "layout.op"(%a) {name = "use"} : (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// expected-note@+1 {{previous definition is here}}
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{redefinition of value '%a'}}
  %a = "layout.view"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
// expected-note@+2 {{previous definition is here}}
// expected-error@+1 {{redefinition of value '%x'}}
func.func @f(%x: tensor<4xf32>, %x: tensor<4xf32>) {
  "func.return"() : () -> ()
}

// -----
// expected-note@+1 {{previous definition is here}}
func.func @f() {
  "func.return"() : () -> ()
}
// expected-error@+1 {{redefinition of function '@f'}}
func.func @f() {
  "func.return"() : () -> ()
}

// -----
// expected-note@+1 {{the value is defined here}}
func.func @f(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{operand '%a' has type tensor<4x6xf32> but the op's signature says tensor<4x6xf32, "ba">}}
  %0 = "layout.relayout"(%a) : (tensor<4x6xf32, "ba">) -> tensor<4x6xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{the op has 1 operand but its signature lists 2 operand types}}
  %0 = "layout.view"(%a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{the op defines 2 results but its signature lists 1 result type}}
  %0, %1 = "layout.op"(%a) {name = "f"} : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{unknown operation "layout.frobnicate"}}
  %0 = "layout.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+2 {{attribute 'name' is given twice}}
  // expected-note@+1 {{first given here}}
  "layout.op"(%a) {name = "a", name = "b"} : (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{expected an attribute value (integer, string, true, false or [...]), found 'yes'}}
  "layout.op"(%a) {name = "a", flag = yes} : (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{attribute arrays nested more than 64 deep}}
  "layout.op"(%a) {x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}: (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{integer 99999999999999999999 does not fit in 64 bits}}
  "layout.op"(%a) {name = "a", n = 99999999999999999999} : (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{string opened here is never closed}}
  "layout.op"(%a) {name = "a} : (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// expected-error@+1 {{unexpected character '#'}}
func.func @f(%a: tensor<4xf32>) # {
}

// -----
// expected-error@+1 {{expected a value name after '%'}}
func.func @f(% : tensor<4xf32>) {
}

// -----
// expected-error@+1 {{expected a function name after '@'}}
func.func @ () {
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // The signature is required, as in MLIR's generic form. Syntax errors are
  // located at the token that does not fit.
  // expected-error@+2 {{expected '<{', '{', '(' or ':', found '"func.return"'}}
  %0 = "layout.view"(%a)
  "func.return"() : () -> ()
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+2 {{expected '->', found '"func.return"'}}
  %0 = "layout.view"(%a) : (tensor<4xf32>)
  "func.return"() : () -> ()
}

// -----
// expected-error@+1 {{expected '{' after the signature of '@f': a function whose arguments are named has a body}}
func.func @f(%a: tensor<4xf32>)

// -----
// expected-error@+1 {{attribute alias '#nomap' is not defined}}
func.func @f(%a: tensor<8x6xf32, #nomap>) {
  return
}

// -----
#map = affine_map<(d0) -> (d0)>
// expected-error@+1 {{redefinition of alias '#map'}}
#map = affine_map<(d0) -> (d0 floordiv 2)>

// -----
func.func @f() {
  // expected-error@+1 {{a result group has at least one result}}
  %0:0 = "x.y"() : () -> ()
  return
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{the op defines 2 results but its signature lists 1 result type}}
  %0:2 = "x.y"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{unknown operation "layout.frobnicate"}}
  %0 = "layout.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// expected-error@+1 {{argument #0 of '@f' needs a name: the function has a body}}
func.func @f(tensor<4xf32>) {
  return
}

// -----
// expected-error@+1 {{expected 'private', 'public' or 'nested' before the function name, found 'secret'}}
func.func secret @f()

// -----
module {
}
// expected-error@+1 {{a file holds one module; split it with '// -----' and --split-input-file}}
module {
}

// -----
func.func @f(%a: tensor<4xf32>) {
  %0 = "x.y"(%a) : (tensor<4xf32>) -> tensor<4xf32, any>
  // expected-error@+1 {{expected 'to', found 'into'}}
  %1 = builtin.unrealized_conversion_cast %0 : tensor<4xf32, any> into tensor<4xf32>
  return
}

// -----
// A registered op in its custom form: the message says which form layoutc reads.
func.func @custom_form(%n: index) {
  // expected-error@+1 {{expected string or 'builtin.unrealized_conversion_cast', found 'arith.constant'; an op layoutc does not model is read in MLIR's generic form, "arith.constant"(...) : (...) -> (...) (mlir-opt --mlir-print-op-generic prints it)}}
  %c0 = arith.constant 0 : index
  return
}

// -----
func.func @region(%a: tensor<4xf32>) {
  // Regions are read (test/ir/regions.mlir), but each is one block.
  %0 = "scf.execute_region"() ({
    "foo.op"() : () -> ()
  // expected-error@+1 {{expected string, value name, location, result group, 'return', 'builtin.unrealized_conversion_cast' or '}', found '^bb1'; a function body and a region are one block each: multi-block regions and branches are not supported}}
  ^bb1:
    "scf.yield"(%a) : (tensor<4xf32>) -> ()
  }) : () -> tensor<4xf32>
  return
}
