// RUN: layoutc opt %s --legalize-reshapes | FileCheck %s --check-prefix=LEGAL
// RUN: layoutc opt %s --assign-layouts | FileCheck %s --check-prefix=ASSIGN
// The printed result parses back to the same text:
// RUN: layoutc opt %s --assign-layouts -o %t && layoutc opt %t | diff %t -
// Ops with regions are opaque compute: they and their regions pass through,
// but the layout ops inside are legalized and assigned like top-level ones,
// and what they insert goes in their block. A copy of a value defined
// outside a region is made in the value's block, before the region's op,
// where every later use shares it.

// LEGAL-LABEL: func.func @loop(
// LEGAL-NEXT:    %r = "foo.loop"(%n, %a) ({
// LEGAL-NEXT:    ^bb0(%i: index, %acc: tensor<2x32x4x5xf32, "aBcd16b">):
// LEGAL-NEXT:      %v = "layout.view"(%acc) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32, "abdec">
// LEGAL-NEXT:      %w = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x640xf32, tiled_layout<<0,1>,(20),(16,1)>>
// LEGAL-NEXT:      "layout.op"(%v, %w, %a) {name = "use", variants = {{\[\[}}"any", "ab", "nchw", 0{{\]\]}}} : (tensor<2x2x16x4x5xf32, "abdec">, tensor<2x640xf32, tiled_layout<<0,1>,(20),(16,1)>>, tensor<2x32x4x5xf32, "aBcd16b">) -> ()
// LEGAL-NEXT:      "foo.yield"(%acc) : (tensor<2x32x4x5xf32, "aBcd16b">) -> ()
// LEGAL-NEXT:    }) : (index, tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x32x4x5xf32, "aBcd16b">
// LEGAL-NEXT:    "layout.op"(%a) {name = "after", variants = {{\[\[}}"nchw", 0{{\]\]}}} : (tensor<2x32x4x5xf32, "aBcd16b">) -> ()
// LEGAL-NEXT:    "func.return"(%r) : (tensor<2x32x4x5xf32, "aBcd16b">) -> ()

