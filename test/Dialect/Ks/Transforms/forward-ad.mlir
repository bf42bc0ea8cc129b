// RUN: ksc-opt %s --ks-forward-ad --canonicalize --cse | FileCheck %s
// RUN: ksc-opt %s --ks-forward-ad="wrt=x width=2" --canonicalize --cse | FileCheck %s --check-prefix=WIDTH

// Straight-line code: each active value is followed by its tangent, by the
// rule of its operation (sin: cos(v) dv; a product: both terms; a
// quotient: (dw - z da) / a, one division). Loads of x also load tan_x at
// the same index; the store into y also stores tan_y. The scalar a has a
// tangent passed by value.

// CHECK-LABEL: ks.kernel @straight_jvp(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %[[Y:.*]]: !ks.array<f32>, %[[A:.*]]: f32, %[[TX:.*]]: !ks.array<const f32>, %[[TY:.*]]: !ks.array<f32>, %[[TA:.*]]: f32)
// CHECK-SAME:      attributes {ks.tangent_args = array<i64: 0, 1, 2>, ks.tangent_of = @straight}
// CHECK:         %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    %[[V:.*]] = ks.load %[[X]][%[[I]]]
// CHECK-NEXT:    %[[DV:.*]] = ks.load %[[TX]][%[[I]]]
// CHECK-NEXT:    %[[S:.*]] = math.sin %[[V]]
// CHECK-NEXT:    %[[COS:.*]] = math.cos %[[V]]
// CHECK-NEXT:    %[[DS:.*]] = arith.mulf %[[DV]], %[[COS]]
// CHECK-NEXT:    %[[X0:.*]] = ks.load %[[X]][%[[C0]]]
// CHECK-NEXT:    %[[DX0:.*]] = ks.load %[[TX]][%[[C0]]]
// CHECK-NEXT:    %[[W:.*]] = arith.mulf %[[S]], %[[X0]]
// CHECK-NEXT:    %[[T1:.*]] = arith.mulf %[[DS]], %[[X0]]
// CHECK-NEXT:    %[[T2:.*]] = arith.mulf %[[DX0]], %[[S]]
// CHECK-NEXT:    %[[DW:.*]] = arith.addf %[[T1]], %[[T2]]
// CHECK-NEXT:    %[[Z:.*]] = arith.divf %[[W]], %[[A]]
// CHECK-NEXT:    %[[ZDA:.*]] = arith.mulf %[[Z]], %[[TA]]
// CHECK-NEXT:    %[[NUM:.*]] = arith.subf %[[DW]], %[[ZDA]]
// CHECK-NEXT:    %[[DZ:.*]] = arith.divf %[[NUM]], %[[A]]
// CHECK-NEXT:    ks.store %[[Z]], %[[Y]][%[[I]]]
// CHECK-NEXT:    ks.store %[[DZ]], %[[TY]][%[[I]]]
// CHECK-NEXT:    ks.return

// Two directions (--width=2, with respect to x only): tan_x and tan_y get a
// leading dimension of 2, the direction; every tangent is computed once per
// direction.
// a is not differentiated: its tangent is zero, and has no argument.

