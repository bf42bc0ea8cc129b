// RUN: ksc-opt %s --ks-reverse-ad="wrt=x" | ksc-opt --ks-reverse-ad="wrt=x" | FileCheck %s

// A second run keeps the adjoint there (and --wrt still finds x).
// CHECK-LABEL: ks.kernel @scale(
// CHECK-LABEL: ks.kernel @scale_adj(
// CHECK-NOT:   ks.kernel
ks.kernel @scale(%x: !ks.array<f32>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<f32>, i32
  %w = arith.mulf %v, %v : f32
  ks.store %w, %x[%i] : !ks.array<f32>, i32
  ks.return
}
