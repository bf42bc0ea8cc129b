// RUN: ksc-opt %s --ks-insert-bounds-checks | FileCheck %s
// The pass is idempotent: a second run adds no second checks.
// RUN: ksc-opt %s --ks-insert-bounds-checks --ks-insert-bounds-checks | FileCheck %s
// RUN: ksc-opt %s --ks-insert-bounds-checks | ksc-opt --ks-insert-bounds-checks | FileCheck %s

// A check right before every load, store and atomic update, naming the array (its source
// name) and the source location of the access.

// CHECK-LABEL: ks.kernel @copy(
// CHECK-SAME:      %x: !ks.array<const f32>, %y: !ks.array<f32>) {
// CHECK-NEXT:    %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    ks.check_bounds %x[%[[I]]] {name = "x", where = "copy.kdsl:3:13"} : !ks.array<const f32>, i32
// CHECK-NEXT:    %[[V:.*]] = ks.load %x[%[[I]]] : !ks.array<const f32>, i32
// CHECK-NEXT:    ks.check_bounds %y[%[[I]]] {name = "y", where = "copy.kdsl:3:3"} : !ks.array<f32>, i32
// CHECK-NEXT:    ks.store %[[V]], %y[%[[I]]] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.return
// CHECK-NEXT:  }
ks.kernel @copy(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32 loc("copy.kdsl":3:13)
  ks.store %v, %y[%i] : !ks.array<f32>, i32 loc("copy.kdsl":3:3)
  ks.return
}

// Every access gets its own check, also two accesses of the same element.
// The location is found inside name and fused locations.

// CHECK-LABEL: ks.kernel @same_element(
// CHECK-SAME:      %y: !ks.array<i32>, %n: i64) {
// CHECK-NEXT:    ks.check_bounds %y[%n] {name = "y", where = "k.kdsl:2:11"} : !ks.array<i32>, i64
// CHECK-NEXT:    %[[A:.*]] = ks.load %y[%n] : !ks.array<i32>, i64
// CHECK-NEXT:    ks.check_bounds %y[%n] {name = "y", where = "k.kdsl:3:11"} : !ks.array<i32>, i64
// CHECK-NEXT:    %[[B:.*]] = ks.load %y[%n] : !ks.array<i32>, i64
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:    ks.check_bounds %y[%n] {name = "y", where = "k.kdsl:4:3"} : !ks.array<i32>, i64
// CHECK-NEXT:    ks.store %[[S]], %y[%n] : !ks.array<i32>, i64
// CHECK-NEXT:    ks.return
ks.kernel @same_element(%y: !ks.array<i32>, %n: i64) {
  %a = ks.load %y[%n] : !ks.array<i32>, i64 loc("a"("k.kdsl":2:11))
  %b = ks.load %y[%n] : !ks.array<i32>, i64 loc(fused["k.kdsl":3:11, "k.kdsl":3:15])
  %s = arith.addi %a, %b : i32
  ks.store %s, %y[%n] : !ks.array<i32>, i64 loc("k.kdsl":4:3)
  ks.return
}

// Multi-dimensional accesses check every index. Without a location in the
// source file, `where` is the location in this file (of the op's name for
// ops with results, as the MLIR parser gives it).

// CHECK-LABEL: ks.kernel @matrix(
// CHECK-SAME:      %m: !ks.array<f64, 2>, %i: i64, %j: i32) {
// CHECK-NEXT:    ks.check_bounds %m[%i, %j] {name = "m", where = "{{.*}}insert-bounds-checks.mlir:[[@LINE+5]]:8"} : !ks.array<f64, 2>, i64, i32
// CHECK-NEXT:    %[[E:.*]] = ks.load %m[%i, %j] : !ks.array<f64, 2>, i64, i32
// CHECK-NEXT:    ks.check_bounds %m[%j, %i] {name = "m", where = "{{.*}}insert-bounds-checks.mlir:[[@LINE+4]]:3"} : !ks.array<f64, 2>, i32, i64
// CHECK-NEXT:    ks.store %[[E]], %m[%j, %i] : !ks.array<f64, 2>, i32, i64
ks.kernel @matrix(%m: !ks.array<f64, 2>, %i: i64, %j: i32) {
  %e = ks.load %m[%i, %j] : !ks.array<f64, 2>, i64, i32
  ks.store %e, %m[%j, %i] : !ks.array<f64, 2>, i32, i64
  ks.return
}

