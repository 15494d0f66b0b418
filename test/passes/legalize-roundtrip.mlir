// The pass's output is valid IR that prints back the same, and the pass is
// idempotent: legalized output has nothing left to legalize.
// RUN: layoutc opt %S/legalize-relayout.mlir --split-input-file --legalize-reshapes -o %t.1.mlir
// RUN: layoutc opt %t.1.mlir --split-input-file -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: layoutc opt %t.1.mlir --split-input-file --legalize-reshapes -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: layoutc opt %S/legalize-views.mlir --legalize-reshapes -o %t.4.mlir
// RUN: layoutc opt %t.4.mlir --legalize-reshapes -o %t.5.mlir
// RUN: diff %t.4.mlir %t.5.mlir
