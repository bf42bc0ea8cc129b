// RUN: ksc-opt %s --convert-ks-to-llvm --verify-diagnostics

// A flush needs the accumulator's size, which only its ks.accumulator has.
func.func @launch_k(%dim: !ks.grid, %sum: !ks.array<f32>, %a: !ks.array<f32>) attributes {ks.launch_of = "k"} {
  // expected-error @below {{'ks.flush_accumulator' op can be lowered to LLVM only for a ks.accumulator of the same function}}
  ks.flush_accumulator block %sum into %a : !ks.array<f32>
  return
}