// A slice checks the indices of the dimensions it fixes; accesses through
// the view are checked against the view's own shape.

// CHECK-LABEL: ks.kernel @slice(
// CHECK-SAME:      %a: !ks.array<f32, 3>, %i: i32) {
// CHECK-NEXT:    ks.check_bounds %a[%i, %i] {name = "a", where = "k.kdsl:2:7"} : !ks.array<f32, 3>, i32, i32
// CHECK-NEXT:    %[[ROW:.*]] = ks.slice %a[%i, %i] : !ks.array<f32, 3>, i32, i32 -> !ks.array<f32>
// CHECK:         ks.check_bounds %[[ROW]][%i] {name = "row", where = "k.kdsl:3:3"} : !ks.array<f32>, i32
// CHECK-NEXT:    ks.store
ks.kernel @slice(%a: !ks.array<f32, 3>, %i: i32) {
  %row = ks.slice %a[%i, %i] : !ks.array<f32, 3>, i32, i32 -> !ks.array<f32> loc("row"("k.kdsl":2:7))
  %v = arith.constant 1.0 : f32
  ks.store %v, %row[%i] : !ks.array<f32>, i32 loc("k.kdsl":3:3)
  ks.return
}

// An unknown location.

// CHECK-LABEL: ks.kernel @unknown_loc(
// CHECK-NEXT:    ks.check_bounds %x[%n] {name = "x", where = "<unknown>"} : !ks.array<const i1>, i32
// CHECK-NEXT:    ks.load %x[%n]
ks.kernel @unknown_loc(%x: !ks.array<const i1>, %n: i32) {
  %v = ks.load %x[%n] : !ks.array<const i1>, i32 loc(unknown)
  ks.return
}

// Arrays without a source name are called "array"; device functions are
// checked like kernels.

// CHECK-LABEL: ks.func @unnamed(
// CHECK-SAME:      %[[A:.*]]: !ks.array<f32>, %[[B:.*]]: !ks.array<f32>, %[[K:.*]]: i32) -> f32 {
// CHECK-NEXT:    ks.check_bounds %[[A]][%[[K]]] {name = "array", where = "f.kdsl:7:10"} : !ks.array<f32>, i32
// CHECK-NEXT:    %[[V:.*]] = ks.load %[[A]][%[[K]]] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.check_bounds %[[B]][%[[K]]] {name = "array", where = "f.kdsl:8:3"} : !ks.array<f32>, i32
// CHECK-NEXT:    ks.store %[[V]], %[[B]][%[[K]]] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.return %[[V]] : f32
ks.func @unnamed(%arg0: !ks.array<f32>, %arg1: !ks.array<f32>, %arg2: i32) -> f32 {
  %v = ks.load %arg0[%arg2] : !ks.array<f32>, i32 loc("f.kdsl":7:10)
  ks.store %v, %arg1[%arg2] : !ks.array<f32>, i32 loc("f.kdsl":8:3)
  ks.return %v : f32
}

// CHECK-LABEL: ks.func private @device(
// CHECK-SAME:      %src: !ks.array<const i64>, %k: i32) -> i64 {
// CHECK-NEXT:    ks.check_bounds %src[%k] {name = "src", where = "f.kdsl:12:10"} : !ks.array<const i64>, i32
// CHECK-NEXT:    %[[V:.*]] = ks.load %src[%k] : !ks.array<const i64>, i32
// CHECK-NEXT:    ks.return %[[V]] : i64
ks.func private @device(%src: !ks.array<const i64>, %k: i32) -> i64 {
  %v = ks.load %src[%k] : !ks.array<const i64>, i32 loc("f.kdsl":12:10)
  ks.return %v : i64
}

