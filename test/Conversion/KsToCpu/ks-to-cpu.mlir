// RUN: ksc-opt %s --convert-ks-to-cpu=parallel=false | FileCheck %s
// RUN: ksc-opt %s --convert-ks-to-cpu=parallel=false | ksc-opt | FileCheck %s
// RUN: ksc-opt %s --convert-ks-to-cpu=parallel=false | FileCheck %s --check-prefix=GONE

// Nothing of ks.kernel, ks.func, ks.call, ks.return or ks.tid is left.
// GONE-NOT: ks.kernel
// GONE-NOT: ks.func
// GONE-NOT: ks.call
// GONE-NOT: ks.return
// GONE-NOT: ks.tid

// Device functions become private func.func, with the argument names in
// `ks.name` argument attributes; ks.return becomes func.return.

// CHECK-LABEL: func.func private @sq(
// CHECK-SAME:      %[[V:.*]]: f32 {ks.name = "v"}) -> f32 {
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:    return %[[P]] : f32
// CHECK-NEXT:  }
ks.func @sq(%v: f32) -> f32 {
  %0 = arith.mulf %v, %v : f32
  ks.return %0 : f32
}

// Private device functions stay private; unnamed arguments get no ks.name.

// CHECK-LABEL: func.func private @pick(
// CHECK-SAME:      %[[C:.*]]: i1, %[[A:.*]]: i64 {ks.name = "a"}, %[[B:.*]]: i64) -> i64 {
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[C]], %[[A]], %[[B]] : i64
// CHECK-NEXT:    return %[[R]] : i64
// CHECK-NEXT:  }
ks.func private @pick(%arg0: i1, %a: i64, %arg2: i64) -> i64 {
  %0 = arith.select %arg0, %a, %arg2 : i64
  ks.return %0 : i64
}

// A kernel becomes the private function of one thread: the thread indices
// it reads come first and replace ks.tid. Each is named like the variable
// that holds it in the source (the name location of ks.tid). ks.call becomes
// func.call; ks.load, ks.store, ks.dim and ks.check_bounds stay.

// CHECK-LABEL: func.func private @saxpy(
// CHECK-SAME:      %[[I:.*]]: i32 {ks.name = "i"},
// CHECK-SAME:      %[[A:.*]]: f32 {ks.name = "a"},
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32> {ks.name = "x"},
// CHECK-SAME:      %[[Y:.*]]: !ks.array<f32> {ks.name = "y"}) {
// CHECK-NEXT:    %[[N:.*]] = ks.dim %[[Y]], 0 : !ks.array<f32>
// CHECK-NEXT:    ks.check_bounds %[[X]][%[[I]]] {name = "x", where = "saxpy.kdsl:3:14"} : !ks.array<const f32>, i32
// CHECK-NEXT:    %[[XI:.*]] = ks.load %[[X]][%[[I]]] : !ks.array<const f32>, i32
// CHECK-NEXT:    %[[AX:.*]] = arith.mulf %[[A]], %[[XI]] : f32
// CHECK-NEXT:    %[[SQ:.*]] = call @sq(%[[AX]]) : (f32) -> f32
// CHECK-NEXT:    %[[YI:.*]] = ks.load %[[Y]][%[[I]]] : !ks.array<f32>, i32
// CHECK-NEXT:    %[[R:.*]] = arith.addf %[[SQ]], %[[YI]] : f32
// CHECK-NEXT:    ks.store %[[R]], %[[Y]][%[[N]]] : !ks.array<f32>, i64
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// The public launcher runs the threads [0, size of the grid) one after
// another.