// WIDTH-LABEL: ks.kernel @straight_jvp(
// WIDTH-SAME:      %[[X:.*]]: !ks.array<const f32>, %{{.*}}: !ks.array<f32>, %[[A:.*]]: f32, %[[TX:.*]]: !ks.array<const f32, 2>, %[[TY:.*]]: !ks.array<f32, 2>)
// WIDTH-SAME:      attributes {ks.tangent_args = array<i64: 0, 1>, ks.tangent_of = @straight, ks.tangent_width = 2 : i64}
// WIDTH-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// WIDTH-DAG:     %[[C1:.*]] = arith.constant 1 : i32
// WIDTH:         %[[I:.*]] = ks.tid : i32
// WIDTH-NEXT:    %[[V:.*]] = ks.load %[[X]][%[[I]]]
// WIDTH-NEXT:    %[[DV0:.*]] = ks.load %[[TX]][%[[C0]], %[[I]]]
// WIDTH-NEXT:    %[[DV1:.*]] = ks.load %[[TX]][%[[C1]], %[[I]]]
// WIDTH:         %[[Z:.*]] = arith.divf %{{.*}}, %[[A]]
// WIDTH-NEXT:    %[[DZ0:.*]] = arith.divf %{{.*}}, %[[A]]
// WIDTH-NEXT:    %[[DZ1:.*]] = arith.divf %{{.*}}, %[[A]]
// WIDTH-NEXT:    ks.store %[[Z]], %{{.*}}[%[[I]]]
// WIDTH-NEXT:    ks.store %[[DZ0]], %[[TY]][%[[C0]], %[[I]]]
// WIDTH-NEXT:    ks.store %[[DZ1]], %[[TY]][%[[C1]], %[[I]]]
// WIDTH-NEXT:    ks.return
ks.kernel @straight(%x: !ks.array<const f32>, %y: !ks.array<f32>, %a: f32) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %s = math.sin %v : f32
  %x0 = ks.load %x[%c0] : !ks.array<const f32>, i32
  %w = arith.mulf %s, %x0 : f32
  %z = arith.divf %w, %a : f32
  ks.store %z, %y[%i] : !ks.array<f32>, i32
  ks.return
}


// An scf.if yields the tangent of its active result next to it, zero from
// the branch that yields a constant; ks.names names it tan_r.

// CHECK-LABEL: ks.kernel @branch_jvp(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %[[Y:.*]]: !ks.array<f32>, %[[TX:.*]]: !ks.array<const f32>, %[[TY:.*]]: !ks.array<f32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    %[[V:.*]] = ks.load %[[X]][%[[I]]]
// CHECK-NEXT:    %[[DV:.*]] = ks.load %[[TX]][%[[I]]]
// CHECK-NEXT:    %[[POS:.*]] = arith.cmpf ogt, %[[V]], %[[ZERO]]
// CHECK-NEXT:    %[[R:.*]]:2 = scf.if %[[POS]] -> (f32, f32) {
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[V]]
// CHECK-NEXT:      %[[DE:.*]] = arith.mulf %[[DV]], %[[E]]
// CHECK-NEXT:      scf.yield %[[E]], %[[DE]] : f32, f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[ZERO]], %[[ZERO]] : f32, f32
// CHECK-NEXT:    } {ks.names = ["r", "tan_r"]}
// CHECK-NEXT:    ks.store %[[R]]#0, %[[Y]][%[[I]]]
// CHECK-NEXT:    ks.store %[[R]]#1, %[[TY]][%[[I]]]
// CHECK-NEXT:    ks.return
ks.kernel @branch(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %zero = arith.constant 0.0 : f32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %pos = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %pos -> (f32) {
    %e = math.exp %v : f32
    scf.yield %e : f32
  } else {
    scf.yield %zero : f32
  } {ks.names = ["r"]}
  ks.store %r, %y[%i] : !ks.array<f32>, i32
  ks.return
}


// A loop with a run-time trip count carries the tangent of its active
// value as one more iteration argument: no tape, any number of iterations.

// CHECK-LABEL: ks.kernel @loop_jvp(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %[[Y:.*]]: !ks.array<f32>, %[[N:.*]]: i32, %[[TX:.*]]: !ks.array<const f32>, %[[TY:.*]]: !ks.array<f32>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[P:.*]]:2 = scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ONE]], %[[DACC:.*]] = %[[ZERO]]) -> (f32, f32)
// CHECK-NEXT:      %[[XK:.*]] = ks.load %[[X]][%[[K]]]
// CHECK-NEXT:      %[[DXK:.*]] = ks.load %[[TX]][%[[K]]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.mulf %[[ACC]], %[[XK]]
// CHECK-NEXT:      %[[T1:.*]] = arith.mulf %[[DACC]], %[[XK]]
// CHECK-NEXT:      %[[T2:.*]] = arith.mulf %[[DXK]], %[[ACC]]
// CHECK-NEXT:      %[[DNEXT:.*]] = arith.addf %[[T1]], %[[T2]]
// CHECK-NEXT:      scf.yield %[[NEXT]], %[[DNEXT]] : f32, f32
// CHECK-NEXT:    } {ks.names = ["p", "tan_p"]}
// CHECK-NEXT:    ks.store %[[P]]#0, %[[Y]]
// CHECK-NEXT:    ks.store %[[P]]#1, %[[TY]]
ks.kernel @loop(%x: !ks.array<const f32>, %y: !ks.array<f32>, %n: i32) {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = ks.tid : i32
  %p = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (f32) : i32 {
    %xk = ks.load %x[%k] : !ks.array<const f32>, i32
    %next = arith.mulf %acc, %xk : f32
    scf.yield %next : f32
  } {ks.names = ["p"]}
  ks.store %p, %y[%i] : !ks.array<f32>, i32
  ks.return
}