// Accesses nested in scf.if and scf.for are checked where they are.

// CHECK-LABEL: ks.kernel @nested(
// CHECK-SAME:      %x: !ks.array<const f32>, %y: !ks.array<f32>, %n: i32, %c: i1) {
// CHECK:         scf.if %c {
// CHECK-NEXT:      ks.check_bounds %x[%n] {name = "x", where = "n.kdsl:4:9"} : !ks.array<const f32>, i32
// CHECK-NEXT:      %[[V:.*]] = ks.load %x[%n] : !ks.array<const f32>, i32
// CHECK-NEXT:      ks.check_bounds %y[%n] {name = "y", where = "n.kdsl:4:5"} : !ks.array<f32>, i32
// CHECK-NEXT:      ks.store %[[V]], %y[%n] : !ks.array<f32>, i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      ks.check_bounds %y[%n] {name = "y", where = "n.kdsl:6:5"} : !ks.array<f32>, i32
// CHECK-NEXT:      ks.store %{{.*}}, %y[%n] : !ks.array<f32>, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SUM:.*]] = scf.for %[[J:.*]] = %{{.*}} to %n step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) : i32 {
// CHECK-NEXT:      ks.check_bounds %x[%[[J]]] {name = "x", where = "n.kdsl:9:14"} : !ks.array<const f32>, i32
// CHECK-NEXT:      %[[E:.*]] = ks.load %x[%[[J]]] : !ks.array<const f32>, i32
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:      scf.yield %[[NEXT]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    ks.check_bounds %y[%n] {name = "y", where = "n.kdsl:11:3"} : !ks.array<f32>, i32
// CHECK-NEXT:    ks.store %[[SUM]], %y[%n] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.return
ks.kernel @nested(%x: !ks.array<const f32>, %y: !ks.array<f32>, %n: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  scf.if %c {
    %v = ks.load %x[%n] : !ks.array<const f32>, i32 loc("n.kdsl":4:9)
    ks.store %v, %y[%n] : !ks.array<f32>, i32 loc("n.kdsl":4:5)
  } else {
    ks.store %zero, %y[%n] : !ks.array<f32>, i32 loc("n.kdsl":6:5)
  }
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %e = ks.load %x[%j] : !ks.array<const f32>, i32 loc("n.kdsl":9:14)
    %next = arith.addf %acc, %e : f32
    scf.yield %next : f32
  }
  ks.store %sum, %y[%n] : !ks.array<f32>, i32 loc("n.kdsl":11:3)
  ks.return
}

// An existing check that guards the access is kept and not repeated; one
// that guards other indices is not enough.

// CHECK-LABEL: ks.kernel @prechecked(
// CHECK-SAME:      %x: !ks.array<f32>, %i: i32, %j: i32) {
// CHECK-NEXT:    ks.check_bounds %x[%i] {name = "mine", where = "p.kdsl:1:1"} : !ks.array<f32>, i32
// CHECK-NEXT:    %[[A:.*]] = ks.load %x[%i] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.check_bounds %x[%i] {name = "mine", where = "p.kdsl:2:1"} : !ks.array<f32>, i32
// CHECK-NEXT:    ks.check_bounds %x[%j] {name = "x", where = "p.kdsl:3:1"} : !ks.array<f32>, i32
// CHECK-NEXT:    ks.store %[[A]], %x[%j] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.return
ks.kernel @prechecked(%x: !ks.array<f32>, %i: i32, %j: i32) {
  ks.check_bounds %x[%i] {name = "mine", where = "p.kdsl:1:1"} : !ks.array<f32>, i32
  %a = ks.load %x[%i] : !ks.array<f32>, i32 loc("p.kdsl":5:5)
  ks.check_bounds %x[%i] {name = "mine", where = "p.kdsl:2:1"} : !ks.array<f32>, i32
  ks.store %a, %x[%j] : !ks.array<f32>, i32 loc("p.kdsl":3:1)
  ks.return
}

