// RUN: layoutc opt %s | FileCheck %s
// RUN: layoutc opt --emit=mlir %s | FileCheck %s --check-prefix=MLIR
// Attribute aliases used in types, affine maps and the RFC's braces inside
// the IR (the lexer keeps an affine_map's '->' and the braces in the type).
#map = affine_map<(d0, d1) -> (d0 floordiv 4, d1, d0 mod 4)>
#tl = #layout.tiled<{0, 1}, (2,2)>
func.func @f(%a: tensor<8x6xf32, #map>, %b: tensor<4x6xf32, #tl>, %c: tensor<4x6xf32, affine_map<(d0, d1) -> (d1, d0)>>, %d: tensor<4x6xf32, tiled_layout<{1, 0}, (2,2)>>) {
  return
}

// CHECK: #map = affine_map<(d0, d1) -> (d0 floordiv 4, d1, d0 mod 4)>
// CHECK-NEXT: #tl = #layout.tiled<{0, 1}, (2,2)>
// CHECK-EMPTY:
// CHECK-NEXT: func.func @f(%a: tensor<8x6xf32, "Ab4a">, %b: tensor<4x6xf32, "AB2a2b">, %c: tensor<4x6xf32, "ba">, %d: tensor<4x6xf32, "BA2b2a">) {
// MLIR-NOT: #map
// MLIR: func.func @f(%arg0: tensor<8x6xf32, #layout.tag<"Ab4a">>, %arg1: tensor<4x6xf32, #layout.tag<"AB2a2b">>, %arg2: tensor<4x6xf32, #layout.tag<"ba">>, %arg3: tensor<4x6xf32, #layout.tag<"BA2b2a">>) {
