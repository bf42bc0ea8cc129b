// RUN: ksc-opt %s --convert-ks-to-cuda=deterministic=true | FileCheck %s
// RUN: ksc-opt %s --convert-ks-to-cuda | FileCheck %s --check-prefix=DEFAULT
// RUN: ksc-opt %s --convert-ks-to-cuda=deterministic=true --verify-diagnostics -o /dev/null

// GPU launches that give the same bits every time (`ksc --deterministic`,
// docs/cuda.md "How adjoints accumulate on the GPU").

// Sums at constant indices: each block's sums go to partials the launch
// allocates (trailing launcher arguments, ks.partial_words i64 elements per
// block: 1 for an f32, 2 for the 12 bytes of a vector<3xf32>, 1 for an
// f64), and the last block adds them up in block order.
// CHECK-LABEL: func.func @launch_uniform(
// CHECK-SAME:      %[[A:[^:]*]]: !ks.array<f32> {ks.name = "adj_a"}, %[[V:[^:]*]]: !ks.array<vector<3xf32>> {ks.name = "adj_v"}, %[[D:[^:]*]]: !ks.array<f64> {ks.name = "adj_d"},
// CHECK-SAME:      %[[PA:[^:]*]]: !ks.array<i64> {ks.name = "adj_a_partials", ks.partial_words = 1 : i64},
// CHECK-SAME:      %[[PV:[^:]*]]: !ks.array<i64> {ks.name = "adj_v_partials", ks.partial_words = 2 : i64},
// CHECK-SAME:      %[[PD:[^:]*]]: !ks.array<i64> {ks.name = "adj_d_partials", ks.partial_words = 1 : i64})
// CHECK-SAME:      attributes {ks.cuda_launch = "grid-stride", ks.launch_of = "uniform"}
// CHECK-DAG:     %[[SA:.*]] = ks.accumulator %[[A]] {size = 1 : i64}
// CHECK-DAG:     %[[SV:.*]] = ks.accumulator %[[V]] {size = 1 : i64}
// CHECK-DAG:     %[[SD:.*]] = ks.accumulator %[[D]] {size = 1 : i64}
// CHECK:         scf.for
// CHECK:         ks.flush_accumulator block %[[SA]] into %[[A]] ordered %[[PA]] : !ks.array<f32>, !ks.array<i64>
// CHECK-NEXT:    ks.flush_accumulator block %[[SV]] into %[[V]] ordered %[[PV]] : !ks.array<vector<3xf32>>, !ks.array<i64>
// CHECK-NEXT:    ks.flush_accumulator block %[[SD]] into %[[D]] ordered %[[PD]] : !ks.array<f64>, !ks.array<i64>
// CHECK-NEXT:    return

// DEFAULT-LABEL: func.func @launch_uniform(
// DEFAULT-SAME:      %{{[^:]*}}: !ks.array<f64> {ks.name = "adj_d"})
// DEFAULT:         ks.flush_accumulator block %{{.*}} into %{{.*}} : !ks.array<f32>
ks.kernel @uniform(%x: !ks.array<const f32>, %adj_a: !ks.array<f32>,
                   %adj_v: !ks.array<vector<3xf32>>, %adj_d: !ks.array<f64>)
    attributes {arg_names = ["x", "adj_a", "adj_v", "adj_d"]} {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %0 = ks.atomic_rmw add %adj_a[%c0], %v : !ks.array<f32>, i32
  %w = vector.broadcast %v : f32 to vector<3xf32>
  %1 = ks.atomic_rmw add %adj_v[%c0], %w : !ks.array<vector<3xf32>>, i32
  %d = arith.extf %v : f32 to f64
  %2 = ks.atomic_rmw add %adj_d[%c0], %d : !ks.array<f64>, i32
  ks.return
}

// A float sum at an index that varies (a histogram) depends on the order
// of the threads: one GPU thread runs them all, in index order. (Its
// update is still aggregated: a warp of one lane adds it as it is.)
// CHECK-LABEL: func.func @launch_scatter(
// CHECK-SAME:      attributes {ks.cuda_launch = "serial", ks.launch_of = "scatter"}
// CHECK:         scf.for
// DEFAULT-LABEL: func.func @launch_scatter(
// DEFAULT-SAME:      attributes {ks.cuda_launch = "guarded", ks.launch_of = "scatter"}
// (A warning says so, and why.)
// expected-warning@+1 {{with --deterministic, kernel 'scatter' runs on one GPU thread}}
ks.kernel @scatter(%bin: !ks.array<const i32>, %h: !ks.array<f32>) {
  %i = ks.tid : i32
  %b = ks.load %bin[%i] : !ks.array<const i32>, i32
  %one = arith.constant 1.0 : f32
  // expected-note@+1 {{the result of this update depends on the order of the threads}}
  %0 = ks.atomic_rmw add %h[%b], %one : !ks.array<f32>, i32
  ks.return
}

// Integer sums come out the same in any order: a launch as usual.
// CHECK-LABEL: func.func @launch_count(
// CHECK-SAME:      attributes {ks.cuda_launch = "guarded", ks.launch_of = "count"}
ks.kernel @count(%bin: !ks.array<const i32>, %h: !ks.array<i32>) {
  %i = ks.tid : i32
  %b = ks.load %bin[%i] : !ks.array<const i32>, i32
  %one = arith.constant 1 : i32
  %0 = ks.atomic_rmw add %h[%b], %one : !ks.array<i32>, i32
  ks.return
}

// So is an order-dependent update in a function the kernel calls; with a
// sum at a constant index too, the serial launch needs no partials (one
// block adds its sum).
// CHECK-LABEL: func.func @launch_calls(
// CHECK-SAME:      %{{[^:]*}}: !ks.array<f32> {ks.name = "total"})
// CHECK-SAME:      attributes {ks.cuda_launch = "serial", ks.launch_of = "calls"}
// CHECK:         ks.flush_accumulator block %{{.*}} into %{{.*}} : !ks.array<f32>
ks.func @bump(%h: !ks.array<f32>, %i: i32) {
  %one = arith.constant 1.0 : f32
  // expected-note@+1 {{the result of this update depends on the order of the threads}}
  %old = ks.atomic_rmw max %h[%i], %one : !ks.array<f32>, i32
  ks.return
}
// expected-warning@+1 {{with --deterministic, kernel 'calls' runs on one GPU thread}}
ks.kernel @calls(%h: !ks.array<f32>, %total: !ks.array<f32>)
    attributes {arg_names = ["h", "total"]} {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  ks.call @bump(%h, %i) : (!ks.array<f32>, i32) -> ()
  %0 = ks.atomic_rmw add %total[%c0], %one : !ks.array<f32>, i32
  ks.return
}