// A while loop: the tangent goes through the before region (scf.condition
// passes it on) and the after region (scf.yield gives it back). The array
// updated in place has one tangent array, read and written.

// CHECK-LABEL: ks.kernel @halve_jvp(
// CHECK-SAME:      %[[X:.*]]: !ks.array<f32>, %[[TX:.*]]: !ks.array<f32>)
// CHECK-SAME:      attributes {ks.tangent_args = array<i64: 0>, ks.tangent_of = @halve}
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[V:.*]] = ks.load %[[X]]
// CHECK-NEXT:    %[[DV:.*]] = ks.load %[[TX]]
// CHECK-NEXT:    %[[R:.*]]:2 = scf.while (%[[U:.*]] = %[[V]], %[[DU:.*]] = %[[DV]]) : (f32, f32) -> (f32, f32) {
// CHECK-NEXT:      %[[BIG:.*]] = arith.cmpf ogt, %[[U]]
// CHECK-NEXT:      scf.condition(%[[BIG]]) %[[U]], %[[DU]] : f32, f32
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[U2:.*]]: f32, %[[DU2:.*]]: f32):
// CHECK-NEXT:      %[[H:.*]] = arith.mulf %[[U2]], %[[HALF]]
// CHECK-NEXT:      %[[DH:.*]] = arith.mulf %[[DU2]], %[[HALF]]
// CHECK-NEXT:      scf.yield %[[H]], %[[DH]] : f32, f32
// CHECK-NEXT:    } attributes {ks.names = ["u", "tan_u"]}
// CHECK-NEXT:    ks.store %[[R]]#0, %[[X]]
// CHECK-NEXT:    ks.store %[[R]]#1, %[[TX]]
ks.kernel @halve(%x: !ks.array<f32>) {
  %half = arith.constant 0.5 : f32
  %limit = arith.constant 1.0 : f32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<f32>, i32
  %r = scf.while (%u = %v) : (f32) -> f32 {
    %big = arith.cmpf ogt, %u, %limit : f32
    scf.condition(%big) %u : f32
  } do {
  ^bb0(%u: f32):
    %h = arith.mulf %u, %half : f32
    scf.yield %h : f32
  } attributes {ks.names = ["u"]}
  ks.store %r, %x[%i] : !ks.array<f32>, i32
  ks.return
}


// An atomic add of an active value also adds its tangent; the integer
// counter has no tangent.

// CHECK-LABEL: ks.kernel @total_jvp(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %[[SUM:.*]]: !ks.array<f32>, %[[COUNT:.*]]: !ks.array<i32>, %[[TX:.*]]: !ks.array<const f32>, %[[TSUM:.*]]: !ks.array<f32>)
// CHECK-SAME:      attributes {ks.tangent_args = array<i64: 0, 1>, ks.tangent_of = @total}
// CHECK:         %[[V:.*]] = ks.load %[[X]]
// CHECK-NEXT:    %[[DV:.*]] = ks.load %[[TX]]
// CHECK-NEXT:    ks.atomic_rmw add %[[SUM]][%[[C0:.*]]], %[[V]]
// CHECK-NEXT:    ks.atomic_rmw add %[[TSUM]][%[[C0]]], %[[DV]]
// CHECK-NEXT:    ks.atomic_rmw add %[[COUNT]]
// CHECK-NEXT:    ks.return
ks.kernel @total(%x: !ks.array<const f32>, %sum: !ks.array<f32>, %count: !ks.array<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %old = ks.atomic_rmw add %sum[%c0], %v : !ks.array<f32>, i32
  %n = ks.atomic_rmw add %count[%c0], %c1 : !ks.array<i32>, i32
  ks.return
}

