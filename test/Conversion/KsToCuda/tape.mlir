// RUN: ksc-opt %s --convert-ks-to-cuda="tape-bytes=256" --split-input-file --verify-diagnostics | FileCheck %s

// A kernel whose tape operations use the running thread's tape gets it as
// an argument of its thread function, which its tape operations name; the
// launcher makes it (tape-bytes bytes) and passes it.

// CHECK-LABEL: func.func private @product_adj(
// CHECK-SAME:    %[[TID:.*]]: i32 {ks.name = "tid"}, %{{.*}}: !ks.array<f32> {ks.name = "x"}, %{{.*}}: i32 {ks.name = "n"}, %[[TAPE:.*]]: !ks.tape {ks.name = "tape"})
// CHECK:         ks.tape_push %{{.*}} to %[[TAPE]] : f32
// CHECK:         ks.tape_pop from %[[TAPE]] : f32
// CHECK-LABEL: func.func @launch_product_adj(
// CHECK-NEXT:    %[[CREATED:.*]] = ks.tape_create {capacity = 256 : i64, kernel = "product_adj"}
// CHECK:         func.call @product_adj(%{{.*}}, %{{.*}}, %{{.*}}, %[[CREATED]])
ks.kernel @product_adj(%x: !ks.array<f32>, %n: i32) {
  %i = ks.tid : i32
  %v = ks.load %x[%i] : !ks.array<f32>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    ks.tape_push %v : f32
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %p = ks.tape_pop : f32
    ks.store %p, %x[%i] : !ks.array<f32>, i32
  }
  ks.return
}

// -----

// Device functions have no launcher to make their tape.
ks.func @keeps(%v: f32) {
  // expected-error @below {{the CUDA target supports tapes only in kernels, not in device functions}}
  ks.tape_push %v : f32
  ks.return
}