// ASSIGN-LABEL: func.func @loop(
// ASSIGN-NEXT:    %0 = "layout.relayout"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x32x4x5xf32>
// ASSIGN-NEXT:    %r = "foo.loop"(%n, %a) ({
// ASSIGN-NEXT:    ^bb0(%i: index, %acc: tensor<2x32x4x5xf32, "aBcd16b">):
// ASSIGN-NEXT:      %v = "layout.view"(%acc) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x2x16x4x5xf32, "abdec">
// ASSIGN-NEXT:      %w = "layout.view"(%a) : (tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x640xf32, tiled_layout<<0,1>,(20),(16,1)>>
// ASSIGN-NEXT:      %1 = "layout.relayout"(%w) : (tensor<2x640xf32, tiled_layout<<0,1>,(20),(16,1)>>) -> tensor<2x640xf32>
// ASSIGN-NEXT:      "layout.op"(%v, %1, %0) {name = "use", variants = {{\[\[}}"any", "ab", "nchw", 0{{\]\]}}} : (tensor<2x2x16x4x5xf32, "abdec">, tensor<2x640xf32>, tensor<2x32x4x5xf32>) -> ()
// ASSIGN-NEXT:      "foo.yield"(%acc) : (tensor<2x32x4x5xf32, "aBcd16b">) -> ()
// ASSIGN-NEXT:    }) : (index, tensor<2x32x4x5xf32, "aBcd16b">) -> tensor<2x32x4x5xf32, "aBcd16b">
// ASSIGN-NEXT:    "layout.op"(%0) {name = "after", variants = {{\[\[}}"nchw", 0{{\]\]}}} : (tensor<2x32x4x5xf32>) -> ()
// ASSIGN-NEXT:    "func.return"(%r) : (tensor<2x32x4x5xf32, "aBcd16b">) -> ()
func.func @loop(%a: tensor<2x32x4x5xf32, "nChw16c">, %n: index) -> tensor<2x32x4x5xf32, "nChw16c"> {
  %r = "foo.loop"(%n, %a) ({
  ^bb0(%i: index, %acc: tensor<2x32x4x5xf32, "nChw16c">):
    %v = "layout.reshape"(%acc) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any>
    %w = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x640xf32, any>
    "layout.op"(%v, %w, %a) {name = "use", variants = [["any", "ab", "nchw", 0]]} : (tensor<2x2x16x4x5xf32, any>, tensor<2x640xf32, any>, tensor<2x32x4x5xf32, "nChw16c">) -> ()
    "foo.yield"(%acc) : (tensor<2x32x4x5xf32, "nChw16c">) -> ()
  }) : (index, tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x32x4x5xf32, "nChw16c">
  "layout.op"(%a) {name = "after", variants = [["nchw", 0]]} : (tensor<2x32x4x5xf32, "nChw16c">) -> ()
  return %r : tensor<2x32x4x5xf32, "nChw16c">
}

// A user's relayout in a region that a later use outside shares moves out
// of the region, to its operand's block.
// ASSIGN-LABEL: func.func @shared_relayout(
// ASSIGN-NEXT:    %c = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
// ASSIGN-NEXT:    "foo.region"() ({
// ASSIGN-NEXT:      "foo.use"(%c) : (tensor<4x6xf32, "ba">) -> ()
// ASSIGN-NEXT:    }) : () -> ()
// ASSIGN-NEXT:    "layout.op"(%c) {name = "after", variants = {{\[\[}}"ba", 0{{\]\]}}} : (tensor<4x6xf32, "ba">) -> ()
func.func @shared_relayout(%a: tensor<4x6xf32>) {
  "foo.region"() ({
    %c = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
    "foo.use"(%c) : (tensor<4x6xf32, "ba">) -> ()
  }) : () -> ()
  "layout.op"(%a) {name = "after", variants = [["ba", 0]]} : (tensor<4x6xf32>) -> ()
  return
}

// Moved out of its region, %c is in scope in a sibling region that defines
// its own %c: the printer gives the later definitions in scope fresh names
// (name_K, the first K free) so that the text parses back.
// ASSIGN-LABEL: func.func @name_clash(
// ASSIGN-NEXT:    %c = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
// ASSIGN-NEXT:    "foo.region"() ({
// ASSIGN-NEXT:      "foo.use"(%c) : (tensor<4x6xf32, "ba">) -> ()
// ASSIGN-NEXT:    }) : () -> ()
// ASSIGN-NEXT:    "foo.region"() ({
// ASSIGN-NEXT:    ^bb0(%c_1: index):
// ASSIGN-NEXT:      %c_1_1 = "foo.def"() : () -> tensor<4x6xf32, "ba">
// ASSIGN-NEXT:      %g:2 = "foo.two"() : () -> (index, index)
// ASSIGN-NEXT:      "foo.use"(%c_1, %c_1_1, %g#1) : (index, tensor<4x6xf32, "ba">, index) -> ()
// ASSIGN-NEXT:    }) : () -> ()
// ASSIGN-NEXT:    "layout.op"(%c) {name = "after", variants = {{\[\[}}"ba", 0{{\]\]}}} : (tensor<4x6xf32, "ba">) -> ()
// ASSIGN-NEXT:    %c_2 = "foo.def"() : () -> index
func.func @name_clash(%a: tensor<4x6xf32>) {
  "foo.region"() ({
    %c = "layout.relayout"(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32, "ba">
    "foo.use"(%c) : (tensor<4x6xf32, "ba">) -> ()
  }) : () -> ()
  "foo.region"() ({
  ^bb0(%c: index):
    %c_1 = "foo.def"() : () -> tensor<4x6xf32, "ba">
    %g:2 = "foo.two"() : () -> (index, index)
    "foo.use"(%c, %c_1, %g#1) : (index, tensor<4x6xf32, "ba">, index) -> ()
  }) : () -> ()
  "layout.op"(%a) {name = "after", variants = [["ba", 0]]} : (tensor<4x6xf32>) -> ()
  %c_2 = "foo.def"() : () -> index
  return
}
