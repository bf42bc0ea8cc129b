// RUN: ksc-opt %s --ks-reverse-ad --canonicalize --cse | FileCheck %s
// RUN: ksc-opt %s --ks-reverse-ad="wrt=x1" --canonicalize --cse | FileCheck %s --check-prefix=WRT

// Straight-line code: the forward sweep is the primal body without the
// store (no thread reads y back) and the product it stored; the reverse
// sweep takes the stored element's adjoint (and zeroes it), applies the
// rules of mulf and sin, and accumulates into adj_x atomically: at x[0],
// which every thread reads, and also at x[tid()], since thread 0's plain
// += there would race with the other threads' updates of adj_x[0].

// CHECK-LABEL: ks.kernel @straight_adj(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %{{.*}}: !ks.array<f32>, %[[ADJ_X:.*]]: !ks.array<f32>, %[[ADJ_Y:.*]]: !ks.array<f32>)
// CHECK-SAME:      attributes {ks.adjoint_args = array<i64: 0, 1>, ks.adjoint_of = @straight}
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK:         %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    %[[V:.*]] = ks.load %[[X]][%[[I]]]
// CHECK-NEXT:    %[[S:.*]] = math.sin %[[V]]
// CHECK-NEXT:    %[[X0:.*]] = ks.load %[[X]][%[[C0]]]
// CHECK-NEXT:    %[[DW:.*]] = ks.load %[[ADJ_Y]][%[[I]]]
// CHECK-NEXT:    ks.store %[[ZERO]], %[[ADJ_Y]][%[[I]]]
// CHECK-NEXT:    %[[DX0:.*]] = arith.mulf %[[DW]], %[[S]]
// CHECK-NEXT:    %[[DS:.*]] = arith.mulf %[[DW]], %[[X0]]
// CHECK-NEXT:    ks.atomic_rmw add %[[ADJ_X]][%[[C0]]], %[[DX0]]
// CHECK-NEXT:    %[[COS:.*]] = math.cos %[[V]]
// CHECK-NEXT:    %[[DV:.*]] = arith.mulf %[[DS]], %[[COS]]
// CHECK-NEXT:    ks.atomic_rmw add %[[ADJ_X]][%[[I]]], %[[DV]]
// CHECK-NEXT:    ks.return
ks.kernel @straight(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %s = math.sin %v : f32
  %x0 = ks.load %x[%c0] : !ks.array<const f32>, i32
  %w = arith.mulf %s, %x0 : f32
  ks.store %w, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// An index 2 * tid() + 1 is unique per thread (plain += into adj_z);
// tid() / 2 is not (atomic), nor is tid(0) (threads of a 2-D launch share
// it).

// CHECK-LABEL: ks.kernel @indices_adj(
// CHECK-SAME:      %[[ADJ_X:[^:]*]]: !ks.array<f32>, %[[ADJ_Z:[^:]*]]: !ks.array<f32>, %[[ADJ_Y:[^:]*]]: !ks.array<f32>)
// CHECK:         %[[T0:.*]] = ks.tid 0 : i32
// CHECK:         %[[ODD:.*]] = arith.addi
// CHECK-NEXT:    %[[HALF:.*]] = arith.divsi
// CHECK:         %[[D:.*]] = ks.load %[[ADJ_Y]]
// CHECK:         %[[OLD:.*]] = ks.load %[[ADJ_Z]][%[[ODD]]]
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[OLD]], %[[D]]
// CHECK-NEXT:    ks.store %[[SUM]], %[[ADJ_Z]][%[[ODD]]]
// CHECK-NEXT:    ks.atomic_rmw add %[[ADJ_X]][%[[HALF]]], %[[D]]
// CHECK-NEXT:    ks.atomic_rmw add %[[ADJ_X]][%[[T0]]], %[[D]]
// CHECK-NEXT:    ks.return
ks.kernel @indices(%x: !ks.array<const f32>, %z: !ks.array<const f32>, %y: !ks.array<f32>) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %i = ks.tid : i32
  %t0 = ks.tid 0 : i32
  %double = arith.muli %i, %c2 : i32
  %odd = arith.addi %double, %c1 : i32
  %half = arith.divsi %i, %c2 : i32
  %a = ks.load %x[%t0] : !ks.array<const f32>, i32
  %b = ks.load %x[%half] : !ks.array<const f32>, i32
  %c = ks.load %z[%odd] : !ks.array<const f32>, i32
  %ab = arith.addf %a, %b : f32
  %abc = arith.addf %ab, %c : f32
  ks.store %abc, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// if/else: the forward scf.if yields what its branches computed that the
