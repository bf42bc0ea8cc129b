// RUN: ksc-opt %s --convert-ks-to-cpu --split-input-file | FileCheck %s
// RUN: ksc-opt %s --convert-ks-to-cpu=parallel=false --split-input-file | FileCheck %s --check-prefix=SERIAL

// The default launcher is a ks.parallel_launch: its body runs a range of
// threads. A kernel without loops has chunks of at least 1024 threads.
// Sums at constant indices become per-chunk sums; their updates, and only
// theirs, become exclusive.

// CHECK-LABEL: func.func private @sums(
// CHECK:         ks.atomic_rmw add exclusive %{{.*}}[%{{.*}}], %{{.*}} : !ks.array<f32>
// CHECK:         ks.atomic_rmw sub exclusive %{{.*}}[%{{.*}}], %{{.*}} : !ks.array<vector<3xf32>>
// CHECK:         ks.atomic_rmw add %{{.*}}[%{{.*}}], %{{.*}} : !ks.array<i32>
// CHECK-LABEL: func.func @launch_sums(
// CHECK-SAME:      %[[DIM:[^:]*]]: !ks.grid
// CHECK-SAME:      %[[X:[^:]*]]: !ks.array<const f32>
// CHECK-SAME:      %[[TOTAL:[^:]*]]: !ks.array<f32>
// CHECK-SAME:      %[[MOMENTS:[^:]*]]: !ks.array<vector<3xf32>>
// CHECK-SAME:      %[[HIST:[^:]*]]: !ks.array<i32>
// CHECK-NEXT:    ks.parallel_launch %[[DIM]] grain 1024 sums(%[[TOTAL]], %[[MOMENTS]] : !ks.array<f32>, !ks.array<vector<3xf32>>) attributes {sizes = array<i64: 1, 3>} {
// CHECK-NEXT:    ^bb0(%[[BEGIN:.*]]: i32, %[[END:.*]]: i32, %[[TOTAL_SUM:.*]]: !ks.array<f32>, %[[MOMENTS_SUM:.*]]: !ks.array<vector<3xf32>>):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      scf.for %[[TID:.*]] = %[[BEGIN]] to %[[END]] step %[[ONE]] : i32 {
// CHECK-NEXT:        func.call @sums(%[[TID]], %[[X]], %[[TOTAL_SUM]], %[[MOMENTS_SUM]], %[[HIST]])
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// Serial: every atomic update is exclusive (one OS thread runs the launch).
// SERIAL-LABEL: func.func private @sums(
// SERIAL:         ks.atomic_rmw add exclusive
// SERIAL:         ks.atomic_rmw sub exclusive
// SERIAL:         ks.atomic_rmw add exclusive %{{.*}}[%{{.*}}], %{{.*}} : !ks.array<i32>
// SERIAL-LABEL: func.func @launch_sums(
// SERIAL-NOT:     ks.parallel_launch
// SERIAL:         ks.accumulator
ks.kernel @sums(%x: !ks.array<const f32>, %total: !ks.array<f32>,
                %moments: !ks.array<vector<3xf32>>, %hist: !ks.array<i32>) {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i64
  %one = arith.constant 1 : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %old = ks.atomic_rmw add %total[%c0], %v : !ks.array<f32>, i32
  %s = vector.broadcast %v : f32 to vector<3xf32>
  %old2 = ks.atomic_rmw sub %moments[%c2], %s : !ks.array<vector<3xf32>>, i64
  // A histogram: a data-dependent index outside loops stays atomic.
  %bin = arith.fptosi %v : f32 to i32
  %old3 = ks.atomic_rmw add %hist[%bin], %one : !ks.array<i32>, i32
  ks.return
}

// -----

// A kernel with a loop has chunks of any size (grain 1). An array it only
// adds into, with an update in the loop, gets a copy per OS thread
// (`private`), updated exclusively; one whose old values it reads stays
// atomic. The thread reads tid(0) and tid(1): coordinates of the flat index.

// CHECK-LABEL: func.func private @scatter(
// CHECK:         scf.for
// CHECK:           ks.atomic_rmw add exclusive %{{.*}} : !ks.array<f32>
// CHECK:           ks.atomic_rmw add %{{.*}} : !ks.array<i32>
// CHECK-LABEL: func.func @launch_scatter(
// CHECK-SAME:      %[[DIM:[^:]*]]: !ks.grid
// CHECK-SAME:      %[[IDX:[^:]*]]: !ks.array<const i32>
// CHECK-SAME:      %[[ADJ:[^:]*]]: !ks.array<f32>
// CHECK-SAME:      %[[SLOTS:[^:]*]]: !ks.array<i32>
// CHECK-NEXT:    ks.parallel_launch %[[DIM]] grain 1 private(%[[ADJ]] : !ks.array<f32>) {
// CHECK-NEXT:    ^bb0(%[[BEGIN:.*]]: i32, %[[END:.*]]: i32, %[[PART:.*]]: !ks.array<f32>):
// CHECK:           scf.for %[[TID:.*]] = %[[BEGIN]] to %[[END]]
// CHECK-DAG:         %[[Y:.*]] = ks.grid_extent %[[DIM]], 1
// CHECK-DAG:         %[[Z:.*]] = ks.grid_extent %[[DIM]], 2
// CHECK:             %[[ROWS:.*]] = arith.divsi %[[TID]], %{{.*}} : i32
// CHECK:             %[[YS:.*]] = arith.remsi %[[ROWS]], %{{.*}} : i32
// CHECK:             %[[XS:.*]] = arith.divsi %[[ROWS]], %{{.*}} : i32
// CHECK:             func.call @scatter(%[[XS]], %[[YS]], %[[IDX]], %[[PART]], %[[SLOTS]])

// SERIAL-LABEL: func.func @launch_scatter(
// SERIAL-NOT:     private
// SERIAL:         scf.for
// SERIAL:           scf.for
// SERIAL:             scf.for
ks.kernel @scatter(%idx: !ks.array<const i32>, %adj: !ks.array<f32>,
                   %slots: !ks.array<i32>) {
  %x = ks.tid 0 : i32
  %y = ks.tid 1 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %v = arith.sitofp %y : i32 to f32
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    %j = ks.load %idx[%k] : !ks.array<const i32>, i32
    %old = ks.atomic_rmw add %adj[%j], %v : !ks.array<f32>, i32
    %slot = ks.atomic_rmw add %slots[%x], %c1 : !ks.array<i32>, i32
    ks.store %slot, %slots[%slot] : !ks.array<i32>, i32
  }
  ks.return
}
