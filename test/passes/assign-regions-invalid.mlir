// RUN: layoutc opt %s --split-input-file --verify-diagnostics --assign-layouts
// layoutc does not know how an op with regions ties its regions' arguments
// to its operands and results: their layouts must be written.

func.func @operand(%a: tensor<4x6xf32>) {
  %t = "layout.transpose"(%a) {permutation = [1, 0]} : (tensor<4x6xf32>) -> tensor<6x4xf32, any>
  // expected-error@+1 {{operand #0 of 'foo.loop' has layout 'any': layoutc does not know how an op with regions ties its regions' arguments to its operands and results, so it cannot choose this layout; write the layout}}
  "foo.loop"(%t) ({ "foo.yield"() : () -> () }) : (tensor<6x4xf32, any>) -> ()
  return
}

// -----
func.func @result(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{result #0 of 'foo.loop' has layout 'any'}}
  %r = "foo.loop"(%a) ({ "foo.yield"() : () -> () }) : (tensor<4x6xf32>) -> tensor<4x6xf32, any>
  return
}

// -----
func.func @block_argument(%a: tensor<4x6xf32>) {
  "foo.loop"(%a) ({
  // expected-error@+1 {{block argument #0 of region #0 of 'foo.loop' has layout 'any': layoutc does not know how the op ties it to its operands and results, so it cannot choose this layout; write the layout}}
  ^bb0(%x: tensor<4x6xf32, any>):
    "foo.yield"() : () -> ()
  }) : (tensor<4x6xf32>) -> ()
  return
}