// Functions without array accesses are left alone.

// CHECK-LABEL: ks.kernel @no_access(
// CHECK-NOT:     ks.check_bounds
// CHECK:         ks.return
ks.kernel @no_access(%x: !ks.array<f32>) {
  %d = ks.dim %x, 0 : !ks.array<f32>
  ks.return
}

// After convert-ks-to-cpu, argument names are `ks.name` attributes.

// CHECK-LABEL: func.func private @lowered(
// CHECK-SAME:      %[[T:.*]]: i32 {ks.name = "tid"}, %[[OUT:.*]]: !ks.array<i32> {ks.name = "out"}) {
// CHECK-NEXT:    ks.check_bounds %[[OUT]][%[[T]]] {name = "out", where = "l.kdsl:2:3"} : !ks.array<i32>, i32
// CHECK-NEXT:    ks.store %[[T]], %[[OUT]][%[[T]]] : !ks.array<i32>, i32
func.func private @lowered(%tid: i32 {ks.name = "tid"}, %out: !ks.array<i32> {ks.name = "out"}) {
  ks.store %tid, %out[%tid] : !ks.array<i32>, i32 loc("l.kdsl":2:3)
  return
}

// Atomic updates are accesses too.

// CHECK-LABEL: ks.kernel @histogram(
// CHECK-SAME:      %hist: !ks.array<i32, 2>, %i: i32, %j: i64, %one: i32) {
// CHECK-NEXT:    ks.check_bounds %hist[%i, %j] {name = "hist", where = "hist.kdsl:5:3"} : !ks.array<i32, 2>, i32, i64
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw add %hist[%i, %j], %one : !ks.array<i32, 2>, i32, i64
// CHECK-NEXT:    ks.return
ks.kernel @histogram(%hist: !ks.array<i32, 2>, %i: i32, %j: i64, %one: i32) {
  %old = ks.atomic_rmw add %hist[%i, %j], %one : !ks.array<i32, 2>, i32, i64 loc("hist.kdsl":5:3)
  ks.return
}

// Run-time component positions of vector.extract and vector.insert get a
// ks.check_index against their dimension; constant positions do not.

// CHECK-LABEL: ks.func @components(
// CHECK-SAME:      %[[V:.*]]: vector<3xf32>, %[[M:.*]]: vector<2x2xf64>, %[[K:.*]]: i32, %[[X:.*]]: f64)
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:    ks.check_index %[[I]], 3 {type = "vec3", where = "c.kdsl:2:3"} : index
// CHECK-NEXT:    %[[E:.*]] = vector.extract %[[V]][%[[I]]] : f32 from vector<3xf32>
// CHECK-NEXT:    ks.check_index %[[I]], 2 {type = "mat22d", where = "c.kdsl:3:3"} : index
// CHECK-NEXT:    %[[N:.*]] = vector.insert %[[X]], %[[M]] [1, %[[I]]] : f64 into vector<2x2xf64>
// CHECK-NEXT:    %[[C:.*]] = vector.extract %[[N]][0, 1] : f64 from vector<2x2xf64>
ks.func @components(%v: vector<3xf32>, %m: vector<2x2xf64>, %k: i32, %x: f64) -> f64 {
  %i = arith.index_cast %k : i32 to index
  %e = vector.extract %v[%i] : f32 from vector<3xf32> loc("c.kdsl":2:3)
  %n = vector.insert %x, %m [1, %i] : f64 into vector<2x2xf64> loc("c.kdsl":3:3)
  %c = vector.extract %n[0, 1] : f64 from vector<2x2xf64>
  %d = arith.extf %e : f32 to f64
  %r = arith.addf %c, %d : f64
  ks.return %r : f64
}
