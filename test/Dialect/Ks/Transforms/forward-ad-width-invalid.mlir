// RUN: ksc-opt %s --ks-forward-ad="width=4" -verify-diagnostics
// RUN: not ksc-opt %s --ks-forward-ad="width=0" 2>&1 | FileCheck %s --check-prefix=ZERO

// Several directions add a dimension to each tangent array: a 4-D array
// (the largest rank) cannot have one.

// expected-error@+1 {{cannot propagate several tangent directions (--width) for the 4-D array 'field': its tangent would need a fifth dimension}}
ks.kernel @deep(%field: !ks.array<f32, 4>) {
  %c0 = arith.constant 0 : i32
  %v = ks.load %field[%c0, %c0, %c0, %c0] : !ks.array<f32, 4>, i32, i32, i32, i32
  %w = arith.mulf %v, %v : f32
  ks.store %w, %field[%c0, %c0, %c0, %c0] : !ks.array<f32, 4>, i32, i32, i32, i32
  ks.return
}

// ZERO: error: the tangent width must be at least 1
