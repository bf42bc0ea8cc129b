// RUN: ksc-opt %s --convert-ks-to-cuda | FileCheck %s
// RUN: ksc-opt %s --convert-ks-to-cuda=launch=grid-stride | FileCheck %s --check-prefix=STRIDE
// RUN: not ksc-opt %s --convert-ks-to-cuda=launch=strided 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: unknown launch 'strided': expected 'guarded' or 'grid-stride'

// The thread function is the CPU lowering's; the launcher is one GPU
// thread: its global index in 64 bits, the call under a guard.

// CHECK-LABEL: func.func private @fill(
// CHECK-SAME:      %[[TID:.*]]: i32 {ks.name = "i"}, %[[V:.*]]: f32 {ks.name = "v"}, %[[Y:.*]]: !ks.array<f32> {ks.name = "y"}) {
// CHECK-NEXT:    ks.store %[[V]], %[[Y]][%[[TID]]]
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @launch_fill(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid {ks.name = "dim"}, %[[LV:.*]]: f32 {ks.name = "v"}, %[[LY:.*]]: !ks.array<f32> {ks.name = "y"})
// CHECK-SAME:      attributes {ks.cuda_launch = "guarded", ks.launch_of = "fill"}
// CHECK-DAG:     %[[B:.*]] = gpu.block_id x
// CHECK-DAG:     %[[BD:.*]] = gpu.block_dim x
// CHECK-DAG:     %[[T:.*]] = gpu.thread_id x
// CHECK-DAG:     %[[B64:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK-DAG:     %[[BD64:.*]] = arith.index_cast %[[BD]] : index to i64
// CHECK-DAG:     %[[T64:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK:         %[[P:.*]] = arith.muli %[[B64]], %[[BD64]] overflow<nsw> : i64
// CHECK-NEXT:    %[[FLAT:.*]] = arith.addi %[[P]], %[[T64]] overflow<nsw> : i64
// CHECK-NEXT:    %[[N:.*]] = ks.grid_size %[[DIM]]
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi slt, %[[FLAT]], %[[N]] : i64
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[I:.*]] = arith.trunci %[[FLAT]] : i64 to i32
// CHECK-NEXT:      func.call @fill(%[[I]], %[[LV]], %[[LY]])
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// STRIDE-LABEL: func.func @launch_fill(
// STRIDE-SAME:      attributes {ks.cuda_launch = "grid-stride", ks.launch_of = "fill"}
// STRIDE:         %[[FLAT:.*]] = arith.addi
// STRIDE-NEXT:    %[[N:.*]] = ks.grid_size
// STRIDE-NEXT:    %[[G:.*]] = gpu.grid_dim x
// STRIDE-NEXT:    %[[G64:.*]] = arith.index_cast %[[G]] : index to i64
// STRIDE-NEXT:    %[[STEP:.*]] = arith.muli %[[G64]], %{{.*}} overflow<nsw> : i64
// STRIDE-NEXT:    scf.for %[[K:.*]] = %[[FLAT]] to %[[N]] step %[[STEP]] : i64 {
// STRIDE-NEXT:      %[[I:.*]] = arith.trunci %[[K]] : i64 to i32
// STRIDE-NEXT:      func.call @fill(%[[I]],
ks.kernel @fill(%v: f32, %y: !ks.array<f32>) {
  %i = ks.tid : i32 loc("i")
  ks.store %v, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// Coordinates come from the flat index in row-major order:
// flat = (x * Y + y) * Z + z.

// CHECK-LABEL: func.func @launch_plane(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid
// CHECK:         scf.if
// CHECK-NEXT:      %[[Y:.*]] = ks.grid_extent %[[DIM]], 1
// CHECK-NEXT:      %[[Z:.*]] = ks.grid_extent %[[DIM]], 2
// CHECK-NEXT:      %[[ROWS:.*]] = arith.divsi %[[FLAT:.*]], %[[Z]] : i64
// CHECK-NEXT:      %[[ZC:.*]] = arith.remsi %[[FLAT]], %[[Z]] : i64
// CHECK-NEXT:      %[[YC:.*]] = arith.remsi %[[ROWS]], %[[Y]] : i64
// CHECK-NEXT:      %[[XC:.*]] = arith.divsi %[[ROWS]], %[[Y]] : i64
// CHECK-NEXT:      %[[X32:.*]] = arith.trunci %[[XC]] : i64 to i32
// CHECK-NEXT:      %[[Z32:.*]] = arith.trunci %[[ZC]] : i64 to i32
// CHECK-NEXT:      func.call @plane(%[[X32]], %[[Z32]], %{{.*}})
ks.kernel @plane(%y: !ks.array<f32, 2>) {
  %x = ks.tid 0 : i32
  %z = ks.tid 2 : i32
  %one = arith.constant 1.0 : f32
  ks.store %one, %y[%x, %z] : !ks.array<f32, 2>, i32, i32
  ks.return
}
