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

// A load after a store to the same element (nothing but pure operations
// between them) reads the stored value; a store followed by another store
// to the same element is dead. Other elements, other arrays and operations
// with effects in between keep the accesses.
// CHECK-LABEL: ks.kernel @forward_stores(
// CHECK-SAME:      %[[A:.*]]: !ks.array<f32>, %[[B:.*]]: !ks.array<f32>, %[[V:.*]]: f32, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-NEXT:    %[[W:.*]] = arith.addf %[[V]], %[[V]]
// CHECK-NEXT:    ks.store %[[W]], %[[A]][%[[I]]]
// CHECK-NEXT:    %[[OTHER:.*]] = ks.load %[[A]][%[[J]]]
// CHECK-NEXT:    %[[B0:.*]] = ks.load %[[B]][%[[I]]]
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[W]], %[[OTHER]]
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[S]], %[[B0]]
// CHECK-NEXT:    ks.store %[[T]], %[[B]][%[[J]]]
// CHECK-NEXT:    ks.return
ks.kernel @forward_stores(%a: !ks.array<f32>, %b: !ks.array<f32>, %v: f32, %i: i32, %j: i32) {
  ks.store %v, %a[%i] : !ks.array<f32>, i32
  %w = arith.addf %v, %v : f32
  ks.store %w, %a[%i] : !ks.array<f32>, i32
  %same = ks.load %a[%i] : !ks.array<f32>, i32
  %other = ks.load %a[%j] : !ks.array<f32>, i32
  %b0 = ks.load %b[%i] : !ks.array<f32>, i32
  %s = arith.addf %same, %other : f32
  %t = arith.addf %s, %b0 : f32
  ks.store %t, %b[%j] : !ks.array<f32>, i32
  ks.return
}

// Storing back the value just read from the same element is dead; with a
// write to memory in between (another array may be the same) it stays.
// CHECK-LABEL: ks.kernel @store_back(
// CHECK-SAME:      %[[A:.*]]: !ks.array<f32>, %[[B:.*]]: !ks.array<f32>, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-NEXT:    %[[X:.*]] = ks.load %[[A]][%[[I]]]
// CHECK-NEXT:    %[[Y:.*]] = ks.load %[[A]][%[[J]]]
// CHECK-NEXT:    ks.store %[[X]], %[[B]][%[[I]]]
// CHECK-NEXT:    ks.store %[[Y]], %[[A]][%[[J]]]
// CHECK-NEXT:    ks.return
ks.kernel @store_back(%a: !ks.array<f32>, %b: !ks.array<f32>, %i: i32, %j: i32) {
  %x = ks.load %a[%i] : !ks.array<f32>, i32
  ks.store %x, %a[%i] : !ks.array<f32>, i32
  %y = ks.load %a[%j] : !ks.array<f32>, i32
  ks.store %x, %b[%i] : !ks.array<f32>, i32
  ks.store %y, %a[%j] : !ks.array<f32>, i32
  ks.return
}

// An addition of zero marked nsz (the adjoint accumulations of
// ks-reverse-ad) is its other operand, for scalars and vectors; without
// nsz only -0.0 is dropped (arith's fold), as x + 0.0 turns -0.0 into 0.0.
// CHECK-LABEL: func.func @add_zero_nsz(
// CHECK-SAME:      %[[X:.*]]: f32, %[[V:.*]]: vector<3xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[KEPT:.*]] = arith.addf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:    return %[[X]], %[[V]], %[[KEPT]] : f32, vector<3xf32>, f32
func.func @add_zero_nsz(%x: f32, %v: vector<3xf32>) -> (f32, vector<3xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<3xf32>
  %a = arith.addf %zero, %x fastmath<nsz> : f32
  %b = arith.addf %v, %zeros fastmath<nsz> : vector<3xf32>
  %c = arith.addf %x, %zero : f32
  return %a, %b, %c : f32, vector<3xf32>, f32
}
