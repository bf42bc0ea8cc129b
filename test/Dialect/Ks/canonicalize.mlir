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

// A loop-carried value whose final value is unused and that feeds only its
// own next value (through an scf.if here) is dropped with what computes
// it; one that feeds a store stays, as does one whose result is used.
// CHECK-LABEL: ks.kernel @dead_carried(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %[[Y:.*]]: !ks.array<f32>, %[[N:.*]]: i32)
// CHECK:         %[[R:.*]]:2 = scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[KEPT:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}) -> (f32, f32)  : i32 {
// CHECK-NEXT:      %[[V:.*]] = ks.load %[[X]][%[[K]]]
// CHECK-NEXT:      ks.store %[[KEPT]], %[[Y]][%[[K]]]
// CHECK-NEXT:      %[[KEPT1:.*]] = arith.mulf %[[KEPT]], %[[V]]
// CHECK-NEXT:      %[[SUM1:.*]] = arith.addf %[[SUM]], %[[V]]
// CHECK-NEXT:      scf.yield %[[KEPT1]], %[[SUM1]] : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    ks.store %[[R]]#1, %[[Y]][%[[N]]]
// CHECK-NEXT:    ks.return
ks.kernel @dead_carried(%x: !ks.array<const f32>, %y: !ks.array<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r:3 = scf.for %k = %c0 to %n step %c1
      iter_args(%dead = %zero, %kept = %one, %sum = %zero) -> (f32, f32, f32) : i32 {
    %v = ks.load %x[%k] : !ks.array<const f32>, i32
    %pos = arith.cmpf ogt, %v, %zero : f32
    %w = scf.if %pos -> (f32) {
      %sq = arith.mulf %v, %v : f32
      scf.yield %sq : f32
    } else {
      scf.yield %dead : f32
    }
    ks.store %kept, %y[%k] : !ks.array<f32>, i32
    %kept1 = arith.mulf %kept, %v : f32
    %sum1 = arith.addf %sum, %v : f32
    scf.yield %w, %kept1, %sum1 : f32, f32, f32
  }
  ks.store %r#2, %y[%n] : !ks.array<f32>, i32
  ks.return
}
