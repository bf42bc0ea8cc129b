// square (y[i] = x[i] * x[i] * s, as in grad-square.mlir) with a
// hand-written tangent kernel of two directions (ks.tangent_width = 2):
// tan_x[k][i], tan_s[k] and tan_y[k][i] are direction k (the direction
// comes first), and tan_y[k][i] = 2 x[i] s tan_x[k][i] + x[i]^2 tan_s[k].
module {
  ks.kernel @square(%x: !ks.array<const f32>, %s: f32, %y: !ks.array<f32>) {
    %i = ks.tid : i32
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    %v2 = arith.mulf %v, %v : f32
    %r = arith.mulf %v2, %s : f32
    ks.store %r, %y[%i] : !ks.array<f32>, i32
    ks.return
  }
  ks.kernel @square_jvp(%x: !ks.array<const f32>, %s: f32, %y: !ks.array<f32>,
                        %tan_x: !ks.array<const f32, 2>,
                        %tan_s: !ks.array<const f32>,
                        %tan_y: !ks.array<f32, 2>)
      attributes {ks.tangent_args = array<i64: 0, 1, 2>, ks.tangent_of = @square,
                  ks.tangent_width = 2 : i64} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant 2.0 : f32
    %i = ks.tid : i32
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    %v2 = arith.mulf %v, %v : f32
    %r = arith.mulf %v2, %s : f32
    ks.store %r, %y[%i] : !ks.array<f32>, i32
    %t = arith.mulf %two, %v : f32
    %ts = arith.mulf %t, %s : f32
    %dx0 = ks.load %tan_x[%c0, %i] : !ks.array<const f32, 2>, i32, i32
    %ds0 = ks.load %tan_s[%c0] : !ks.array<const f32>, i32
    %a0 = arith.mulf %ts, %dx0 : f32
    %b0 = arith.mulf %v2, %ds0 : f32
    %d0 = arith.addf %a0, %b0 : f32
    ks.store %d0, %tan_y[%c0, %i] : !ks.array<f32, 2>, i32, i32
    %dx1 = ks.load %tan_x[%c1, %i] : !ks.array<const f32, 2>, i32, i32
    %ds1 = ks.load %tan_s[%c1] : !ks.array<const f32>, i32
    %a1 = arith.mulf %ts, %dx1 : f32
    %b1 = arith.mulf %v2, %ds1 : f32
    %d1 = arith.addf %a1, %b1 : f32
    ks.store %d1, %tan_y[%c1, %i] : !ks.array<f32, 2>, i32, i32
    ks.return
  }
}
