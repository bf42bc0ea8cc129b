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

ks.kernel @minimum(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  // expected-error@+1 {{cannot differentiate atomic_min yet: the tangent of the result is that of the thread that wins, which an atomic update cannot record}}
  %old = ks.atomic_rmw min %y[%c0], %v : !ks.array<f32>, i32
  ks.return
}

// -----

// A maximum of constants into an array whose values before the launch
// are differentiated: the winner's tangent is unknown too.
ks.kernel @maximum_of_constants(%y: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  // expected-error@+1 {{cannot differentiate atomic_max yet}}
  %old = ks.atomic_rmw max %y[%c0], %one : !ks.array<f32>, i32
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
