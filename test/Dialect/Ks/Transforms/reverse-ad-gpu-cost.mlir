// RUN: ksc-opt %s --ks-reverse-ad --canonicalize --cse | FileCheck %s --check-prefix=CPU
// RUN: ksc-opt %s --ks-reverse-ad="gpu-cost=true" --canonicalize --cse | FileCheck %s --check-prefix=GPU

// The cost model of the tape (docs/autodiff.md, "Loops"): a square root in
// a loop is kept on the tape for a CPU and recomputed for a GPU (whose tape
// is local memory), so the GPU's adjoint of this loop needs no tape at all.

// CPU-LABEL: ks.kernel @forces_adj(
// CPU:         ks.tape_capacity
// CPU:         scf.for
// CPU:           %[[ROOT:.*]] = math.sqrt
// CPU-NEXT:      ks.tape_push %[[ROOT]] : f32
// CPU:         scf.for
// CPU:           ks.tape_pop : f32
// CPU:         ks.return

// GPU-LABEL: ks.kernel @forces_adj(
// GPU-NOT:     ks.tape
// GPU:         scf.for
// GPU:           %[[ROOT:.*]] = math.sqrt %[[D2:.*]] : f32
// GPU-NEXT:      arith.mulf %[[D2]], %[[ROOT]] : f32
// GPU-NOT:     ks.tape
// GPU:         ks.return
ks.kernel @forces(%pos: !ks.array<const f32>, %f: !ks.array<f32>, %n: i32)
    attributes {arg_names = ["pos", "f", "n"]} {
  %i = ks.tid : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %eps = arith.constant 0.01 : f32
  %zero = arith.constant 0.0 : f32
  %p = ks.load %pos[%i] : !ks.array<const f32>, i32
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %q = ks.load %pos[%j] : !ks.array<const f32>, i32
    %r = arith.subf %q, %p : f32
    %r2 = arith.mulf %r, %r : f32
    %d2 = arith.addf %r2, %eps : f32
    %root = math.sqrt %d2 : f32
    %d3 = arith.mulf %d2, %root : f32
    %term = arith.divf %r, %d3 : f32
    %next = arith.addf %acc, %term : f32
    scf.yield %next : f32
  }
  ks.store %sum, %f[%i] : !ks.array<f32>, i32
  ks.return
}
