// RUN: ksc-opt %s --canonicalize | FileCheck %s

// ks.as_const of an array that is already read-only folds to the array.
// CHECK-LABEL: ks.func @already_const(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>) -> f32 {
// CHECK-NOT:     ks.as_const
// CHECK:         ks.load %[[X]]
ks.func @already_const(%x: !ks.array<const f32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %v = ks.as_const %x : !ks.array<const f32>
  %e = ks.load %v[%c0] : !ks.array<const f32>, i32
  ks.return %e : f32
}

// A read-only view of a writable array stays.
// CHECK-LABEL: ks.func @writable(
// CHECK-SAME:      %[[Y:.*]]: !ks.array<f32>) -> f32 {
// CHECK:         %[[V:.*]] = ks.as_const %[[Y]] : !ks.array<f32>
ks.func @writable(%y: !ks.array<f32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %v = ks.as_const %y : !ks.array<f32>
  %e = ks.load %v[%c0] : !ks.array<const f32>, i32
  ks.return %e : f32
}

// The random-number operations are pure functions of the state: a draw
// whose number and next state are unused goes away.
// CHECK-LABEL: ks.func @unused_draw(
// CHECK-SAME:      %[[S:.*]]: i32 {ks.inout}) -> (f32, i32) {
// CHECK-NEXT:    %[[R:.*]], %[[S1:.*]] = ks.randf %[[S]]
// CHECK-NEXT:    ks.return %[[R]], %[[S1]] : f32, i32
ks.func @unused_draw(%s: i32 {ks.inout}) -> (f32, i32) {
  %n, %t = ks.randn %s
  %r, %s1 = ks.randf %s
  ks.return %r, %s1 : f32, i32
}
