// RUN: layoutc opt %s --split-input-file --verify-diagnostics
// Diagnostics about ops with regions: the parser's (one per chunk) and the
// verifier's, which checks ops in regions as it checks top-level ones.

func.func @return_in_region() {
  "foo.a"() ({
    // expected-error@+1 {{'func.return' is only valid at the top level of a function; a region ends with its own terminator op ("scf.yield")}}
    "func.return"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @value_out_of_its_region() {
  "foo.a"() ({
    %x = "foo.b"() : () -> index
  }) : () -> ()
  // expected-error@+1 {{use of undefined value '%x'}}
  "foo.c"(%x) : (index) -> ()
  return
}

// -----
func.func @own_result_in_region() {
  // expected-error@+1 {{use of undefined value '%r'}}
  %r = "foo.a"() ({ "foo.b"(%r) : (index) -> () }) : () -> index
  return
}

// -----
// expected-note@+1 {{previous definition is here}}
func.func @redefinition_in_region(%a: index) {
  "foo.a"() ({
  // expected-error@+1 {{redefinition of value '%a'}}
  ^bb0(%a: index):
    "foo.b"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @two_blocks() {
  "foo.a"() ({
    "foo.b"() : () -> ()
  // expected-error@+1 {{found '^bb1'; a function body and a region are one block each: multi-block regions and branches are not supported}}
  ^bb1:
    "foo.c"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @branch() {
  "foo.a"() ({
    // expected-error@+1 {{expected '<{', '{', '(' or ':', found '['; successor lists (branches to other blocks) are not supported: a region is one block}}
    "cf.br"()[^bb1] : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @unnamed_block_argument() {
  // expected-error@+1 {{block argument #0 needs a name}}
  "foo.a"() ({ ^bb0(index): "foo.b"() : () -> () }) : () -> ()
  return
}

// -----
func.func @block_argument_attributes() {
  // expected-error@+1 {{a block argument takes no attributes}}
  "foo.a"() ({ ^bb0(%i: index {foo}): "foo.b"() : () -> () }) : () -> ()
  return
}

// -----
func.func @unclosed() {
  "foo.a"() ({ "foo.b"() : () -> () }
  // expected-error@+1 {{expected ')' or ',', found 'return'}}
  return
}

// -----
func.func @verified_in_regions(%a: tensor<4x6xf32>) {
  "foo.a"() ({
    // expected-error@+1 {{'layout.transpose' op attribute 'permutation' has 1 entry but the operand has rank 2}}
    %t = "layout.transpose"(%a) {permutation = [0]} : (tensor<4x6xf32>) -> tensor<6x4xf32>
    "foo.b"() ({
      // expected-error@+1 {{'layout.reshape' op result has 25 elements but the operand has 24}}
      %r = "layout.reshape"(%a) : (tensor<4x6xf32>) -> tensor<5x5xf32>
    }) : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @layout_op_with_region(%a: tensor<4xf32>) {
  // expected-error@+1 {{'layout.relayout' op takes no regions (only ops layoutc does not know have them)}}
  %r = "layout.relayout"(%a) ({ "foo.b"() : () -> () }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
