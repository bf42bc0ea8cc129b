// RUN: ksc-opt %s --ks-promote-to-f64 | FileCheck %s
// RUN: ksc-opt %s --ks-promote-to-f64 | FileCheck %s --check-prefix=NO-F32

// No array, vector, matrix, struct field, argument or result of f32 is
// left (the generator's values and bounds are the only f32s).
// NO-F32-NOT: {{xf32|<f32|<const f32|: f32[,)>]|-> f32}}

// Signatures, arrays, vectors, matrices and struct fields become f64;
// float constants are re-read from their decimal form (0.1, not the double
// nearest to the float 0.1f); conversions between float and double go.

// CHECK-LABEL: ks.func @scale(
// CHECK-SAME:      %[[P:.*]]: !ks.struct<"P", pos: vector<3xf64>, m: f64>, %[[D:.*]]: f64) -> vector<3xf64>
// CHECK-DAG:     %[[TENTH:.*]] = arith.constant 1.000000e-01 : f64
// CHECK-DAG:     %[[HALVES:.*]] = arith.constant dense<5.000000e-01> : vector<3xf64>
// CHECK:         %[[POS:.*]] = ks.struct_extract %[[P]][0] : !ks.struct<"P", pos: vector<3xf64>, m: f64> -> vector<3xf64>
// CHECK-NEXT:    %[[M:.*]] = ks.struct_extract %[[P]][1]
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[M]], %[[TENTH]] : f64
// CHECK-NEXT:    %[[T:.*]] = arith.mulf %[[S]], %[[D]] : f64
// CHECK-NEXT:    %[[B:.*]] = vector.broadcast %[[T]] : f64 to vector<3xf64>
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[POS]], %[[B]] : vector<3xf64>
// CHECK-NEXT:    %[[H:.*]] = arith.addf %[[R]], %[[HALVES]] : vector<3xf64>
// CHECK-NEXT:    ks.return %[[H]] : vector<3xf64>
ks.func @scale(%p: !ks.struct<"P", pos: vector<3xf32>, m: f32>, %d: f64) -> vector<3xf32> {
  %tenth = arith.constant 0.1 : f32
  %halves = arith.constant dense<0.5> : vector<3xf32>
  %pos = ks.struct_extract %p[0] : !ks.struct<"P", pos: vector<3xf32>, m: f32> -> vector<3xf32>
  %m = ks.struct_extract %p[1] : !ks.struct<"P", pos: vector<3xf32>, m: f32> -> f32
  %s = arith.addf %m, %tenth : f32
  %ds = arith.truncf %d : f64 to f32
  %t = arith.mulf %s, %ds : f32
  %b = vector.broadcast %t : f32 to vector<3xf32>
  %r = arith.mulf %pos, %b : vector<3xf32>
  %h = arith.addf %r, %halves : vector<3xf32>
  ks.return %h : vector<3xf32>
}

// Kernels, calls, loops and branches; the random numbers stay f32, with
// their bounds rounded to f32 and their values extended.

// CHECK-LABEL: ks.kernel @run(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f64>, %[[Y:.*]]: !ks.array<f64>, %[[M:.*]]: !ks.array<vector<3x3xf64>, 2>, %[[N:.*]]: i32, %[[SEED:.*]]: i32)
// CHECK:         %[[LO:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:         %[[V:.*]] = ks.load %[[X]][%{{.*}}] : !ks.array<const f64>, i32
// CHECK:         %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[V]]) -> (f64)
// CHECK:           %[[W:.*]] = arith.mulf %[[ACC]], %[[V]] : f64
// CHECK:           scf.yield %[[W]] : f64
// CHECK:         %[[R:.*]], %{{.*}} = ks.randf %{{.*}}, %[[LO]], %{{.*}}
// CHECK-NEXT:    %[[RD:.*]] = arith.extf %[[R]] : f32 to f64
// CHECK:         %[[PICK:.*]] = scf.if %{{.*}} -> (f64) {
// CHECK:         ks.store %{{.*}}, %[[Y]][%{{.*}}] : !ks.array<f64>, i32
ks.kernel @run(%x: !ks.array<const f32>, %y: !ks.array<f32>, %m: !ks.array<vector<3x3xf32>, 2>, %n: i32, %seed: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %lo = arith.constant 0.25 : f32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) : i32 {
    %w = arith.mulf %acc, %v : f32
    scf.yield %w : f32
  }
  %s0 = ks.rand_init %seed, %i
  %r, %s1 = ks.randf %s0, %lo, %sum
  %big = arith.cmpf ogt, %r, %sum : f32
  %pick = scf.if %big -> (f32) {
    scf.yield %r : f32
  } else {
    %e = arith.extf %sum : f32 to f64
    %t = arith.truncf %e : f64 to f32
    scf.yield %t : f32
  }
  ks.store %pick, %y[%i] : !ks.array<f32>, i32
  ks.return
}
