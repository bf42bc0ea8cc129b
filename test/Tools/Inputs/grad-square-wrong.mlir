// square (y[i] = x[i] * x[i] * s) with a WRONG adjoint kernel: it adds
// x[i]^2 s adj_y[i] to adj_x[i] where 2 x[i] s adj_y[i] is right (the same
// at x[i] = 2 only). Otherwise as grad-square.mlir.
module {
  ks.kernel @square(%x: !ks.array<const f32>, %s: f32, %y: !ks.array<f32>) {
    %i = ks.tid : i32
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    %v2 = arith.mulf %v, %v : f32
    %r = arith.mulf %v2, %s : f32
    ks.store %r, %y[%i] : !ks.array<f32>, i32
    ks.return
  }
  ks.kernel @square_adj(%x: !ks.array<const f32>, %s: f32, %y: !ks.array<f32>,
                        %adj_x: !ks.array<f32>, %adj_s: !ks.array<f32>,
                        %adj_y: !ks.array<f32>)
      attributes {ks.adjoint_args = array<i64: 0, 1, 2>, ks.adjoint_of = @square} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %i = ks.tid : i32
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    %v2 = arith.mulf %v, %v : f32
    %r = arith.mulf %v2, %s : f32
    ks.store %r, %y[%i] : !ks.array<f32>, i32
    %dy = ks.load %adj_y[%i] : !ks.array<f32>, i32
    ks.store %zero, %adj_y[%i] : !ks.array<f32>, i32
    %t = arith.mulf %v, %v : f32
    %ts = arith.mulf %t, %s : f32
    %dx = arith.mulf %ts, %dy : f32
    %old = ks.load %adj_x[%i] : !ks.array<f32>, i32
    %new = arith.addf %old, %dx : f32
    ks.store %new, %adj_x[%i] : !ks.array<f32>, i32
    %ds = arith.mulf %v2, %dy : f32
    %a = ks.atomic_rmw add %adj_s[%c0], %ds : !ks.array<f32>, i32
    ks.return
  }
  ks.kernel @square_jvp(%x: !ks.array<const f32>, %s: f32, %y: !ks.array<f32>,
                        %tan_x: !ks.array<const f32>, %tan_s: f32,
                        %tan_y: !ks.array<f32>)
      attributes {ks.tangent_args = array<i64: 0, 1, 2>, ks.tangent_of = @square} {
    %two = arith.constant 2.0 : f32
    %i = ks.tid : i32
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    %v2 = arith.mulf %v, %v : f32
    %r = arith.mulf %v2, %s : f32
    ks.store %r, %y[%i] : !ks.array<f32>, i32
    %dv = ks.load %tan_x[%i] : !ks.array<const f32>, i32
    %t = arith.mulf %two, %v : f32
    %ts = arith.mulf %t, %s : f32
    %a = arith.mulf %ts, %dv : f32
    %b = arith.mulf %v2, %tan_s : f32
    %dr = arith.addf %a, %b : f32
    ks.store %dr, %tan_y[%i] : !ks.array<f32>, i32
    ks.return
  }
}
