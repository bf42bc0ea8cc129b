// RUN: not ksc-opt %s --ks-reverse-ad="wrt=count" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not ksc-opt %s --ks-reverse-ad="wrt=n" 2>&1 | FileCheck %s --check-prefix=INTEGER

// --wrt must name differentiable arguments of the kernels.

// UNKNOWN: error: --wrt names 'count', which is not an argument of any kernel
// INTEGER: error: cannot differentiate with respect to 'n': its type 'i32' has no derivative
ks.kernel @scale(%x: !ks.array<f32>, %n: i32) {
  ks.return
}