// CHECK-LABEL: func.func @launch_saxpy(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid {ks.name = "dim"},
// CHECK-SAME:      %[[A:.*]]: f32 {ks.name = "a"},
// CHECK-SAME:      %[[X:.*]]: !ks.array<const f32> {ks.name = "x"},
// CHECK-SAME:      %[[Y:.*]]: !ks.array<f32> {ks.name = "y"})
// CHECK-SAME:      attributes {ks.launch_of = "saxpy"} {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[SIZE:.*]] = ks.grid_size %[[DIM]]
// CHECK-NEXT:    %[[COUNT:.*]] = arith.trunci %[[SIZE]] : i64 to i32
// CHECK-NEXT:    scf.for %[[T:.*]] = %[[C0]] to %[[COUNT]] step %[[C1]] : i32 {
// CHECK-NEXT:      func.call @saxpy(%[[T]], %[[A]], %[[X]], %[[Y]]) : (i32, f32, !ks.array<const f32>, !ks.array<f32>) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
ks.kernel @saxpy(%a: f32, %x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %i = ks.tid : i32 loc("i"("saxpy.kdsl":2:11))
  %n = ks.dim %y, 0 : !ks.array<f32>
  ks.check_bounds %x[%i] {name = "x", where = "saxpy.kdsl:3:14"} : !ks.array<const f32>, i32
  %xi = ks.load %x[%i] : !ks.array<const f32>, i32
  %0 = arith.mulf %a, %xi : f32
  %1 = ks.call @sq(%0) : (f32) -> f32
  %yi = ks.load %y[%i] : !ks.array<f32>, i32
  %2 = arith.addf %1, %yi : f32
  ks.store %2, %y[%n] : !ks.array<f32>, i64
  ks.return
}

// Without a name location on ks.tid the thread index is called "tid".
// Unnamed kernel arguments get no ks.name. ks.tid nested in regions is
// replaced too.

// CHECK-LABEL: func.func private @anon(
// CHECK-SAME:      %[[T:.*]]: i32 {ks.name = "tid"}, %[[Y:.*]]: !ks.array<i32>, %[[C:.*]]: i1) {
// CHECK-NOT:     ks.tid
// CHECK:         scf.if %[[C]] {
// CHECK-NEXT:      ks.store %[[T]], %[[Y]][%[[T]]] : !ks.array<i32>, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// CHECK-LABEL: func.func @launch_anon(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid {ks.name = "dim"}, %[[Y:.*]]: !ks.array<i32>, %[[C:.*]]: i1)
// CHECK-SAME:      attributes {ks.launch_of = "anon"} {
// CHECK:           %[[SIZE:.*]] = ks.grid_size %[[DIM]]
// CHECK-NEXT:      %[[COUNT:.*]] = arith.trunci %[[SIZE]] : i64 to i32
// CHECK-NEXT:      scf.for %[[T:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} : i32 {
// CHECK-NEXT:        func.call @anon(%[[T]], %[[Y]], %[[C]]) : (i32, !ks.array<i32>, i1) -> ()
ks.kernel @anon(%arg0: !ks.array<i32>, %arg1: i1) {
  scf.if %arg1 {
    %i = ks.tid : i32
    ks.store %i, %arg0[%i] : !ks.array<i32>, i32
  }
  ks.return
}

// Several ks.tid with the same name share it; with different names the
// thread index is "tid". A kernel that never calls tid() gets no index; its
// launcher still runs every thread.

// CHECK-LABEL: func.func private @same_name(
// CHECK-SAME:      %[[T:.*]]: i32 {ks.name = "k"}, %[[Y:.*]]: !ks.array<i32> {ks.name = "y"}) {
// CHECK-NEXT:    ks.store %[[T]], %[[Y]][%[[T]]] : !ks.array<i32>, i32
// CHECK-NEXT:    ks.store %[[T]], %[[Y]][%[[T]]] : !ks.array<i32>, i32
// CHECK-NEXT:    return
ks.kernel @same_name(%y: !ks.array<i32>) {
  %k = ks.tid : i32 loc("k"("t.kdsl":2:11))
  ks.store %k, %y[%k] : !ks.array<i32>, i32
  %k2 = ks.tid : i32 loc("k"("t.kdsl":4:11))
  ks.store %k2, %y[%k2] : !ks.array<i32>, i32
  ks.return
}