// reverse sweep reads (the exp, which the exp rule reads; the square was
// only stored); the reverse sweep is an scf.if on the same condition whose
// branches are the reverse sweeps of the branches.

// CHECK-LABEL: ks.kernel @branch_adj(
// CHECK:         %[[V:.*]] = ks.load
// CHECK:         %[[COND:.*]] = arith.cmpf ogt, %[[V]], %{{.*}}
// CHECK:         %[[R:.*]] = scf.if %[[COND]] -> (f32) {
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[V]]
// CHECK-NEXT:      scf.yield %[[E]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %{{.*}}
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DR:.*]] = ks.load %[[ADJ_Y:.*]][%{{.*}}]
// CHECK:         %[[DV:.*]] = scf.if %[[COND]] -> (f32) {
// CHECK-NEXT:      %[[D1:.*]] = arith.mulf %[[DR]], %[[R]]
// CHECK-NEXT:      scf.yield %[[D1]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[DR]], %[[V]]
// CHECK-NEXT:      %[[D2:.*]] = arith.addf %[[P]], %[[P]]
// CHECK-NEXT:      scf.yield %[[D2]]
// CHECK-NEXT:    }
// CHECK:         arith.addf %{{.*}}, %[[DV]]
ks.kernel @branch(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %zero = arith.constant 0.0 : f32
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %cond = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %cond -> (f32) {
    %e = math.exp %v : f32
    scf.yield %e : f32
  } else {
    %q = arith.mulf %v, %v : f32
    scf.yield %q : f32
  }
  ks.store %r, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// A loop with a run-time trip count. Its adjoint tapes it when n times the
// bytes it pushes per iteration fit in half the tape (ks.tape_capacity),
// else it checkpoints it. Taped: the forward loop pushes what the reverse
// sweep reads and cannot recompute (the loop-carried product); the reverse
// loop undoes iteration n - 1 - t in its iteration t, pops the product
// back, reads x[k] again (x is const) and carries adj_p. Checkpointed: the
// forward sweep pushes the index 0 and the product before it; the reverse
// loop pops the last checkpoint and, while it is before the iteration to
// undo, pushes it again and runs the loop halfway there.

// CHECK-LABEL: ks.kernel @product_adj(
// CHECK:         %[[CAP:.*]] = ks.tape_capacity : i64
// CHECK:         %[[USE:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    scf.if %[[USE]] {
// CHECK-NEXT:      ks.tape_push %{{.*}} : i32
// CHECK-NEXT:      ks.tape_push %{{.*}} : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %[[N:.*]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK-NEXT:        %[[XK:.*]] = ks.load %{{.*}}[%[[K]]]
// CHECK-NEXT:        %[[NEXT:.*]] = arith.mulf %[[ACC]], %[[XK]]
// CHECK-NEXT:        ks.tape_push %[[ACC]] : f32
// CHECK-NEXT:        scf.yield %[[NEXT]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DP:.*]] = ks.load
// CHECK:         scf.if
// CHECK:           %[[STATE:.*]] = ks.tape_pop : f32
// CHECK-NEXT:      %[[FROM:.*]] = ks.tape_pop : i32
// CHECK-NEXT:      scf.while (%{{.*}} = %[[FROM]], %{{.*}} = %[[STATE]]) : (i32, f32) -> (i32, f32)
// CHECK:             ks.tape_push %{{.*}} : i32
// CHECK-NEXT:        ks.tape_push %{{.*}} : f32
// CHECK:           } else {
// CHECK:           %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} overflow<nsw>
// CHECK-NEXT:      scf.for %[[T:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[DACC:.*]] = %[[DP]]) -> (f32)
// CHECK-NEXT:        %[[K2:.*]] = arith.subi %[[LAST]], %[[T]] overflow<nsw>
// CHECK-NEXT:        %[[ACC2:.*]] = ks.tape_pop : f32
// CHECK-NEXT:        %[[XK2:.*]] = ks.load %{{.*}}[%[[K2]]]
// CHECK-NEXT:        %[[DXK:.*]] = arith.mulf %[[DACC]], %[[ACC2]]
// CHECK-NEXT:        %[[DNEXT:.*]] = arith.mulf %[[DACC]], %[[XK2]]
// CHECK-NEXT:        ks.atomic_rmw add %{{.*}}[%[[K2]]], %[[DXK]]
// CHECK-NEXT:        scf.yield %[[DNEXT]]
ks.kernel @product(%x: !ks.array<const f32>, %y: !ks.array<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %i = ks.tid : i32
  %p = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (f32) : i32 {
    %xk = ks.load %x[%k] : !ks.array<const f32>, i32
    %next = arith.mulf %acc, %xk : f32
    scf.yield %next : f32
  }
  ks.store %p, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// A cheap operation of an inner loop body that reads a value of the
// enclosing loop body (%f): the inner reverse loop computes %d again, so the
// outer reverse loop must bring %f back first, here by popping the
// loop-carried %acc it is computed from (the forward sweep's %f does not
// dominate the reverse sweep).

// (The reverse loop of the taped outer loop is the else branch of the
// choice between taping and checkpointing.)
// CHECK-LABEL: ks.kernel @outer_operand_adj(
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:           ks.tape_push %[[ACC]] : f32
// CHECK:         } else {
// CHECK:         scf.for %{{.*}} iter_args(%[[DACC:.*]] = %{{.*}}) -> (f32)
// CHECK-NEXT:      %[[ACC2:.*]] = ks.tape_pop : f32
// CHECK-NEXT:      %[[F:.*]] = arith.mulf %[[ACC2]], %{{.*}} : f32
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        %[[K:.*]] = arith.subi
// CHECK-NEXT:        %[[AK:.*]] = ks.load %{{.*}}[%[[K]]]
// CHECK-NEXT:        %[[D:.*]] = arith.subf %[[AK]], %[[F]] : f32
// CHECK-NEXT:        math.cos %[[D]]
ks.kernel @outer_operand(%a: !ks.array<const f32>, %y: !ks.array<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %two = arith.constant 2.0 : f32
  %i = ks.tid : i32
  %x = ks.load %a[%i] : !ks.array<const f32>, i32
  %r = scf.for %s = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) : i32 {
    %f = arith.mulf %acc, %two : f32
    %m = scf.for %k = %c0 to %c4 step %c1 iter_args(%mag = %acc) -> (f32) : i32 {
      %ak = ks.load %a[%k] : !ks.array<const f32>, i32
      %d = arith.subf %ak, %f : f32
      %sn = math.sin %d : f32
      %next = arith.addf %mag, %sn : f32
      scf.yield %next : f32
    }
    scf.yield %m : f32
  }
  ks.store %r, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// --wrt=x1: the adjoint has no code for x2 (no adj_x2 argument, no rule
// applied to x2's value; exp(x2) is the derivative of y by x1), but keeps
// adj_y, which brings the output adjoints in. x1 itself is not read: the
// product was only stored.

// WRT-LABEL: ks.kernel @two_inputs_adj(
// WRT-SAME:      %{{[^:]*}}: !ks.array<const f32>, %[[X2:[^:]*]]: !ks.array<const f32>, %{{[^:]*}}: !ks.array<f32>, %[[ADJ_X1:[^:]*]]: !ks.array<f32>, %[[ADJ_Y:[^:]*]]: !ks.array<f32>)
// WRT-SAME:      ks.adjoint_args = array<i64: 0, 2>
// WRT:           %[[B:.*]] = ks.load %[[X2]]
// WRT-NEXT:      %[[E:.*]] = math.exp %[[B]]
// WRT-NEXT:      %[[D:.*]] = ks.load %[[ADJ_Y]]
// WRT-NEXT:      ks.store %{{.*}}, %[[ADJ_Y]]
// WRT-NEXT:      %[[DA:.*]] = arith.mulf %[[D]], %[[E]]
// WRT-NEXT:      %[[OLD:.*]] = ks.load %[[ADJ_X1]]
// WRT-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[DA]]
// WRT-NEXT:      ks.store %[[NEW]], %[[ADJ_X1]]
// WRT-NEXT:      ks.return
ks.kernel @two_inputs(%x1: !ks.array<const f32>, %x2: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32
  %a = ks.load %x1[%i] : !ks.array<const f32>, i32
  %b = ks.load %x2[%i] : !ks.array<const f32>, i32
  %e = math.exp %b : f32
  %m = arith.mulf %a, %e : f32
  ks.store %m, %y[%i] : !ks.array<f32>, i32
  ks.return
}

// An array written only by a device function still brings its output
// adjoints in (it keeps adj_out under --wrt=x1).

// WRT-LABEL: ks.kernel @writes_in_function_adj(
// WRT-SAME:      %{{[^:]*}}: !ks.array<const f32>, %{{[^:]*}}: !ks.array<f32>, %[[ADJ_X1:[^:]*]]: !ks.array<f32>, %[[ADJ_OUT:[^:]*]]: !ks.array<f32>)
// WRT-SAME:      ks.adjoint_args = array<i64: 0, 1>
ks.func @put(%out: !ks.array<f32>, %i: i32, %v: f32) {
  ks.store %v, %out[%i] : !ks.array<f32>, i32
  ks.return
}
ks.kernel @writes_in_function(%x1: !ks.array<const f32>, %out: !ks.array<f32>) {
  %i = ks.tid : i32
  %a = ks.load %x1[%i] : !ks.array<const f32>, i32
  %b = arith.mulf %a, %a : f32
  ks.call @put(%out, %i, %b) : (!ks.array<f32>, i32, f32) -> ()
  ks.return
}

// Writes of the primal arrays: the forward sweep keeps those a thread may
// read back (y: stored, then read at another index) and atomic updates
// whose old value is used (the slot counter), and drops the others (out is
// only written).

// CHECK-LABEL: ks.kernel @read_back_adj(
// CHECK-SAME:      %[[X:[^:]*]]: !ks.array<const f32>, %[[Y:[^:]*]]: !ks.array<f32>, %[[OUT:[^:]*]]: !ks.array<f32>, %[[COUNT:[^:]*]]: !ks.array<i32>,
// CHECK:         %[[V:.*]] = ks.load %[[X]]
// CHECK-NEXT:    ks.store %[[V]], %[[Y]][%{{.*}}]
// CHECK-NEXT:    %[[W:.*]] = ks.load %[[Y]][%{{.*}}]
// CHECK-NEXT:    %[[SLOT:.*]] = ks.atomic_rmw add %[[COUNT]]
// CHECK-NOT:     ks.store %{{.*}}, %[[OUT]]
// CHECK:         ks.load %{{.*}}[%[[SLOT]]]
// CHECK-NOT:     ks.store %{{.*}}, %[[OUT]]
// CHECK:         ks.return
ks.kernel @read_back(%x: !ks.array<const f32>, %y: !ks.array<f32>, %out: !ks.array<f32>, %count: !ks.array<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = ks.tid : i32
  %next = arith.addi %i, %c1 : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  ks.store %v, %y[%i] : !ks.array<f32>, i32
  %w = ks.load %y[%next] : !ks.array<f32>, i32
  %slot = ks.atomic_rmw add %count[%c0], %c1 : !ks.array<i32>, i32
  %p = arith.mulf %v, %w : f32
  ks.store %p, %out[%slot] : !ks.array<f32>, i32
  ks.return
}

// atomic_max: the adjoint kernel reads the array as the launch left it
// (ks.final_value_args); an update whose value equals the element takes
// the element's adjoint, exchanged for zero, so that one of several tied
// updates gets it.
// CHECK-LABEL: ks.kernel @pool_adj(
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32>, %[[M:.*]]: !ks.array<f32>, %[[ADJ_X:.*]]: !ks.array<f32>, %[[ADJ_M:.*]]: !ks.array<f32>)
// CHECK-SAME:      ks.final_value_args = array<i64: 1>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[K:.*]] = arith.divsi
// CHECK:         %[[E:.*]] = math.exp
// CHECK-NEXT:    %[[FINAL:.*]] = ks.load %[[M]][%[[K]]]
// CHECK-NEXT:    %[[WON:.*]] = arith.cmpf oeq, %[[E]], %[[FINAL]] : f32
// CHECK-NEXT:    %[[TAKEN:.*]] = scf.if %[[WON]] -> (f32) {
// CHECK-NEXT:      %[[ADJ:.*]] = ks.atomic_rmw exchange %[[ADJ_M]][%[[K]]], %[[ZERO]]
// CHECK-NEXT:      scf.yield %[[ADJ]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[ZERO]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.mulf %[[TAKEN]], %[[E]] : f32
ks.kernel @pool(%x: !ks.array<const f32>, %m: !ks.array<f32>) {
  %c2 = arith.constant 2 : i32
  %i = ks.tid : i32
  %k = arith.divsi %i, %c2 : i32
  %v = ks.load %x[%i] : !ks.array<const f32>, i32
  %e = math.exp %v : f32
  %old = ks.atomic_rmw max %m[%k], %e : !ks.array<f32>, i32
  ks.return
}

// normalize: the adjoint is J dn with the symmetric Jacobian
// J = (I - n n^T) / l, scaled by 1 / l where l > 0 and by 0 where l is zero
// (a zero derivative, not the NaN of 0 / 0: the division is by 1 there).
// CHECK-LABEL: ks.kernel @direction_adj(
// CHECK-SAME:      %[[X:[a-z_0-9]*]]: !ks.array<const vector<3xf32>>, %{{.*}}, %[[ADJ_X:[a-z_0-9]*]]: !ks.array<vector<3xf32>>, %[[ADJ_N:[a-z_0-9]*]]: !ks.array<vector<3xf32>>)
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[V:.*]] = ks.load %[[X]]
// CHECK:         %[[DN:.*]] = ks.load %[[ADJ_N]]
// CHECK:         %[[L:.*]] = ks.length %[[V]] : vector<3xf32>
// CHECK-NEXT:    %[[POS:.*]] = arith.cmpf ogt, %[[L]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[POS]], %[[L]], %[[ONE]] : f32
// CHECK-NEXT:    %[[INV:.*]] = arith.divf %[[ONE]], %[[SAFE]] : f32
// CHECK-NEXT:    %[[FACTOR:.*]] = arith.select %[[POS]], %[[INV]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[SPREAD:.*]] = vector.broadcast %[[FACTOR]] : f32 to vector<3xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.mulf %[[V]], %[[SPREAD]] : vector<3xf32>
// CHECK-NEXT:    %[[ALONG:.*]] = ks.dot %[[N]], %[[DN]] : vector<3xf32>
// CHECK-NEXT:    %[[ALONG_V:.*]] = vector.broadcast %[[ALONG]] : f32 to vector<3xf32>
// CHECK-NEXT:    %[[PROJ:.*]] = arith.mulf %[[N]], %[[ALONG_V]] : vector<3xf32>
// CHECK-NEXT:    %[[PERP:.*]] = arith.subf %[[DN]], %[[PROJ]] : vector<3xf32>
// CHECK-NEXT:    %[[DV:.*]] = arith.mulf %[[PERP]], %[[SPREAD]] : vector<3xf32>
// CHECK-NEXT:    %[[OLD:.*]] = ks.load %[[ADJ_X]]
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[OLD]], %[[DV]]
// CHECK-NEXT:    ks.store %[[SUM]], %[[ADJ_X]]
ks.kernel @direction(%x: !ks.array<const vector<3xf32>>, %n: !ks.array<vector<3xf32>>) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<const vector<3xf32>>, i32
  %u = ks.normalize %v : vector<3xf32>
  ks.store %u, %n[%i] : !ks.array<vector<3xf32>>, i32
  ks.return
}
