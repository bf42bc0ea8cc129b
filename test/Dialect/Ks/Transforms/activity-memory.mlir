// RUN: ksc-opt %s --ks-reverse-ad="wrt=x print-activity" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ACTIVITY
// RUN: ksc-opt %s --ks-reverse-ad="wrt=x" --cse | FileCheck %s

// The activity analysis follows memory (docs/autodiff.md, "Activity"): an
// array a varied value is written into holds varied elements, whatever
// array it is (y and z are neither --wrt arguments) and whatever the index
// (the store is at 2i, the load reads it back). The load of y is active,
// so the adjoint adds into adj_y[2i], which the reverse of the store
// then moves to x's adjoint.

// ACTIVITY-LABEL: activity of @reload_adj_work:
// ACTIVITY-NEXT:    argument x: active input, has an adjoint
// ACTIVITY-NEXT:    argument y: inactive, has an adjoint, varied values written into it
// ACTIVITY-NEXT:    argument z: inactive, has an adjoint, varied values written into it
// ACTIVITY:         active   ks.load at loc({{.*}}:[[@LINE+20]]:8)
// ACTIVITY:         active   ks.load at loc({{.*}}:[[@LINE+22]]:8)
// ACTIVITY-NEXT:    active   arith.mulf

// CHECK-LABEL: ks.kernel @reload_adj(
// CHECK-SAME:      %[[ADJ_X:[^:]*]]: !ks.array<f32>, %[[ADJ_Y:[^:]*]]: !ks.array<f32>, %[[ADJ_Z:[^:]*]]: !ks.array<f32>)
// CHECK:         %[[J:.*]] = arith.muli
// CHECK:         %[[W:.*]] = ks.load %{{.*}}[%[[J]]]
// CHECK:         %[[DP:.*]] = ks.load %[[ADJ_Z]]
// CHECK:         %[[DW:.*]] = arith.mulf %[[DP]], %[[W]]
// CHECK:         %[[SUM:.*]] = arith.addf %[[DW]], %[[DW]]
// CHECK:         %[[OLD:.*]] = ks.load %[[ADJ_Y]][%[[J]]]
// CHECK-NEXT:    %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK-NEXT:    ks.store %[[NEW]], %[[ADJ_Y]][%[[J]]]
// CHECK-NEXT:    %[[DV:.*]] = ks.load %[[ADJ_Y]][%[[J]]]
// CHECK:         ks.store %{{.*}}, %[[ADJ_Y]][%[[J]]]
// CHECK:         arith.addf %{{.*}}, %[[DV]]
ks.kernel @reload(%x: !ks.array<const f32>, %y: !ks.array<f32>, %z: !ks.array<f32>) {
  %c2 = arith.constant 2 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %j = arith.muli %i, %c2 overflow<nsw> : i32
  ks.store %v, %y[%j] : !ks.array<f32>, i32
  %w = ks.load %y[%j] : !ks.array<f32>, i32
  %p = arith.mulf %w, %w : f32
  ks.store %p, %z[%i] : !ks.array<f32>, i32
  ks.return
}

// Per view root: a store through a row of scratch makes the reads of
// scratch itself varied; an atomic add of a varied value makes the reads
// of acc varied (and the old value it returns, unused here).

// ACTIVITY-LABEL: activity of @views_adj_work:
// ACTIVITY:         argument scratch: inactive, has an adjoint, varied values written into it
// ACTIVITY-NEXT:    argument acc: inactive, has an adjoint, varied values written into it
// ACTIVITY:         active   ks.load at loc({{.*}}:[[@LINE+12]]:8)
// ACTIVITY:         active   ks.load at loc({{.*}}:[[@LINE+12]]:8)
ks.kernel @views(%x: !ks.array<const f32>, %scratch: !ks.array<f32, 2>, %acc: !ks.array<f32>, %z: !ks.array<f32>) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %i = ks.tid : i32
  %row = ks.slice %scratch[%i] : !ks.array<f32, 2>, i32 -> !ks.array<f32>
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %e = math.exp %v : f32
  ks.store %e, %row[%c1] : !ks.array<f32>, i32
  %j = arith.muli %i, %c2 overflow<nsw> : i32
  %old = ks.atomic_rmw add %acc[%j], %v : !ks.array<f32>, i32
  %r = ks.load %scratch[%i, %c1] : !ks.array<f32, 2>, i32, i32
  %a = ks.load %acc[%j] : !ks.array<f32>, i32
  %p = arith.mulf %r, %a : f32
  ks.store %p, %z[%i] : !ks.array<f32>, i32
  ks.return
}

// Flow-sensitive per thread: a read that runs before every varied write
// into its array reads the value before the launch, which is not varied
// (the in-place update y[i] = x[i] * y[i] with --wrt=x gives y's adjoint
// no term); a read after the write is varied. A read in a loop around a
// varied write is varied (a later iteration reads what an earlier one
// wrote).

// ACTIVITY-LABEL: activity of @in_place_adj_work:
// ACTIVITY:         argument y: inactive, has an adjoint, varied values written into it
// ACTIVITY:         inactive ks.load at loc({{.*}}:[[@LINE+6]]:10)
// ACTIVITY:         active   ks.load at loc({{.*}}:[[@LINE+8]]:12)
ks.kernel @in_place(%x: !ks.array<const f32>, %y: !ks.array<f32>, %z: !ks.array<f32>) {
  %c1 = arith.constant 1 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %old = ks.load %y[%i] : !ks.array<f32>, i32
  %p = arith.mulf %v, %old : f32
  ks.store %p, %y[%i] : !ks.array<f32>, i32
  %again = ks.load %y[%c1] : !ks.array<f32>, i32
  %q = arith.mulf %again, %v : f32
  ks.store %q, %z[%i] : !ks.array<f32>, i32
  ks.return
}

// ACTIVITY-LABEL: activity of @loop_adj_work:
// ACTIVITY:         active   ks.load at loc({{.*}}:[[@LINE+7]]:13)
ks.kernel @loop(%x: !ks.array<const f32>, %s: !ks.array<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %prev = ks.load %s[%i] : !ks.array<f32>, i32
    %sum = arith.addf %prev, %v : f32
    ks.store %sum, %s[%i] : !ks.array<f32>, i32
  }
  ks.return
}