// CHECK-LABEL: func.func private @two_names(
// CHECK-SAME:      %[[T:.*]]: i32 {ks.name = "tid"}, %[[Y:.*]]: !ks.array<i32> {ks.name = "y"}) {
// CHECK-NEXT:    ks.store %[[T]], %[[Y]][%[[T]]] : !ks.array<i32>, i32
// CHECK-NEXT:    ks.store %[[T]], %[[Y]][%[[T]]] : !ks.array<i32>, i32
// CHECK-NEXT:    return
ks.kernel @two_names(%y: !ks.array<i32>) {
  %i = ks.tid : i32 loc("i"("t.kdsl":2:11))
  ks.store %i, %y[%i] : !ks.array<i32>, i32
  %j = ks.tid : i32 loc("j"("t.kdsl":4:11))
  ks.store %j, %y[%j] : !ks.array<i32>, i32
  ks.return
}

// Atomic updates stay, like loads and stores; in a serial launch they are
// exclusive (one OS thread runs every thread).

// CHECK-LABEL: func.func private @histogram(
// CHECK-SAME:      %[[T:.*]]: i32 {ks.name = "tid"}, %[[H:.*]]: !ks.array<f32, 2> {ks.name = "h"}, %[[V:.*]]: f32 {ks.name = "v"}) {
// CHECK-NEXT:    %{{.*}} = ks.atomic_rmw add exclusive %[[H]][%[[T]], %[[T]]], %[[V]] : !ks.array<f32, 2>, i32, i32
// CHECK-NEXT:    return
ks.kernel @histogram(%h: !ks.array<f32, 2>, %v: f32) {
  %i = ks.tid : i32
  %old = ks.atomic_rmw add %h[%i, %i], %v : !ks.array<f32, 2>, i32, i32
  ks.return
}

