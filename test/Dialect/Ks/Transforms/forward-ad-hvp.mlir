// RUN: ksc-opt %s --ks-reverse-ad --canonicalize --cse --ks-forward-ad=of-adjoints --canonicalize --cse | FileCheck %s

// Forward mode over an adjoint kernel (K_hvp, Hessian-vector products):
// the tape of the adjoint's loop carries each pushed value's tangent right
// after it, and the reverse loop pops the tangent first (checked here where
// the loop is taped, the else branches of the choice between taping and
// checkpointing; test/Grad/long-loop.kdsl has the other). For
// E = log(sum_k exp(x_k)), tan_adj_x receives (Hessian of E) * tan_x.

// CHECK-LABEL: ks.kernel @energy_hvp(
// CHECK-SAME:      %[[X:[^:]*]]: !ks.array<const f32>, %{{[^:]*}}: !ks.array<f32>, %[[N:[^:]*]]: i32, %[[ADJ_X:[^:]*]]: !ks.array<f32>, %[[ADJ_E:[^:]*]]: !ks.array<f32>, %[[TX:[^:]*]]: !ks.array<const f32>, %{{[^:]*}}: !ks.array<f32>, %[[TADJ_X:[^:]*]]: !ks.array<f32>)
// CHECK-SAME:      attributes {ks.tangent_args = array<i64: 0, 1, 3>, ks.tangent_of = @energy_adj}
// CHECK:         %[[S:.*]]:2 = scf.for
// CHECK:           %[[EX:.*]] = math.exp
// CHECK-NEXT:      %[[DEX:.*]] = arith.mulf %{{.*}}, %[[EX]]
// CHECK:           ks.tape_push %[[EX]] : f32
// CHECK-NEXT:      ks.tape_push %[[DEX]] : f32
// CHECK:         } {ks.names = ["s", "tan_s"]}
// CHECK:         } else {
// CHECK:         scf.for
// CHECK:           %[[DPOP:.*]] = ks.tape_pop : f32
// CHECK-NEXT:      %[[POP:.*]] = ks.tape_pop : f32
// CHECK-NEXT:      %[[G:.*]] = arith.mulf %{{.*}}, %[[POP]]
// CHECK:           ks.atomic_rmw add %[[ADJ_X]][%[[K:.*]]], %[[G]]
// CHECK-NEXT:      ks.atomic_rmw add %[[TADJ_X]][%[[K]]], %{{.*}}
// CHECK-NOT:     ks.tape_pop
// CHECK:         ks.return
ks.kernel @energy(%x: !ks.array<const f32>, %e: !ks.array<f32>, %n: i32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %xk = ks.load %x[%k] : !ks.array<const f32>, i32
    %ex = math.exp %xk : f32
    %next = arith.addf %acc, %ex : f32
    scf.yield %next : f32
  } {ks.names = ["s"]}
  %l = math.log %s : f32
  %old = ks.atomic_rmw add %e[%c0], %l : !ks.array<f32>, i32
  ks.return
}
