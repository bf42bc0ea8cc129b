// RUN: ksc-opt %s --convert-ks-to-cuda | FileCheck %s
// RUN: ksc-opt %s --convert-ks-to-cuda=launch=grid-stride | FileCheck %s --check-prefix=STRIDE

// How sums over the threads reach memory on the GPU (docs/cuda.md, "How
// adjoints accumulate on the GPU").

// A sum at constant indices (the adjoint of a scalar argument, %adj_a): a
// ks.accumulator per GPU thread in place of the array, plain (exclusive)
// updates, and the block's sum added after a loop over the grid (with
// either launch: such a kernel is launched with few blocks). A sum at an index
// that varies (%adj_c[%k] in a loop) and one at the thread's index of an
// array also updated at another index (%hist) are aggregated across the
// warp. An update whose old value is used stays as it is.

// CHECK-LABEL: func.func private @sums(
// CHECK-SAME:      %[[TID:[^:]*]]: i32 {ks.name = "tid"}
// CHECK-SAME:      %[[ADJ_A:[^:]*]]: !ks.array<f32> {ks.name = "adj_a"}, %[[ADJ_C:[^:]*]]: !ks.array<f32> {ks.name = "adj_c"}, %[[HIST:[^:]*]]: !ks.array<i32> {ks.name = "hist"}
// CHECK:         ks.atomic_rmw add exclusive %[[ADJ_A]][%{{.*}}], %{{.*}} : !ks.array<f32>, i32
// CHECK:         ks.atomic_rmw sub exclusive %[[ADJ_A]][%{{.*}}], %{{.*}} : !ks.array<f32>, i32
// CHECK:         scf.for %[[K:.*]] =
// CHECK-NEXT:      ks.atomic_rmw add aggregate %[[ADJ_C]][%[[K]]], %{{.*}} : !ks.array<f32>, i32
// CHECK:         ks.atomic_rmw add aggregate %[[HIST]][%[[TID]]], %{{.*}} : !ks.array<i32>, i32
// CHECK:         %[[OLD:.*]] = ks.atomic_rmw add %[[HIST]][%{{.*}}], %{{.*}} : !ks.array<i32>, i32
// CHECK:         ks.store %[[OLD]]

// CHECK-LABEL: func.func @launch_sums(
// CHECK-SAME:      %[[LA:[^:]*]]: !ks.array<f32> {ks.name = "adj_a"}, %[[LC:[^:]*]]: !ks.array<f32> {ks.name = "adj_c"}, %[[LH:[^:]*]]: !ks.array<i32> {ks.name = "hist"}
// CHECK-SAME:      attributes {ks.cuda_launch = "grid-stride", ks.launch_of = "sums"}
// CHECK-NEXT:    %[[SUM:.*]] = ks.accumulator %[[LA]] {size = 2 : i64} : !ks.array<f32>
// CHECK:         scf.for
// CHECK-NEXT:      %[[I:.*]] = arith.trunci
// CHECK-NEXT:      func.call @sums(%[[I]], %{{.*}}, %[[SUM]], %[[LC]], %[[LH]], %{{.*}})
// CHECK-NEXT:    }
// CHECK-NEXT:    ks.flush_accumulator block %[[SUM]] into %[[LA]] : !ks.array<f32>
// CHECK-NEXT:    return

// STRIDE-LABEL: func.func @launch_sums(
// STRIDE-NEXT:    %[[SUM:.*]] = ks.accumulator
// STRIDE:         scf.for
// STRIDE:           func.call @sums(%{{.*}}, %{{.*}}, %[[SUM]],
// STRIDE-NEXT:    }
// STRIDE-NEXT:    ks.flush_accumulator block %[[SUM]] into
ks.kernel @sums(%x: !ks.array<const f32>, %adj_a: !ks.array<f32>,
                %adj_c: !ks.array<f32>, %hist: !ks.array<i32>, %n: i32,
                %out: !ks.array<i32>)
    attributes {arg_names = ["x", "adj_a", "adj_c", "hist", "n", "out"]} {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %0 = ks.atomic_rmw add %adj_a[%c0], %v : !ks.array<f32>, i32
  %1 = ks.atomic_rmw sub %adj_a[%c1], %v : !ks.array<f32>, i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %2 = ks.atomic_rmw add %adj_c[%k], %v : !ks.array<f32>, i32
  }
  %3 = ks.atomic_rmw add %hist[%i], %c1 : !ks.array<i32>, i32
  %old = ks.atomic_rmw add %hist[%c0], %c1 : !ks.array<i32>, i32
  ks.store %old, %out[%i] : !ks.array<i32>, i32
  ks.return
}
