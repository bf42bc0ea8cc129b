// RUN: ksc-opt %s --convert-ks-to-cpu=parallel=false --split-input-file | FileCheck %s

// (The serial launchers of parallel=false; parallel.mlir has the default.)
// An array a kernel only adds into at constant indices (a sum over all
// threads) gets a ks.accumulator of the launch, sized by the largest index:
// the thread function receives the accumulator, which the launcher flushes
// into the array after the last thread. Bounds checks of those indices and
// atomic subtractions are fine.

// CHECK-LABEL: func.func private @sums(
// CHECK:         ks.atomic_rmw add
// CHECK-LABEL: func.func @launch_sums(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid {ks.name = "dim"},
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32> {ks.name = "x"},
// CHECK-SAME:      %[[TOTAL:.*]]: !ks.array<f32> {ks.name = "total"},
// CHECK-SAME:      %[[MOMENTS:.*]]: !ks.array<vector<3xf32>> {ks.name = "moments"})
// CHECK-NEXT:    %[[TOTAL_SUM:.*]] = ks.accumulator %[[TOTAL]] {size = 1 : i64} : !ks.array<f32>
// CHECK-NEXT:    %[[MOMENTS_SUM:.*]] = ks.accumulator %[[MOMENTS]] {size = 3 : i64} : !ks.array<vector<3xf32>>
// CHECK:         scf.for %[[TID:.*]] =
// CHECK-NEXT:      func.call @sums(%[[TID]], %[[X]], %[[TOTAL_SUM]], %[[MOMENTS_SUM]])
// CHECK-NEXT:    }
// CHECK-NEXT:    ks.flush_accumulator %[[TOTAL_SUM]] into %[[TOTAL]] : !ks.array<f32>
// CHECK-NEXT:    ks.flush_accumulator %[[MOMENTS_SUM]] into %[[MOMENTS]] : !ks.array<vector<3xf32>>
// CHECK-NEXT:    return
ks.kernel @sums(%x: !ks.array<const f32>, %total: !ks.array<f32>,
                %moments: !ks.array<vector<3xf32>>) {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i64
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  ks.check_bounds %total[%c0] {name = "total", where = "sums.kdsl:4:3"} : !ks.array<f32>, i32
  %old = ks.atomic_rmw add %total[%c0], %v : !ks.array<f32>, i32
  %s = vector.broadcast %v : f32 to vector<3xf32>
  %old2 = ks.atomic_rmw sub %moments[%c2], %s : !ks.array<vector<3xf32>>, i64
  ks.return
}

// -----

// Arrays the kernel reads, or updates at a run-time index, or whose old
// value it uses, or with min/max, or passes to a function, or of 2
// dimensions, or at an index of 16 or more, stay arrays.

// CHECK-LABEL: func.func @launch_no_sums(
// CHECK-NOT:     ks.accumulator
// CHECK-NOT:     ks.flush_accumulator
// CHECK:         return
ks.func @add_one(%a: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  %old = ks.atomic_rmw add %a[%c0], %one : !ks.array<f32>, i32
  ks.return
}
ks.kernel @no_sums(%read: !ks.array<f32>, %dynamic: !ks.array<f32>,
                   %old: !ks.array<f32>, %low: !ks.array<f32>,
                   %passed: !ks.array<f32>, %grid: !ks.array<f32, 2>,
                   %far: !ks.array<f32>, %out: !ks.array<f32>) {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %one = arith.constant 1.0 : f32
  %0 = ks.atomic_rmw add %read[%c0], %one : !ks.array<f32>, i32
  %r = ks.load %read[%c0] : !ks.array<f32>, i32
  %1 = ks.atomic_rmw add %dynamic[%i], %one : !ks.array<f32>, i32
  %2 = ks.atomic_rmw add %old[%c0], %one : !ks.array<f32>, i32
  %3 = ks.atomic_rmw min %low[%c0], %one : !ks.array<f32>, i32
  %4 = ks.atomic_rmw add %passed[%c0], %one : !ks.array<f32>, i32
  ks.call @add_one(%passed) : (!ks.array<f32>) -> ()
  %5 = ks.atomic_rmw add %grid[%c0, %c0], %one : !ks.array<f32, 2>, i32, i32
  %6 = ks.atomic_rmw add %far[%c16], %one : !ks.array<f32>, i32
  %s = arith.addf %r, %2 : f32
  ks.store %s, %out[%i] : !ks.array<f32>, i32
  ks.return
}
