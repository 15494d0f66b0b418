// RUN: layoutc opt %s --split-input-file --legalize-reshapes --debug-reasons --verify-diagnostics
// RUN: layoutc opt %s --split-input-file --legalize-reshapes 2>&1 | FileCheck --check-prefix=QUIET %s
// --debug-reasons: the view algebra's reason a view needs a relayout, as notes
// located at the op. Without it the pass says nothing: a refused view is an
// answer, not an error.
// QUIET-NOT: note:
// QUIET-NOT: error:

func.func @padded(%a: tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x3x3xf32, any> {
  // expected-note@+3 {{'layout.reshape' needs its operand relayouted to tensor<2x20x3x3xf32, "aBcd4b">}}
  // expected-note@+2 {{because: reshape into 40x3x3 requires a copy: dim 1 of extent 20 is padded to a multiple of 16}}
  // expected-note@+1 {{because: relayout to "aBcd4b" first makes it a view}}
  %0 = "layout.reshape"(%a) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x3x3xf32, any>
  "func.return"(%0) : (tensor<40x3x3xf32, any>) -> ()
}

// -----
func.func @slice(%a: tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x5x3x3xf32, any> {
  // expected-note@+2 {{'layout.slice' needs its operand relayouted to tensor<2x32x3x3xf32>}}
  // expected-note@+1 {{because: slice is not a view at dim 1: offset 15 is not a multiple of the block of 16 it starts in, and the slice leaves that block}}
  %0 = "layout.slice"(%a) {offsets = [0, 15, 0, 0], sizes = [2, 5, 3, 3]} : (tensor<2x32x3x3xf32, "nChw16c">) -> tensor<2x5x3x3xf32, any>
  "func.return"(%0) : (tensor<2x5x3x3xf32, any>) -> ()
}

// -----
func.func @declared(%x: tensor<4x6xf32>) -> tensor<6x4xf32> {
  // expected-note@+1 {{'layout.transpose' keeps its declared result layout: a relayout follows the view tensor<6x4xf32, "ba">}}
  %xt = "layout.transpose"(%x) {permutation = [1, 0]} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  "func.return"(%xt) : (tensor<6x4xf32>) -> ()
}

// -----
func.func @one_copy(%a: tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x9xf32, "ba"> {
  // expected-note@+3 {{'layout.reshape' needs a relayout of its operand; one copy, to the layout whose view is the declared result: tensor<2x20x3x3xf32, "cdab">}}
  // expected-note@+2 {{because: reshape into 40x9 requires a copy: dim 1 of extent 20 is padded to a multiple of 16}}
  // expected-note@+1 {{because: relayout to "aBcd4b" first makes it a view}}
  %0 = "layout.reshape"(%a) : (tensor<2x20x3x3xf32, "nChw16c">) -> tensor<40x9xf32, "ba">
  "func.return"(%0) : (tensor<40x9xf32, "ba">) -> ()
}
