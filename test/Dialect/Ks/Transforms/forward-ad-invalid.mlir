// RUN: ksc-opt %s --ks-forward-ad -split-input-file -verify-diagnostics

// What forward mode refuses, each at the operation it cannot differentiate.

ks.kernel @old_value(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  // expected-error@+1 {{cannot differentiate the value an atomic update returns: it depends on the order of the threads; read the element with a[i] instead}}
  %old = ks.atomic_rmw add %y[%c0], %v : !ks.array<f32>, i32
  ks.store %old, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// -----

// The derivative of atomic_min reads the values the launch leaves in the
// array: no other access of it can be differentiated.
ks.kernel @minimum_and_read(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  // expected-note@+1 {{updated here}}
  %old = ks.atomic_rmw min %y[%c0], %v : !ks.array<f32>, i32
  // expected-error@+1 {{cannot differentiate this access of 'y': the kernel also updates it with atomic_min, whose derivative reads the values the launch leaves in it}}
  %w = ks.load %y[%i] : !ks.array<f32>, i32
  %s = arith.mulf %w, %v : f32
  ks.store %s, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// -----

ks.kernel @maximum_old_value(%x: !ks.array<const f32>, %y: !ks.array<f32>, %z: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  // expected-error@+1 {{cannot differentiate the value an atomic update returns: it depends on the order of the threads; read the element with a[i] instead}}
  %old = ks.atomic_rmw max %y[%c0], %v : !ks.array<f32>, i32
  ks.store %old, %z[%i] : !ks.array<f32>, i32
  ks.return
}

// -----

// An operation without the DerivativeOpInterface (KsInterfaces.td) has no
// tangent rule.
ks.kernel @no_rule(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  // expected-error@+1 {{cannot differentiate 'math.expm1' in forward mode}}
  %e = math.expm1 %v : f32
  ks.store %e, %y[%i] : !ks.array<f32>, i32
  ks.return
}
