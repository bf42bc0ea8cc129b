// RUN: ksc-opt %s --ks-reverse-ad --canonicalize --cse | FileCheck %s
// RUN: ksc-opt %s --ks-forward-ad --canonicalize --cse | FileCheck %s --check-prefix=JVP
// RUN: ksc-opt %s --ks-forward-ad="wrt=x" --canonicalize --cse | FileCheck %s --check-prefix=JVP

// A call of a function with custom derivative rules (ks.custom_adjoint,
// ks.custom_tangent: KSC_ADJOINT and KSC_TANGENT in the source) is not
// inlined: the adjoint calls the adjoint rule with the operands, the
// result's adjoint and a zero for the operand's adjoint (an in-out
// argument, returned), the tangent calls the tangent rule.

// CHECK-LABEL: ks.kernel @squares_adj(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %{{.*}}: !ks.array<f32>, %[[ADJ_X:.*]]: !ks.array<f32>, %[[ADJ_Y:.*]]: !ks.array<f32>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[V:.*]] = ks.load %[[X]]
// CHECK:         %[[DY:.*]] = ks.load %[[ADJ_Y]]
// CHECK:         %[[DV:.*]] = ks.call @sq_adj(%[[V]], %[[DY]], %[[ZERO]]) : (f32, f32, f32) -> f32
// CHECK:         arith.addf %{{.*}}, %[[DV]]

// JVP-LABEL: ks.kernel @squares_jvp(
// JVP:           %[[V:.*]] = ks.load %x
// JVP-NEXT:      %[[TV:.*]] = ks.load %tan_x
// JVP-NEXT:      %[[Y:.*]] = ks.call @sq(%[[V]])
// JVP-NEXT:      %[[TY:.*]] = ks.call @sq_tan(%[[V]], %[[TV]]) : (f32, f32) -> f32
// JVP-NEXT:      ks.store %[[Y]], %y
// JVP-NEXT:      ks.store %[[TY]], %tan_y

// Without a tangent rule, forward mode calls the adjoint rule once per
// component of the result with a unit adjoint, and takes the inner
// product of the operands' adjoints with their tangents.
// JVP-LABEL: ks.kernel @cubes_jvp(
// JVP-DAG:       %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// JVP-DAG:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// JVP:           %[[V:.*]] = ks.load %x
// JVP-NEXT:      %[[TV:.*]] = ks.load %tan_x
// JVP-NEXT:      ks.call @cube(%[[V]])
// JVP-NEXT:      %[[G:.*]] = ks.call @cube_adj(%[[V]], %[[ONE]], %[[ZERO]]) : (f32, f32, f32) -> f32
// JVP-NEXT:      arith.mulf %[[G]], %[[TV]] : f32

ks.func @sq(%x: f32) -> f32 attributes {ks.custom_adjoint = @sq_adj, ks.custom_tangent = @sq_tan} {
  %y = arith.mulf %x, %x : f32
  ks.return %y : f32
}
ks.func @sq_adj(%x: f32, %dy: f32, %dx: f32 {ks.inout}) -> f32 {
  %two = arith.constant 2.0 : f32
  %t = arith.mulf %two, %x : f32
  %g = arith.mulf %t, %dy : f32
  %s = arith.addf %dx, %g : f32
  ks.return %s : f32
}
ks.func @sq_tan(%x: f32, %tx: f32) -> f32 {
  %two = arith.constant 2.0 : f32
  %t = arith.mulf %two, %x : f32
  %g = arith.mulf %t, %tx : f32
  ks.return %g : f32
}
ks.kernel @squares(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %s = ks.call @sq(%v) : (f32) -> f32
  ks.store %s, %y[%i] : !ks.array<f32>, i32
  ks.return
}

ks.func @cube(%x: f32) -> f32 attributes {ks.custom_adjoint = @cube_adj} {
  %y = arith.mulf %x, %x : f32
  %z = arith.mulf %y, %x : f32
  ks.return %z : f32
}
ks.func @cube_adj(%x: f32, %dy: f32, %dx: f32 {ks.inout}) -> f32 {
  %three = arith.constant 3.0 : f32
  %y = arith.mulf %x, %x : f32
  %t = arith.mulf %three, %y : f32
  %g = arith.mulf %t, %dy : f32
  %s = arith.addf %dx, %g : f32
  ks.return %s : f32
}
ks.kernel @cubes(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %s = ks.call @cube(%v) : (f32) -> f32
  ks.store %s, %y[%i] : !ks.array<f32>, i32
  ks.return
}
