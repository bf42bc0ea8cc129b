// RUN: ksc-opt %s | FileCheck %s
// RUN: ksc-opt %s | ksc-opt | FileCheck %s
// RUN: ksc-opt %s --mlir-print-op-generic | ksc-opt | FileCheck %s

// Every op of the ks dialect round-trips; argument names survive as the
// names of the entry block arguments.

// CHECK-LABEL: ks.func @sq(
// CHECK-SAME:      %[[V:.*]]: f32) -> f32 {
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:    ks.return %[[P]] : f32
ks.func @sq(%v: f32) -> f32 {
  %0 = arith.mulf %v, %v : f32
  ks.return %0 : f32
}

// CHECK-LABEL: ks.kernel @saxpy(
// CHECK-SAME:      %a: f32, %x: !ks.array<const f32>, %y: !ks.array<f32>) {
// CHECK-NEXT:    %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    %[[XI:.*]] = ks.load %x[%[[I]]] : !ks.array<const f32>, i32
// CHECK-NEXT:    %[[YI:.*]] = ks.load %y[%[[I]]] : !ks.array<f32>, i32
// CHECK-NEXT:    %[[AX:.*]] = arith.mulf %a, %[[XI]] : f32
// CHECK-NEXT:    %[[SQ:.*]] = ks.call @sq(%[[AX]]) : (f32) -> f32
// CHECK-NEXT:    %[[R:.*]] = arith.addf %[[SQ]], %[[YI]] : f32
// CHECK-NEXT:    ks.store %[[R]], %y[%[[I]]] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.return
ks.kernel @saxpy(%a: f32, %x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32
  %xi = ks.load %x[%i] : !ks.array<const f32>, i32
  %yi = ks.load %y[%i] : !ks.array<f32>, i32
  %0 = arith.mulf %a, %xi : f32
  %1 = ks.call @sq(%0) : (f32) -> f32
  %2 = arith.addf %1, %yi : f32
  ks.store %2, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// CHECK-LABEL: ks.kernel @shapes(
// CHECK-SAME:      %m: !ks.array<f64, 2>, %flags: !ks.array<i1>, %n: i64) {
// CHECK-NEXT:    %[[D:.*]] = ks.dim %m, 1 : !ks.array<f64, 2>
// CHECK-NEXT:    %[[E:.*]] = ks.load %m[%n, %[[D]]] : !ks.array<f64, 2>, i64, i64
// CHECK-NEXT:    ks.check_bounds %flags[%n] {name = "flags", where = "k.kdsl:1:2"} : !ks.array<i1>, i64
// CHECK-NEXT:    %[[F:.*]] = ks.load %flags[%n] : !ks.array<i1>, i64
// CHECK-NEXT:    ks.store %[[E]], %m[%n, %n] : !ks.array<f64, 2>, i64, i64
ks.kernel @shapes(%m: !ks.array<f64, 2>, %flags: !ks.array<i1>, %n: i64) {
  %d = ks.dim %m, 1 : !ks.array<f64, 2>
  %e = ks.load %m[%n, %d] : !ks.array<f64, 2>, i64, i64
  ks.check_bounds %flags[%n] {name = "flags", where = "k.kdsl:1:2"} : !ks.array<i1>, i64
  %f = ks.load %flags[%n] : !ks.array<i1>, i64
  ks.store %e, %m[%n, %n] : !ks.array<f64, 2>, i64, i64
  ks.return
}

// Atomic updates of every kind, 1-D and 2-D, with i32 and i64 indices; the
// old value is a result.
// CHECK-LABEL: ks.kernel @atomics(
// CHECK-SAME:      %hist: !ks.array<f32>, %m: !ks.array<i64, 2>, %i: i32, %j: i64, %v: f32, %w: i64) {
// CHECK-NEXT:    %[[A:.*]] = ks.atomic_rmw add %hist[%i], %v : !ks.array<f32>, i32
// CHECK-NEXT:    %[[S:.*]] = ks.atomic_rmw sub %hist[%j], %[[A]] : !ks.array<f32>, i64
// CHECK-NEXT:    %[[N:.*]] = ks.atomic_rmw min %m[%i, %j], %w : !ks.array<i64, 2>, i32, i64
// CHECK-NEXT:    %[[X:.*]] = ks.atomic_rmw max %m[%j, %j], %[[N]] : !ks.array<i64, 2>, i64, i64
// CHECK-NEXT:    ks.return
ks.kernel @atomics(%hist: !ks.array<f32>, %m: !ks.array<i64, 2>, %i: i32,
                   %j: i64, %v: f32, %w: i64) {
  %a = ks.atomic_rmw add %hist[%i], %v : !ks.array<f32>, i32
  %s = ks.atomic_rmw sub %hist[%j], %a : !ks.array<f32>, i64
  %n = ks.atomic_rmw min %m[%i, %j], %w : !ks.array<i64, 2>, i32, i64
  %x = ks.atomic_rmw max %m[%j, %j], %n : !ks.array<i64, 2>, i64, i64
  ks.return
}

// Updates of fields of struct elements (of a nested struct, exclusive, an
// unsigned field whose value is an i32).
// CHECK-LABEL: ks.kernel @atomic_fields(
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw add %b[%i] fields [0, 1], %v : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw add exclusive %b[%i] fields [0, 0], %w : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw max %b[%i] fields [1], %i : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw sub aggregate %b[%i] fields [0, 0], %w : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
ks.kernel @atomic_fields(%b: !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>,
                         %i: i32, %v: f32, %w: vector<3xf32>) {
  %0 = ks.atomic_rmw add %b[%i] fields [0, 1], %v : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
  %1 = ks.atomic_rmw add exclusive %b[%i] fields [0, 0], %w : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
  %2 = ks.atomic_rmw max %b[%i] fields [1], %i : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
  %3 = ks.atomic_rmw sub aggregate %b[%i] fields [0, 0], %w : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
  ks.return
}

// Vectors and matrices with every kind, component by component; parts of
// them: a vector's component, a matrix's row and element, a component of a
// vector field.
// CHECK-LABEL: ks.kernel @atomic_vectors(
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw max %p[%i], %v : !ks.array<vector<3xf32>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw min %n[%i], %k : !ks.array<vector<2xi32>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw exchange %p[%i] fields [2], %s : !ks.array<vector<3xf32>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw sub %m[%i] fields [1], %r : !ks.array<vector<2x2xf64>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw max %m[%i] fields [1, 0], %d : !ks.array<vector<2x2xf64>>, i32
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw add %b[%i] fields [0, 0, 2], %s : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
ks.kernel @atomic_vectors(%p: !ks.array<vector<3xf32>>, %n: !ks.array<vector<2xi32>>,
                          %m: !ks.array<vector<2x2xf64>>,
                          %b: !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>,
                          %i: i32, %v: vector<3xf32>, %k: vector<2xi32>, %s: f32,
                          %r: vector<2xf64>, %d: f64) {
  %0 = ks.atomic_rmw max %p[%i], %v : !ks.array<vector<3xf32>>, i32
  %1 = ks.atomic_rmw min %n[%i], %k : !ks.array<vector<2xi32>>, i32
  %2 = ks.atomic_rmw exchange %p[%i] fields [2], %s : !ks.array<vector<3xf32>>, i32
  %3 = ks.atomic_rmw sub %m[%i] fields [1], %r : !ks.array<vector<2x2xf64>>, i32
  %4 = ks.atomic_rmw max %m[%i] fields [1, 0], %d : !ks.array<vector<2x2xf64>>, i32
  %5 = ks.atomic_rmw add %b[%i] fields [0, 0, 2], %s : !ks.array<!ks.struct<"B", p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, n: ui32>>, i32
  ks.return
}

// Unnamed arguments print as numbers.
// CHECK-LABEL: ks.func private @unnamed(
// CHECK-SAME:      %{{.*}}: i32, %{{.*}}: i1) -> i32
ks.func private @unnamed(%arg0: i32, %arg1: i1) -> i32 {
  ks.return %arg0 : i32
}

// CHECK-LABEL: ks.func @views(
// CHECK-SAME:      %[[Y:.*]]: !ks.array<f32>) -> f32 {
// CHECK-NEXT:    %[[V:.*]] = ks.as_const %[[Y]] : !ks.array<f32>
// CHECK-NEXT:    %[[S:.*]] = ks.call @first(%[[V]]) : (!ks.array<const f32>) -> f32
ks.func @views(%y: !ks.array<f32>) -> f32 {
  %v = ks.as_const %y : !ks.array<f32>
  %s = ks.call @first(%v) : (!ks.array<const f32>) -> f32
  ks.return %s : f32
}

ks.func @first(%x: !ks.array<const f32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %v = ks.load %x[%c0] : !ks.array<const f32>, i32
  ks.return %v : f32
}

// CHECK-LABEL: ks.func @slices(
// CHECK-SAME:      %[[A:.*]]: !ks.array<const f32, 3>, %[[I:.*]]: i32, %[[J:.*]]: i64) -> f32 {
// CHECK-NEXT:    %[[P:.*]] = ks.slice %[[A]][%[[I]]] : !ks.array<const f32, 3>, i32 -> !ks.array<const f32, 2>
// CHECK-NEXT:    %[[R:.*]] = ks.slice %[[P]][%[[J]]] : !ks.array<const f32, 2>, i64 -> !ks.array<const f32>
// CHECK-NEXT:    %[[R2:.*]] = ks.slice %[[A]][%[[I]], %[[J]]] : !ks.array<const f32, 3>, i32, i64 -> !ks.array<const f32>
// CHECK-NEXT:    %[[V:.*]] = ks.load %[[R2]][%[[J]]] : !ks.array<const f32>, i64
ks.func @slices(%a: !ks.array<const f32, 3>, %i: i32, %j: i64) -> f32 {
  %plane = ks.slice %a[%i] : !ks.array<const f32, 3>, i32 -> !ks.array<const f32, 2>
  %row = ks.slice %plane[%j] : !ks.array<const f32, 2>, i64 -> !ks.array<const f32>
  %row2 = ks.slice %a[%i, %j] : !ks.array<const f32, 3>, i32, i64 -> !ks.array<const f32>
  %v = ks.load %row2[%j] : !ks.array<const f32>, i64
  ks.return %v : f32
}

// Grid coordinates, and the grid of a launch.
// CHECK-LABEL: ks.kernel @coords(
// CHECK-NEXT:    %[[X:.*]] = ks.tid 0 : i32
// CHECK-NEXT:    %[[Y:.*]] = ks.tid 1 : i32
// CHECK-NEXT:    %[[Z:.*]] = ks.tid 2 : i32
// CHECK-NEXT:    ks.store %[[Z]], %y[%[[X]], %[[Y]]] : !ks.array<i32, 2>, i32, i32
ks.kernel @coords(%y: !ks.array<i32, 2>) {
  %x = ks.tid 0 : i32
  %yy = ks.tid 1 : i32
  %z = ks.tid 2 : i32
  ks.store %z, %y[%x, %yy] : !ks.array<i32, 2>, i32, i32
  ks.return
}

// CHECK-LABEL: func.func @grid(
// CHECK-SAME:      %[[G:.*]]: !ks.grid) -> (i64, i64) {
// CHECK-NEXT:    %[[E:.*]] = ks.grid_extent %[[G]], 1
// CHECK-NEXT:    %[[N:.*]] = ks.grid_size %[[G]]
// CHECK-NEXT:    return %[[E]], %[[N]] : i64, i64
func.func @grid(%g: !ks.grid) -> (i64, i64) {
  %e = ks.grid_extent %g, 1
  %n = ks.grid_size %g
  return %e, %n : i64, i64
}

// In-out arguments (`T &` parameters) return their final values last.
// CHECK-LABEL: ks.func @swap(
// CHECK-SAME:      %a: f32 {ks.inout}, %b: f32 {ks.inout}) -> (f32, f32) {
// CHECK-NEXT:    ks.return %b, %a : f32, f32
ks.func @swap(%a: f32 {ks.inout}, %b: f32 {ks.inout}) -> (f32, f32) {
  ks.return %b, %a : f32, f32
}

// uint32_t: i32 arguments and results marked ks.unsigned, arrays of ui32
// whose elements are read and written as i32, and the names of a
// function's uint32_t locals.
// CHECK-LABEL: ks.func @hash(
// CHECK-SAME:      %x: !ks.array<const ui32>, %h: !ks.array<ui32>, %n: i32 {ks.unsigned}, %k: i32 {ks.inout, ks.unsigned}) -> (i32 {ks.unsigned}, i32 {ks.unsigned})
// CHECK-SAME:      attributes {ks.unsigned_names = ["v"]} {
// CHECK-NEXT:    %[[V:.*]] = ks.load %x[%n] : !ks.array<const ui32>, i32
// CHECK-NEXT:    %[[Q:.*]] = arith.divui %[[V]], %k : i32
// CHECK-NEXT:    ks.store %[[Q]], %h[%n] : !ks.array<ui32>, i32
// CHECK-NEXT:    ks.return %[[Q]], %[[V]] : i32, i32
ks.func @hash(%x: !ks.array<const ui32>, %h: !ks.array<ui32>, %n: i32 {ks.unsigned},
              %k: i32 {ks.inout, ks.unsigned}) -> (i32 {ks.unsigned}, i32 {ks.unsigned})
    attributes {ks.unsigned_names = ["v"]} {
  %v = ks.load %x[%n] : !ks.array<const ui32>, i32
  %q = arith.divui %v, %k : i32
  ks.store %q, %h[%n] : !ks.array<ui32>, i32
  ks.return %q, %v : i32, i32
}

// Random numbers: a state in, a number and the next state out.
// CHECK-LABEL: ks.kernel @noise(
// CHECK-SAME:      %seed: i32, %out: !ks.array<f32>) {
// CHECK-NEXT:    %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    %[[S0:.*]] = ks.rand_init %seed
// CHECK-NEXT:    %[[S1:.*]] = ks.rand_init %seed, %[[I]]
// CHECK-NEXT:    %[[N:.*]], %[[S2:.*]] = ks.randi %[[S1]]
// CHECK-NEXT:    %[[M:.*]], %[[S3:.*]] = ks.randi %[[S2]], %[[N]], %[[I]]
// CHECK-NEXT:    %[[LO:.*]] = arith.sitofp %[[M]] : i32 to f32
// CHECK-NEXT:    %[[R:.*]], %[[S4:.*]] = ks.randf %[[S3]]
// CHECK-NEXT:    %[[X:.*]], %[[S5:.*]] = ks.randf %[[S4]], %[[LO]], %[[R]]
// CHECK-NEXT:    %[[G:.*]], %{{.*}} = ks.randn %[[S5]]
// CHECK-NEXT:    ks.store %[[G]], %out[%[[I]]] : !ks.array<f32>, i32
// CHECK-NEXT:    ks.store %[[X]], %out[%[[S0]]] : !ks.array<f32>, i32
ks.kernel @noise(%seed: i32, %out: !ks.array<f32>) {
  %i = ks.tid : i32
  %s0 = ks.rand_init %seed
  %s1 = ks.rand_init %seed, %i
  %n, %s2 = ks.randi %s1
  %m, %s3 = ks.randi %s2, %n, %i
  %lo = arith.sitofp %m : i32 to f32
  %r, %s4 = ks.randf %s3
  %x, %s5 = ks.randf %s4, %lo, %r
  %g, %s6 = ks.randn %s5
  ks.store %g, %out[%i] : !ks.array<f32>, i32
  ks.store %x, %out[%s0] : !ks.array<f32>, i32
  ks.return
}

// The launch-private sums of a CPU launcher.
// CHECK-LABEL: func.func @launch_sum(
// CHECK-SAME:      %[[TOTAL:.*]]: !ks.array<vector<3xf32>>, %[[PARTIALS:.*]]: !ks.array<i64> {ks.partial_words = 3 : i64})
// CHECK-NEXT:    %[[SUM:.*]] = ks.accumulator %[[TOTAL]] {size = 2 : i64} : !ks.array<vector<3xf32>>
// CHECK-NEXT:    ks.flush_accumulator %[[SUM]] into %[[TOTAL]] : !ks.array<vector<3xf32>>
// CHECK-NEXT:    ks.flush_accumulator block %[[SUM]] into %[[TOTAL]] : !ks.array<vector<3xf32>>
// CHECK-NEXT:    ks.flush_accumulator block %[[SUM]] into %[[TOTAL]] ordered %[[PARTIALS]] : !ks.array<vector<3xf32>>, !ks.array<i64>
func.func @launch_sum(%total: !ks.array<vector<3xf32>>,
                      %partials: !ks.array<i64> {ks.partial_words = 3 : i64}) {
  %sum = ks.accumulator %total {size = 2 : i64} : !ks.array<vector<3xf32>>
  ks.flush_accumulator %sum into %total : !ks.array<vector<3xf32>>
  ks.flush_accumulator block %sum into %total : !ks.array<vector<3xf32>>
  ks.flush_accumulator block %sum into %total ordered %partials : !ks.array<vector<3xf32>>, !ks.array<i64>
  return
}