// CHECK-LABEL: func.func private @no_tid() {
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @launch_no_tid(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid {ks.name = "dim"}) attributes {ks.launch_of = "no_tid"} {
// CHECK:           scf.for
// CHECK-NEXT:        func.call @no_tid() : () -> ()
ks.kernel @no_tid() {
  ks.return
}

// A kernel that reads grid coordinates receives the indices it reads, in
// the order tid(), tid(0), tid(1), tid(2) (unnamed ones are tid_x, tid_y,
// tid_z). Its launcher loops over the three dimensions of the grid and
// computes tid() in row-major order.

// CHECK-LABEL: func.func private @grid2d(
// CHECK-SAME:      %[[T:.*]]: i32 {ks.name = "flat"}, %[[R:.*]]: i32 {ks.name = "r"}, %[[C:.*]]: i32 {ks.name = "tid_y"}, %[[Y:.*]]: !ks.array<i32> {ks.name = "y"}) {
// CHECK-NEXT:    %[[V:.*]] = arith.addi %[[R]], %[[C]] : i32
// CHECK-NEXT:    ks.store %[[V]], %[[Y]][%[[T]]] : !ks.array<i32>, i32
// CHECK-LABEL: func.func @launch_grid2d(
// CHECK-SAME:      %[[DIM:.*]]: !ks.grid {ks.name = "dim"}, %[[Y:.*]]: !ks.array<i32> {ks.name = "y"})
// CHECK:           %[[X:.*]] = ks.grid_extent %[[DIM]], 0
// CHECK-NEXT:      %[[XN:.*]] = arith.trunci %[[X]] : i64 to i32
// CHECK-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %[[XN]] step %{{.*}} : i32 {
// CHECK-NEXT:        %[[YE:.*]] = ks.grid_extent %[[DIM]], 1
// CHECK-NEXT:        %[[YN:.*]] = arith.trunci %[[YE]] : i64 to i32
// CHECK-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %[[YN]] step %{{.*}} : i32 {
// CHECK-NEXT:          %[[ZE:.*]] = ks.grid_extent %[[DIM]], 2
// CHECK-NEXT:          %[[ZN:.*]] = arith.trunci %[[ZE]] : i64 to i32
// CHECK-NEXT:          scf.for %[[K:.*]] = %{{.*}} to %[[ZN]] step %{{.*}} : i32 {
// CHECK-NEXT:            %[[YE2:.*]] = ks.grid_extent %[[DIM]], 1
// CHECK-NEXT:            %[[YN2:.*]] = arith.trunci %[[YE2]] : i64 to i32
// CHECK-NEXT:            %[[M1:.*]] = arith.muli %[[I]], %[[YN2]] overflow<nsw> : i32
// CHECK-NEXT:            %[[A1:.*]] = arith.addi %[[M1]], %[[J]] overflow<nsw> : i32
// CHECK-NEXT:            %[[ZE2:.*]] = ks.grid_extent %[[DIM]], 2
// CHECK-NEXT:            %[[ZN2:.*]] = arith.trunci %[[ZE2]] : i64 to i32
// CHECK-NEXT:            %[[M2:.*]] = arith.muli %[[A1]], %[[ZN2]] overflow<nsw> : i32
// CHECK-NEXT:            %[[FLAT:.*]] = arith.addi %[[M2]], %[[K]] overflow<nsw> : i32
// CHECK-NEXT:            func.call @grid2d(%[[FLAT]], %[[I]], %[[J]], %[[Y]])
ks.kernel @grid2d(%y: !ks.array<i32>) {
  %r = ks.tid 0 : i32 loc("r"("t.kdsl":2:11))
  %c = ks.tid 1 : i32
  %t = ks.tid : i32 loc("flat"("t.kdsl":4:11))
  %v = arith.addi %r, %c : i32
  ks.store %v, %y[%t] : !ks.array<i32>, i32
  ks.return
}

// Calls between device functions; results are forwarded.

// CHECK-LABEL: func.func private @quad(
// CHECK-SAME:      %[[V:.*]]: f32 {ks.name = "v"}) -> f32 {
// CHECK-NEXT:    %[[S:.*]] = call @sq(%[[V]]) : (f32) -> f32
// CHECK-NEXT:    %[[Q:.*]] = call @sq(%[[S]]) : (f32) -> f32
// CHECK-NEXT:    return %[[Q]] : f32
ks.func @quad(%v: f32) -> f32 {
  %0 = ks.call @sq(%v) : (f32) -> f32
  %1 = ks.call @sq(%0) : (f32) -> f32
  ks.return %1 : f32
}


// uint32_t parameters and results keep `ks.unsigned` (the launcher's too),
// and functions keep the names of their uint32_t locals.

// CHECK-LABEL: func.func private @mix(
// CHECK-SAME:      %{{.*}}: i32 {ks.inout, ks.name = "s", ks.unsigned}) -> (i32 {ks.unsigned}, i32 {ks.unsigned})
// CHECK-SAME:      attributes {ks.unsigned_names = ["t"]}
ks.func @mix(%s: i32 {ks.inout, ks.unsigned}) -> (i32 {ks.unsigned}, i32 {ks.unsigned})
    attributes {ks.unsigned_names = ["t"]} {
  %c3 = arith.constant 3 : i32
  %t = arith.muli %s, %c3 : i32
  ks.return %t, %t : i32, i32
}

// CHECK-LABEL: func.func private @stream(
// CHECK-SAME:      %{{.*}}: i32 {ks.name = "tid"}, %{{.*}}: i32 {ks.name = "seed", ks.unsigned}, %{{.*}}: !ks.array<ui32> {ks.name = "out"})
// CHECK-SAME:      attributes {ks.unsigned_names = ["t"]}
// CHECK-LABEL: func.func @launch_stream(
// CHECK-SAME:      %{{.*}}: !ks.grid {ks.name = "dim"}, %{{.*}}: i32 {ks.name = "seed", ks.unsigned}, %{{.*}}: !ks.array<ui32> {ks.name = "out"})
ks.kernel @stream(%seed: i32 {ks.unsigned}, %out: !ks.array<ui32>)
    attributes {ks.unsigned_names = ["t"]} {
  %i = ks.tid : i32
  %t = arith.addi %seed, %i : i32
  ks.store %t, %out[%i] : !ks.array<ui32>, i32
  ks.return
}
