// RUN: layoutc opt %s | FileCheck %s
// Value names: %N names (and values a pass creates) are renumbered per
// function in order of definition, arguments first; other names are kept.
// Names may use letters, digits, '$', '.', '_' and '-' (MLIR's suffix-id).

// CHECK-LABEL: func.func @numbers(%0: tensor<4xf32>, %named: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %1 = "layout.view"(%0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %x.y$z_-1 = "layout.view"(%1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %2 = "layout.view"(%x.y$z_-1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    "func.return"(%2) : (tensor<4xf32>) -> ()
func.func @numbers(%7: tensor<4xf32>, %named: tensor<4xf32>) -> tensor<4xf32> {
  %42 = "layout.view"(%7) : (tensor<4xf32>) -> tensor<4xf32>
  %x.y$z_-1 = "layout.view"(%42) : (tensor<4xf32>) -> tensor<4xf32>
  %003 = "layout.view"(%x.y$z_-1) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%003) : (tensor<4xf32>) -> ()
}

// Numbering restarts in each function; the same names may be reused.
// CHECK-LABEL: func.func @again(%0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %1 = "layout.view"(%0)
func.func @again(%7: tensor<4xf32>) -> tensor<4xf32> {
  %42 = "layout.view"(%7) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%42) : (tensor<4xf32>) -> ()
}

// Function names are bare identifiers, with '.' and '$' allowed.
// CHECK-LABEL: func.func @my.func$1() {
func.func @my.func$1() {
  "func.return"() : () -> ()
}

// Whitespace and comments are free between tokens.
// CHECK-LABEL: func.func @spaces(%a: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    "func.return"(%a) : (tensor<4xf32>) -> ()
func.func
  @spaces ( %a : tensor < 4 x f32 > ) // a comment
  -> tensor<4xf32>
{ "func.return" ( %a ) : ( tensor<4xf32> ) -> ( ) }

// An empty file is an empty module.
// RUN: layoutc opt %S/Inputs/empty.mlir | count 0