// atomic_max: the tangent kernel gets the array as the launch left it
// (ks.final_value_args); the update whose value the element ends with
// writes its tangent.
// CHECK-LABEL: ks.kernel @pool_jvp(
// CHECK-SAME:      %[[M:[a-z_]*]]: !ks.array<f32>, %[[TAN_X:[a-z_]*]]: !ks.array<const f32>, %[[TAN_M:[a-z_]*]]: !ks.array<f32>)
// CHECK-SAME:      ks.final_value_args = array<i64: 1>
// CHECK:         %[[K:.*]] = arith.divsi
// CHECK:         %[[E:.*]] = math.exp
// CHECK-NEXT:    %[[TE:.*]] = arith.mulf
// CHECK-NEXT:    ks.atomic_rmw max %[[M]][%[[K]]], %[[E]]
// CHECK-NEXT:    %[[FINAL:.*]] = ks.load %[[M]][%[[K]]]
// CHECK-NEXT:    %[[WON:.*]] = arith.cmpf oeq, %[[E]], %[[FINAL]] : f32
// CHECK-NEXT:    scf.if %[[WON]] {
// CHECK-NEXT:      ks.atomic_rmw exchange %[[TAN_M]][%[[K]]], %[[TE]]
// CHECK-NEXT:    }
ks.kernel @pool(%x: !ks.array<const f32>, %m: !ks.array<f32>) {
  %c2 = arith.constant 2 : i32
  %i = ks.tid : i32
  %k = arith.divsi %i, %c2 : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %e = math.exp %v : f32
  %old = ks.atomic_rmw max %m[%k], %e : !ks.array<f32>, i32
  ks.return
}

// length: dl = dot(v, dv) / l where l > 0, and 0 where l is zero (not the
// NaN of 0 / 0: the division is by 1 there).
// CHECK-LABEL: ks.kernel @distance_jvp(
// CHECK-SAME:      %[[X:[a-z_0-9]*]]: !ks.array<const vector<3xf32>>, %[[E:[a-z_0-9]*]]: !ks.array<f32>, %[[TAN_X:[a-z_0-9]*]]: !ks.array<const vector<3xf32>>, %[[TAN_E:[a-z_0-9]*]]: !ks.array<f32>)
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[V:.*]] = ks.load %[[X]]
// CHECK-NEXT:    %[[DV:.*]] = ks.load %[[TAN_X]]
// CHECK-NEXT:    %[[L:.*]] = ks.length %[[V]] : vector<3xf32>
// CHECK-NEXT:    %[[ALONG:.*]] = ks.dot %[[V]], %[[DV]] : vector<3xf32>
// CHECK-NEXT:    %[[POS:.*]] = arith.cmpf ogt, %[[L]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[POS]], %[[L]], %[[ONE]] : f32
// CHECK-NEXT:    %[[INV:.*]] = arith.divf %[[ONE]], %[[SAFE]] : f32
// CHECK-NEXT:    %[[FACTOR:.*]] = arith.select %[[POS]], %[[INV]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[DL:.*]] = arith.mulf %[[ALONG]], %[[FACTOR]] : f32
// CHECK-NEXT:    ks.store %[[L]], %[[E]]
// CHECK-NEXT:    ks.store %[[DL]], %[[TAN_E]]
ks.kernel @distance(%x: !ks.array<const vector<3xf32>>, %e: !ks.array<f32>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const vector<3xf32>>, i32
  %l = ks.length %v : vector<3xf32>
  ks.store %l, %e[%i] : !ks.array<f32>, i32
  ks.return
}
