// RUN: ksc-opt %s --ks-reverse-ad --canonicalize --cse | FileCheck %s --check-prefix=ADJ
// RUN: ksc-opt %s --ks-forward-ad --canonicalize --cse | FileCheck %s --check-prefix=JVP

// A component-wise atomic_max of vectors: each component of the element
// ends with its own winner, so each component's adjoint (tangent) goes on
// its own: compared with the final value (ks.final_value_args), and taken
// by an exchange of that component (`fields [c]`). The adjoint of the
// thread's value is assembled from its components.

// ADJ-LABEL: ks.kernel @bounds_adj(
// ADJ-SAME:      %[[P:[^:]*]]: !ks.array<const vector<2xf32>>, %[[HI:[^:]*]]: !ks.array<vector<2xf32>>, %[[ADJ_P:[^:]*]]: !ks.array<vector<2xf32>>, %[[ADJ_HI:[^:]*]]: !ks.array<vector<2xf32>>)
// ADJ-SAME:      ks.final_value_args = array<i64: 1>
// ADJ:           %[[V:.*]] = ks.load %[[P]]
// ADJ-NEXT:      %[[FINAL:.*]] = ks.load %[[HI]]
// ADJ-NEXT:      %[[V0:.*]] = vector.extract %[[V]][0]
// ADJ-NEXT:      %[[F0:.*]] = vector.extract %[[FINAL]][0]
// ADJ-NEXT:      %[[WON0:.*]] = arith.cmpf oeq, %[[V0]], %[[F0]] : f32
// ADJ-NEXT:      %[[D0:.*]] = scf.if %[[WON0]] -> (f32) {
// ADJ-NEXT:        %[[T0:.*]] = ks.atomic_rmw exchange %[[ADJ_HI]][%{{.*}}] fields [0], %{{.*}} : !ks.array<vector<2xf32>>, i32
// ADJ-NEXT:        scf.yield %[[T0]] : f32
// ADJ:           %[[WON1:.*]] = arith.cmpf oeq
// ADJ-NEXT:      %[[D1:.*]] = scf.if %[[WON1]] -> (f32) {
// ADJ-NEXT:        %[[T1:.*]] = ks.atomic_rmw exchange %[[ADJ_HI]][%{{.*}}] fields [1], %{{.*}} : !ks.array<vector<2xf32>>, i32
// ADJ:           %[[D:.*]] = vector.from_elements %[[D0]], %[[D1]] : vector<2xf32>
// ADJ:           arith.addf %{{.*}}, %[[D]]

// JVP-LABEL: ks.kernel @bounds_jvp(
// JVP-SAME:      %[[TAN_P:[^:]*]]: !ks.array<const vector<2xf32>>, %[[TAN_HI:[^:]*]]: !ks.array<vector<2xf32>>)
// JVP:           %[[DV:.*]] = ks.load %[[TAN_P]]
// JVP:           %[[WON0:.*]] = arith.cmpf oeq
// JVP-NEXT:      scf.if %[[WON0]] {
// JVP-NEXT:        %[[DV0:.*]] = vector.extract %[[DV]][0] : f32 from vector<2xf32>
// JVP-NEXT:        ks.atomic_rmw exchange %[[TAN_HI]][%{{.*}}] fields [0], %[[DV0]]
// JVP:           %[[WON1:.*]] = arith.cmpf oeq
// JVP-NEXT:      scf.if %[[WON1]] {
// JVP-NEXT:        %[[DV1:.*]] = vector.extract %[[DV]][1] : f32 from vector<2xf32>
// JVP-NEXT:        ks.atomic_rmw exchange %[[TAN_HI]][%{{.*}}] fields [1], %[[DV1]]
ks.kernel @bounds(%p: !ks.array<const vector<2xf32>>, %hi: !ks.array<vector<2xf32>>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %p[%i] : !ks.array<const vector<2xf32>>, i32
  %old = ks.atomic_rmw max %hi[%c0], %v : !ks.array<vector<2xf32>>, i32
  ks.return
}

// A vector atomic add: the adjoint of the value is the element's adjoint,
// read whole.
// ADJ-LABEL: ks.kernel @forces_adj(
// ADJ-SAME:      %[[ADJ_F:[^:]*]]: !ks.array<vector<3xf32>>)
// ADJ:           %[[G:.*]] = ks.load %[[ADJ_F]][%{{.*}}] : !ks.array<vector<3xf32>>, i32
// ADJ-NEXT:      %[[NEG:.*]] = arith.negf %[[G]] : vector<3xf32>
ks.kernel @forces(%x: !ks.array<const vector<3xf32>>, %f: !ks.array<vector<3xf32>>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const vector<3xf32>>, i32
  %old = ks.atomic_rmw sub %f[%c0], %v : !ks.array<vector<3xf32>>, i32
  ks.return
}
