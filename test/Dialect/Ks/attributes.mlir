// RUN: ksc-opt %s -split-input-file -verify-diagnostics

// The ks attributes on operations, arguments and results of any dialect
// (KsBase.td, discardableAttrs) are verified by the dialect
// (KsAttributes.cpp): their values have the declared kinds, and a ks.*
// attribute the dialect does not declare is an error.

// Well-formed attributes verify.
ks.kernel @k(%x: !ks.array<f32>) {
  ks.return
}
ks.kernel @k_adj(%x: !ks.array<f32>, %adj_x: !ks.array<f32>)
    attributes {ks.adjoint_of = @k, ks.adjoint_args = array<i64: 0>} {
  ks.return
}
ks.kernel @k_jvp(%x: !ks.array<f32>, %dx: !ks.array<f32>)
    attributes {ks.tangent_of = @k, ks.tangent_args = array<i64: 0>,
                ks.tangent_width = 2 : i64, ks.unsigned_names = ["s"]} {
  ks.return
}
func.func @launch_k(%n: i32 {ks.name = "n", ks.unsigned})
    attributes {ks.launch_of = "k", ks.cuda_launch = "guarded"} {
  return
}

// -----

// expected-error@+1 {{'ks.kernel' op attribute 'ks.adjoint_of' must be a symbol reference to the primal kernel, not "k"}}
ks.kernel @adjoint_of_string() attributes {ks.adjoint_of = "k"} {
  ks.return
}

// -----

// expected-error@+1 {{'ks.kernel' op attribute 'ks.tangent_args' must be an array<i64> of argument indices, not [0]}}
ks.kernel @tangent_args_list() attributes {ks.tangent_args = [0]} {
  ks.return
}

// -----

// expected-error@+1 {{'ks.kernel' op attribute 'ks.tangent_width' must be a positive i64, not 0 : i64}}
ks.kernel @tangent_width_zero() attributes {ks.tangent_width = 0 : i64} {
  ks.return
}

// -----

// expected-error@+1 {{'func.func' op attribute 'ks.cuda_launch' must be "grid-stride", "guarded" or "serial", not "warp"}}
func.func @launch_k() attributes {ks.cuda_launch = "warp"} {
  return
}

// -----

// expected-error@+1 {{'arith.constant' op attribute 'ks.names' must be an array of strings, not [1]}}
%0 = arith.constant {ks.names = [1]} 0 : i32

// -----

// expected-error@+1 {{'arith.constant' op the ks dialect has no attribute 'ks.inout' for operations}}
%0 = arith.constant {ks.inout} 0 : i32

// -----

// expected-error@+1 {{'func.func' op attribute 'ks.inout' of argument 0 must be a unit attribute, not true}}
func.func @inout_bool(%x: i32 {ks.inout = true}) {
  return
}

// -----

// expected-error@+1 {{'func.func' op the ks dialect has no attribute 'ks.launch_of' for arguments}}
func.func @launch_of_argument(%x: i32 {ks.launch_of = "k"}) {
  return
}

// -----

// expected-error@+1 {{'func.func' op the ks dialect has no attribute 'ks.name' for results}}
func.func @named_result() -> (i32 {ks.name = "r"}) {
  %0 = arith.constant 0 : i32
  return %0 : i32
}

// -----

// expected-error@+1 {{'arith.constant' op the ks dialect has no attribute 'ks.frobnicate' for operations}}
%0 = arith.constant {ks.frobnicate} 0 : i32
