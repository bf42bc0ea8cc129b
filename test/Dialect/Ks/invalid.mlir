// RUN: ksc-opt %s -split-input-file -verify-diagnostics

// One case per error of the ks dialect's verifiers (KsOps.cpp, KsTypes.cpp)
// and of the constraints ODS generates for its operations.

//===----------------------------------------------------------------------===//
// !ks.array
//===----------------------------------------------------------------------===//

// expected-error@+1 {{array element type must be f32, f64, i1, i32, ui32, i64, a vector of 2 to 4 f32, f64 or i32, a square matrix (2x2 to 4x4) of f32 or f64, or a struct, got 'f16'}}
ks.kernel @bad_element(%a: !ks.array<f16>) {
  ks.return
}

// -----

// expected-error@+1 {{array element type must be f32, f64, i1, i32, ui32, i64, a vector of 2 to 4 f32, f64 or i32, a square matrix (2x2 to 4x4) of f32 or f64, or a struct, got 'index'}}
ks.func @bad_const_element(%a: !ks.array<const index>) {
  ks.return
}

// -----

// Arrays of arrays are not arrays of the kernel language.
// expected-error@+1 {{array element type must be f32, f64, i1, i32, ui32, i64, a vector of 2 to 4 f32, f64 or i32, a square matrix (2x2 to 4x4) of f32 or f64, or a struct, got '!ks.array<f32>'}}
ks.kernel @nested_array(%a: !ks.array<!ks.array<f32>>) {
  ks.return
}

// -----

// expected-error@+1 {{array rank must be between 1 and 4, got 0}}
ks.kernel @rank_zero(%a: !ks.array<f32, 0>) {
  ks.return
}

// -----

// expected-error@+1 {{array rank must be between 1 and 4, got 5}}
ks.kernel @rank_five(%a: !ks.array<const i32, 5>) {
  ks.return
}

//===----------------------------------------------------------------------===//
// ks.kernel and ks.func
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'ks.kernel' op must not return values}}
ks.kernel @returns(%a: f32) -> f32 {
  ks.return %a : f32
}

// -----

// expected-error@+1 {{'ks.kernel' op argument type 'f16' is not a scalar, vector, matrix, struct or !ks.array type}}
ks.kernel @half(%a: f16) {
  ks.return
}

// -----

// expected-error@+1 {{'ks.kernel' op argument type 'index' is not a scalar, vector, matrix, struct or !ks.array type}}
ks.kernel @index_arg(%x: !ks.array<f32>, %i: index) {
  ks.return
}

// -----

// expected-error@+1 {{'ks.func' op argument type 'memref<4xf32>' is not a scalar, vector, matrix, struct or !ks.array type}}
ks.func @memref_arg(%a: memref<4xf32>) {
  ks.return
}

// -----

// expected-error@+1 {{'ks.func' op argument type 'i8' is not a scalar, vector, matrix, struct or !ks.array type}}
ks.func @i8_arg(%a: i8) {
  ks.return
}

// -----

// A device function may take arrays but only return scalars.
// expected-error@+1 {{'ks.func' op result type '!ks.array<f32>' is not a scalar type}}
ks.func @returns_array(%a: !ks.array<f32>) -> !ks.array<f32> {
  ks.return %a : !ks.array<f32>
}

// -----

// expected-error@+1 {{'ks.func' op result type 'i8' is not a scalar type}}
ks.func @returns_i8(%a: i32) -> i8 {
  %0 = arith.trunci %a : i32 to i8
  ks.return %0 : i8
}

// -----

// expected-error@+1 {{'ks.kernel' op has 2 argument names for 1 arguments}}
ks.kernel @too_many_names(%a: f32) attributes {arg_names = ["a", "b"]} {
  ks.return
}

// -----

// expected-error@+1 {{'ks.func' op has 0 argument names for 2 arguments}}
ks.func @too_few_names(%a: f32, %b: f32) attributes {arg_names = []} {
  ks.return
}

// -----

// The entry block must match the signature (checked by FunctionOpInterface).
// expected-error@+1 {{'ks.kernel' op entry block must have 1 arguments to match function signature}}
"ks.kernel"() <{function_type = (f32) -> (), sym_name = "missing_block_arg"}> ({
^bb0:
  ks.return
}) : () -> ()

// -----

// expected-error@+1 {{'ks.func' op type of entry block argument #0('i32') must match the type of the corresponding argument in function signature('f32')}}
"ks.func"() <{function_type = (f32) -> (), sym_name = "wrong_block_arg"}> ({
^bb0(%a: i32):
  ks.return
}) : () -> ()

// -----

// expected-error@+1 {{'ks.kernel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
"ks.kernel"() <{function_type = () -> (), sym_name = "no_body"}> ({
}) : () -> ()

// -----

// expected-error@+1 {{'ks.func' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
"ks.func"() <{function_type = () -> (), sym_name = "two_blocks"}> ({
^bb0:
  ks.return
^bb1:
  ks.return
}) : () -> ()

//===----------------------------------------------------------------------===//
// ks.return
//===----------------------------------------------------------------------===//

// -----

ks.kernel @kernel_returns_value(%a: f32) {
  // expected-error@+1 {{'ks.return' op has 1 operands, but the enclosing ks.kernel returns 0}}
  ks.return %a : f32
}

// -----

ks.func @missing_value() -> i32 {
  // expected-error@+1 {{'ks.return' op has 0 operands, but the enclosing ks.func returns 1}}
  ks.return
}

// -----

ks.func @wrong_type(%a: i64) -> i32 {
  // expected-error@+1 {{'ks.return' op type of operand #0 ('i64') does not match result type 'i32' of the enclosing ks.func}}
  ks.return %a : i64
}

// -----

func.func @not_in_ks_function() {
  // expected-error@+1 {{'ks.return' op expects parent op to be one of 'ks.kernel, ks.func'}}
  ks.return
}

//===----------------------------------------------------------------------===//
// ks.call
//===----------------------------------------------------------------------===//

// -----

ks.kernel @unknown_callee() {
  // expected-error@+1 {{'ks.call' op callee @nope does not name a symbol in scope}}
  ks.call @nope() : () -> ()
  ks.return
}

// -----

ks.kernel @other() {
  ks.return
}

ks.kernel @calls_kernel() {
  // expected-error@+1 {{'ks.call' op cannot call kernel @other; kernels are launched, not called}}
  ks.call @other() : () -> ()
  ks.return
}

// -----

func.func private @host(f32) -> f32

ks.kernel @calls_func_func(%a: f32) {
  // expected-error@+1 {{'ks.call' op callee @host is not a ks.func}}
  %r = ks.call @host(%a) : (f32) -> f32
  ks.return
}

// -----

ks.func @sq(%v: f32) -> f32 {
  %0 = arith.mulf %v, %v : f32
  ks.return %0 : f32
}

ks.kernel @wrong_call_type(%a: f64) {
  // expected-error@+1 {{'ks.call' op call type '(f64) -> f64' does not match the callee's type '(f32) -> f32'}}
  %r = ks.call @sq(%a) : (f64) -> f64
  ks.return
}

// -----

ks.func @sq(%v: f32) -> f32 {
  %0 = arith.mulf %v, %v : f32
  ks.return %0 : f32
}

ks.kernel @wrong_call_arity(%a: f32) {
  // expected-error@+1 {{'ks.call' op call type '(f32, f32) -> f32' does not match the callee's type '(f32) -> f32'}}
  %r = ks.call @sq(%a, %a) : (f32, f32) -> f32
  ks.return
}

//===----------------------------------------------------------------------===//
// ks.tid
//===----------------------------------------------------------------------===//

// -----

ks.func @tid_in_func() -> i32 {
  // expected-error@+1 {{'ks.tid' op is only valid inside a ks.kernel}}
  %i = ks.tid : i32
  ks.return %i : i32
}

// -----

func.func @tid_in_func_func() -> i32 {
  // expected-error@+1 {{'ks.tid' op is only valid inside a ks.kernel}}
  %i = ks.tid : i32
  return %i : i32
}

// -----

ks.kernel @tid_i64() {
  // expected-error@+1 {{'ks.tid' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %i = "ks.tid"() : () -> i64
  ks.return
}

// -----

ks.kernel @tid_dim_3() {
  // expected-error@+1 {{'ks.tid' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %i = ks.tid 3 : i32
  ks.return
}

// -----

func.func @grid_extent_dim_3(%g: !ks.grid) -> i64 {
  // expected-error@+1 {{'ks.grid_extent' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %e = ks.grid_extent %g, 3
  return %e : i64
}

//===----------------------------------------------------------------------===//
// ks.load, ks.store, ks.check_bounds, ks.dim
//===----------------------------------------------------------------------===//

// -----

ks.kernel @load_too_many_indices(%x: !ks.array<f32>, %i: i32) {
  // expected-error@+1 {{'ks.load' op expects 1 indices for '!ks.array<f32>', got 2}}
  %v = ks.load %x[%i, %i] : !ks.array<f32>, i32, i32
  ks.return
}

// -----

ks.kernel @load_too_few_indices(%x: !ks.array<const f64, 3>, %i: i64) {
  // expected-error@+1 {{'ks.load' op expects 3 indices for '!ks.array<const f64, 3>', got 2}}
  %v = ks.load %x[%i, %i] : !ks.array<const f64, 3>, i64, i64
  ks.return
}

// -----

ks.kernel @load_no_indices(%x: !ks.array<f32>) {
  // expected-error@+1 {{'ks.load' op expects 1 indices for '!ks.array<f32>', got 0}}
  %v = "ks.load"(%x) : (!ks.array<f32>) -> f32
  ks.return
}

// -----

ks.kernel @load_index_type(%x: !ks.array<f32>) {
  %i = arith.constant 0 : index
  // expected-error@+1 {{'ks.load' op operand #1 must be variadic of signless integer, but got 'index'}}
  %v = ks.load %x[%i] : !ks.array<f32>, index
  ks.return
}

// -----

ks.kernel @load_result_type(%x: !ks.array<f32>, %i: i32) {
  // expected-error@+1 {{'ks.load' op failed to verify that result type is the array's value type}}
  %v = "ks.load"(%x, %i) : (!ks.array<f32>, i32) -> f64
  ks.return
}

// -----

// An element of an array of uint32_t is read as a signless i32.
ks.kernel @load_unsigned_result_type(%x: !ks.array<ui32>, %i: i32) {
  // expected-error@+1 {{'ks.load' op failed to verify that result type is the array's value type}}
  %v = "ks.load"(%x, %i) : (!ks.array<ui32>, i32) -> ui32
  ks.return
}

// -----

ks.kernel @store_unsigned_value_type(%x: !ks.array<ui32>, %i: i32, %v: i64) {
  // expected-error@+1 {{'ks.store' op failed to verify that stored value has the array's value type}}
  "ks.store"(%v, %x, %i) : (i64, !ks.array<ui32>, i32) -> ()
  ks.return
}

// -----

ks.kernel @store_too_many_indices(%x: !ks.array<i32>, %i: i32, %v: i32) {
  // expected-error@+1 {{'ks.store' op expects 1 indices for '!ks.array<i32>', got 2}}
  ks.store %v, %x[%i, %i] : !ks.array<i32>, i32, i32
  ks.return
}

// -----

ks.kernel @store_too_few_indices(%x: !ks.array<i1, 2>, %i: i32, %v: i1) {
  // expected-error@+1 {{'ks.store' op expects 2 indices for '!ks.array<i1, 2>', got 1}}
  ks.store %v, %x[%i] : !ks.array<i1, 2>, i32
  ks.return
}

// -----

ks.kernel @store_to_const(%x: !ks.array<const f32>, %i: i32, %v: f32) {
  // expected-error@+1 {{'ks.store' op cannot store to read-only array of type '!ks.array<const f32>'}}
  ks.store %v, %x[%i] : !ks.array<const f32>, i32
  ks.return
}

// -----

ks.kernel @store_value_type(%x: !ks.array<f32>, %i: i32, %v: f64) {
  // expected-error@+1 {{'ks.store' op failed to verify that stored value has the array's value type}}
  "ks.store"(%v, %x, %i) : (f64, !ks.array<f32>, i32) -> ()
  ks.return
}

// -----

ks.kernel @check_bounds_no_indices(%x: !ks.array<f32, 2>) {
  // expected-error@+1 {{'ks.check_bounds' op expects 1 to 2 indices for '!ks.array<f32, 2>', got 0}}
  "ks.check_bounds"(%x) {name = "x", where = "k.kdsl:1:1"} : (!ks.array<f32, 2>) -> ()
  ks.return
}

// -----

ks.kernel @check_bounds_too_many_indices(%x: !ks.array<const i64>, %i: i64) {
  // expected-error@+1 {{'ks.check_bounds' op expects 1 index for '!ks.array<const i64>', got 3}}
  ks.check_bounds %x[%i, %i, %i] {name = "x", where = "k.kdsl:1:1"} : !ks.array<const i64>, i64, i64, i64
  ks.return
}

// -----

ks.kernel @slice_every_dimension(%x: !ks.array<f32, 2>, %i: i32) {
  // expected-error@+1 {{'ks.slice' op fixes 1 to 1 leading dimensions of '!ks.array<f32, 2>', got 2 indices}}
  %s = ks.slice %x[%i, %i] : !ks.array<f32, 2>, i32, i32 -> !ks.array<f32>
  ks.return
}

// -----

ks.kernel @slice_of_1d(%x: !ks.array<f32>, %i: i32) {
  // expected-error@+1 {{'ks.slice' op needs an array of 2 or more dimensions, got '!ks.array<f32>'}}
  %s = ks.slice %x[%i] : !ks.array<f32>, i32 -> !ks.array<f32>
  ks.return
}

// -----

ks.kernel @slice_rank(%x: !ks.array<f32, 3>, %i: i32) {
  // expected-error@+1 {{'ks.slice' op result must be '!ks.array<f32, 2>', got '!ks.array<f32>'}}
  %s = ks.slice %x[%i] : !ks.array<f32, 3>, i32 -> !ks.array<f32>
  ks.return
}

// -----

ks.kernel @slice_const(%x: !ks.array<const f32, 2>, %i: i32) {
  // expected-error@+1 {{'ks.slice' op result must be '!ks.array<const f32>', got '!ks.array<f32>'}}
  %s = ks.slice %x[%i] : !ks.array<const f32, 2>, i32 -> !ks.array<f32>
  ks.return
}

// -----

ks.kernel @check_bounds_without_name(%x: !ks.array<f32>, %i: i32) {
  // expected-error@+1 {{'ks.check_bounds' op requires attribute 'name'}}
  ks.check_bounds %x[%i] {where = "k.kdsl:1:1"} : !ks.array<f32>, i32
  ks.return
}

// -----

ks.kernel @dim_out_of_range(%x: !ks.array<f32, 2>) {
  // expected-error@+1 {{'ks.dim' op dimension 2 is out of range for '!ks.array<f32, 2>'}}
  %d = ks.dim %x, 2 : !ks.array<f32, 2>
  ks.return
}

// -----

ks.kernel @dim_out_of_range_rank1(%x: !ks.array<const i32>) {
  // expected-error@+1 {{'ks.dim' op dimension 1 is out of range for '!ks.array<const i32>'}}
  %d = ks.dim %x, 1 : !ks.array<const i32>
  ks.return
}

// -----

ks.kernel @dim_negative(%x: !ks.array<f32>) {
  // expected-error@+1 {{'ks.dim' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %d = ks.dim %x, -1 : !ks.array<f32>
  ks.return
}

//===----------------------------------------------------------------------===//
// ks.atomic_rmw
//===----------------------------------------------------------------------===//

// -----

ks.kernel @atomic_to_const(%x: !ks.array<const f32>, %i: i32, %v: f32) {
  // expected-error@+1 {{'ks.atomic_rmw' op cannot update read-only array of type '!ks.array<const f32>'}}
  %old = ks.atomic_rmw add %x[%i], %v : !ks.array<const f32>, i32
  ks.return
}

// -----

ks.kernel @atomic_too_few_indices(%x: !ks.array<i32, 2>, %i: i32, %v: i32) {
  // expected-error@+1 {{'ks.atomic_rmw' op expects 2 indices for '!ks.array<i32, 2>', got 1}}
  %old = ks.atomic_rmw max %x[%i], %v : !ks.array<i32, 2>, i32
  ks.return
}

// -----

ks.kernel @atomic_too_many_indices(%x: !ks.array<f64>, %i: i64, %v: f64) {
  // expected-error@+1 {{'ks.atomic_rmw' op expects 1 indices for '!ks.array<f64>', got 2}}
  %old = ks.atomic_rmw min %x[%i, %i], %v : !ks.array<f64>, i64, i64
  ks.return
}

// -----

ks.kernel @atomic_value_type(%x: !ks.array<f32>, %i: i32, %v: f64) {
  // expected-error@+1 {{'ks.atomic_rmw' op expects the value and the result to have type 'f32', got 'f64' and 'f32'}}
  %old = "ks.atomic_rmw"(%x, %i, %v) <{kind = 0 : i32}> : (!ks.array<f32>, i32, f64) -> f32
  ks.return
}

// -----

ks.kernel @atomic_aggregate_max(%x: !ks.array<f32>, %i: i32, %v: f32) {
  // expected-error@+1 {{'ks.atomic_rmw' op can aggregate only add and sub updates that are not exclusive}}
  %old = ks.atomic_rmw max aggregate %x[%i], %v : !ks.array<f32>, i32
  ks.return
}

// -----

ks.kernel @atomic_aggregate_exclusive(%x: !ks.array<f32>, %i: i32, %v: f32) {
  // expected-error@+1 {{'ks.atomic_rmw' op can aggregate only add and sub updates that are not exclusive}}
  %old = ks.atomic_rmw add exclusive aggregate %x[%i], %v : !ks.array<f32>, i32
  ks.return
}

// -----

func.func @flush_ordered_not_block(%a: !ks.array<f32>, %p: !ks.array<i64>) {
  %sum = ks.accumulator %a {size = 1 : i64} : !ks.array<f32>
  // expected-error@+1 {{'ks.flush_accumulator' op orders the sums of blocks only with 'block'}}
  ks.flush_accumulator %sum into %a ordered %p : !ks.array<f32>, !ks.array<i64>
  return
}

// -----

func.func @flush_ordered_partials(%a: !ks.array<f32>, %p: !ks.array<const i64>) {
  %sum = ks.accumulator %a {size = 1 : i64} : !ks.array<f32>
  // expected-error@+1 {{'ks.flush_accumulator' op expects the partials to be a 1-D array of i64, got '!ks.array<const i64>'}}
  ks.flush_accumulator block %sum into %a ordered %p : !ks.array<f32>, !ks.array<const i64>
  return
}

// -----

// expected-error@+1 {{'func.func' op attribute 'ks.partial_words' of argument 0 must be a positive i64, not 0 : i64}}
func.func @partial_words(%p: !ks.array<i64> {ks.partial_words = 0 : i64}) {
  return
}

// -----

ks.kernel @atomic_result_type(%x: !ks.array<i32>, %i: i32, %v: i32) {
  // expected-error@+1 {{'ks.atomic_rmw' op expects the value and the result to have type 'i32', got 'i32' and 'i64'}}
  %old = "ks.atomic_rmw"(%x, %i, %v) <{kind = 0 : i32}> : (!ks.array<i32>, i32, i32) -> i64
  ks.return
}

// -----

ks.kernel @atomic_bool(%x: !ks.array<i1>, %i: i32, %v: i1) {
  // expected-error@+1 {{'ks.atomic_rmw' op needs an f32, f64, i32, ui32 or i64 element type, got '!ks.array<i1>'}}
  %old = ks.atomic_rmw add %x[%i], %v : !ks.array<i1>, i32
  ks.return
}

// -----

ks.kernel @atomic_unknown_kind(%x: !ks.array<i32>, %i: i32, %v: i32) {
  // expected-error@+1 {{expected one of the atomic kinds add, sub, min, max, got 'mul'}}
  %old = ks.atomic_rmw mul %x[%i], %v : !ks.array<i32>, i32
  ks.return
}

// -----

ks.kernel @atomic_kind_out_of_range(%x: !ks.array<i32>, %i: i32, %v: i32) {
  // expected-error@+1 {{invalid properties {kind = 7 : i32} for op ks.atomic_rmw: Invalid attribute `kind` in property conversion: 7 : i32}}
  %old = "ks.atomic_rmw"(%x, %i, %v) <{kind = 7 : i32}> : (!ks.array<i32>, i32, i32) -> i32
  ks.return
}

// -----

ks.kernel @atomic_field_of_scalar(%x: !ks.array<f32>, %i: i32, %v: f32) {
  // expected-error@+1 {{'ks.atomic_rmw' op has fields array<i64: 0> that name no field or component of '!ks.array<f32>'}}
  %old = "ks.atomic_rmw"(%x, %i, %v) <{kind = 0 : i32, fields = array<i64: 0>}> : (!ks.array<f32>, i32, f32) -> f32
  ks.return
}

// -----

ks.kernel @atomic_field_out_of_range(%x: !ks.array<!ks.struct<"P", m: f32>>, %i: i32, %v: f32) {
  // expected-error@+1 {{the fields name no field or component of '!ks.array<!ks.struct<"P", m: f32>>'}}
  %old = ks.atomic_rmw add %x[%i] fields [1], %v : !ks.array<!ks.struct<"P", m: f32>>, i32
  ks.return
}

// -----

ks.kernel @atomic_whole_struct(%x: !ks.array<!ks.struct<"P", m: f32>>, %i: i32, %v: !ks.struct<"P", m: f32>) {
  // expected-error@+1 {{'ks.atomic_rmw' op needs an f32, f64, i32, ui32 or i64 element type, got '!ks.array<!ks.struct<"P", m: f32>>'}}
  %old = ks.atomic_rmw add %x[%i], %v : !ks.array<!ks.struct<"P", m: f32>>, i32
  ks.return
}

// -----

// A component of a vector field: the value is the component's.
ks.kernel @atomic_component_value(%x: !ks.array<!ks.struct<"P", v: vector<3xf32>>>, %i: i32, %v: vector<3xf32>) {
  // expected-error@+1 {{'ks.atomic_rmw' op expects the value and the result to have type 'f32', got 'vector<3xf32>' and 'vector<3xf32>'}}
  %old = "ks.atomic_rmw"(%x, %i, %v) <{kind = 3 : i32, fields = array<i64: 0, 1>}> : (!ks.array<!ks.struct<"P", v: vector<3xf32>>>, i32, vector<3xf32>) -> vector<3xf32>
  ks.return
}

// -----

ks.kernel @atomic_component_out_of_range(%x: !ks.array<vector<3xf32>>, %i: i32, %v: f32) {
  // expected-error@+1 {{the fields name no field or component of '!ks.array<vector<3xf32>>'}}
  %old = ks.atomic_rmw exchange %x[%i] fields [3], %v : !ks.array<vector<3xf32>>, i32
  ks.return
}

//===----------------------------------------------------------------------===//
// In-out arguments
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'ks.func' op has 1 in-out arguments and 0 results; it must return the final value of each in-out argument after at most one result of its own}}
ks.func @inout_without_result(%a: f32 {ks.inout}) {
  ks.return
}

// -----

// expected-error@+1 {{'ks.func' op in-out argument 0 has type 'f32' but the result that returns its final value has type 'i32'}}
ks.func @inout_type(%a: f32 {ks.inout}) -> i32 {
  %c = arith.constant 0 : i32
  ks.return %c : i32
}

// -----

// expected-error@+1 {{'ks.func' op in-out argument 0 has type '!ks.array<f32>' but the result that returns its final value has type 'f32'}}
ks.func @inout_array(%a: !ks.array<f32> {ks.inout}) -> f32 {
  %c = arith.constant 0.0 : f32
  ks.return %c : f32
}

// -----

// expected-error@+1 {{'ks.func' op attribute 'ks.inout' of argument 0 must be a unit attribute}}
ks.func @inout_not_unit(%a: f32 {ks.inout = 1 : i32}) -> f32 {
  ks.return %a : f32
}

// -----

// expected-error@+1 {{array element type must be f32, f64, i1, i32, ui32, i64, a vector of 2 to 4 f32, f64 or i32, a square matrix (2x2 to 4x4) of f32 or f64, or a struct, got 'vector<5xf32>'}}
ks.func @vector_too_long(%a: !ks.array<vector<5xf32>>) {
  ks.return
}

// -----

// expected-error@+1 {{array element type must be f32, f64, i1, i32, ui32, i64, a vector of 2 to 4 f32, f64 or i32, a square matrix (2x2 to 4x4) of f32 or f64, or a struct, got 'vector<2x3xf32>'}}
ks.func @matrix_not_square(%a: !ks.array<vector<2x3xf32>>) {
  ks.return
}

// -----

// expected-error@+1 {{array element type must be f32, f64, i1, i32, ui32, i64, a vector of 2 to 4 f32, f64 or i32, a square matrix (2x2 to 4x4) of f32 or f64, or a struct, got 'vector<3x3xi32>'}}
ks.func @int_matrix(%a: !ks.array<vector<3x3xi32>>) {
  ks.return
}

// -----

ks.func @cross_2d(%a: vector<2xf32>) -> vector<2xf32> {
  // expected-error@+1 {{'ks.cross' op expects 3-component vectors, got 'vector<2xf32>'}}
  %c = ks.cross %a, %a : vector<2xf32>
  ks.return %c : vector<2xf32>
}

// -----

ks.func @outer_shape(%a: vector<3xf32>) -> vector<2x2xf32> {
  // expected-error@+1 {{'ks.outer' op expects a result of type 'vector<3x3xf32>', got 'vector<2x2xf32>'}}
  %o = ks.outer %a, %a : vector<3xf32> -> vector<2x2xf32>
  ks.return %o : vector<2x2xf32>
}

// -----

ks.func @matmul_vectors(%a: vector<3xf32>) -> vector<3xf32> {
  // expected-error@+1 {{'ks.matmul' op expects at least one matrix operand (use ks.dot or ks.outer for two vectors)}}
  %o = ks.matmul %a, %a : vector<3xf32>, vector<3xf32> -> vector<3xf32>
  ks.return %o : vector<3xf32>
}

// -----

ks.func @matmul_extent(%m: vector<3x3xf32>, %v: vector<2xf32>) -> vector<3xf32> {
  // expected-error@+1 {{'ks.matmul' op expects operands and result of extent 3, got 'vector<2xf32>'}}
  %o = ks.matmul %m, %v : vector<3x3xf32>, vector<2xf32> -> vector<3xf32>
  ks.return %o : vector<3xf32>
}

// -----

ks.func @matmul_result(%m: vector<3x3xf32>, %v: vector<3xf32>) -> vector<3x3xf32> {
  // expected-error@+1 {{'ks.matmul' op expects a vector result for these operands, got 'vector<3x3xf32>'}}
  %o = ks.matmul %m, %v : vector<3x3xf32>, vector<3xf32> -> vector<3x3xf32>
  ks.return %o : vector<3x3xf32>
}

// -----

ks.func @matmul_types(%m: vector<3x3xf32>, %v: vector<3xf64>) -> vector<3xf64> {
  // expected-error@+1 {{'ks.matmul' op expects operands and result of one element type}}
  %o = ks.matmul %m, %v : vector<3x3xf32>, vector<3xf64> -> vector<3xf64>
  ks.return %o : vector<3xf64>
}

// -----

ks.func @dot_result(%a: vector<3xf32>) -> f64 {
  // expected-error@+1 {{'ks.dot' op failed to verify that result is the element type of the operands}}
  %d = "ks.dot"(%a, %a) : (vector<3xf32>, vector<3xf32>) -> f64
  ks.return %d : f64
}

// -----

ks.func @det_int(%m: vector<3x3xi32>) -> i32 {
  // expected-error@+1 {{'matrix' must be vector of 32-bit float or 64-bit float values of ranks 2, but got 'vector<3x3xi32>'}}
  %d = ks.determinant %m : vector<3x3xi32>
  ks.return %d : i32
}

// -----

ks.func @inverse_large() -> f32 {
  %m = arith.constant dense<1.0> : vector<5x5xf32>
  // expected-error@+1 {{'ks.inverse' op expects a 2x2, 3x3 or 4x4 matrix, got 'vector<5x5xf32>'}}
  %i = ks.inverse %m : vector<5x5xf32>
  %e = vector.extract %i[0, 0] : f32 from vector<5x5xf32>
  ks.return %e : f32
}

// -----

ks.func @rotate_types(%q: vector<4xf64>, %v: vector<3xf32>) -> vector<3xf32> {
  // expected-error@+1 {{'ks.quat_rotate' op failed to verify that quaternion and vector have one element type}}
  %r = "ks.quat_rotate"(%q, %v) : (vector<4xf64>, vector<3xf32>) -> vector<3xf32>
  ks.return %r : vector<3xf32>
}

// -----

ks.func @quat_length(%q: vector<3xf32>) -> vector<3xf32> {
  // expected-error@+1 {{'ks.quat_mul' op operand #0 must be quaternion (vector<4xf32> or vector<4xf64>), but got 'vector<3xf32>'}}
  %r = "ks.quat_mul"(%q, %q) : (vector<3xf32>, vector<3xf32>) -> vector<3xf32>
  ks.return %r : vector<3xf32>
}

// -----

ks.func @normalize_quaternion(%v: vector<3xf32>) -> vector<3xf32> {
  // expected-error@+1 {{'ks.normalize' op of a quaternion expects a vector of 4 components, got 'vector<3xf32>'}}
  %n = ks.normalize %v quaternion : vector<3xf32>
  ks.return %n : vector<3xf32>
}

// -----

ks.func @length_result(%v: vector<3xf32>) -> f64 {
  // expected-error@+1 {{'ks.length' op failed to verify that result is the element type of the vector}}
  %l = "ks.length"(%v) : (vector<3xf32>) -> f64
  ks.return %l : f64
}

// -----

ks.func @quat_matrix(%q: vector<4xf32>) -> vector<3x3xf64> {
  // expected-error@+1 {{'ks.quat_to_matrix' op expects a result of type 'vector<3x3xf32>', got 'vector<3x3xf64>'}}
  %m = ks.quat_to_matrix %q : vector<4xf32> -> vector<3x3xf64>
  ks.return %m : vector<3x3xf64>
}

//===----------------------------------------------------------------------===//
// Unsigned arguments and results
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'ks.kernel' op attribute 'ks.unsigned' marks argument 0 of type 'f32'; only i32 values can be unsigned}}
ks.kernel @unsigned_float(%a: f32 {ks.unsigned}) {
  ks.return
}

// -----

// uint32_t arrays have the element type ui32 instead.
// expected-error@+1 {{'ks.func' op attribute 'ks.unsigned' marks argument 0 of type '!ks.array<i32>'; only i32 values can be unsigned}}
ks.func @unsigned_array(%a: !ks.array<i32> {ks.unsigned}) {
  ks.return
}

// -----

// expected-error@+1 {{'ks.func' op attribute 'ks.unsigned' marks result 0 of type 'i64'; only i32 values can be unsigned}}
ks.func @unsigned_i64_result(%a: i64) -> (i64 {ks.unsigned}) {
  ks.return %a : i64
}

// -----

// expected-error@+1 {{'ks.func' op attribute 'ks.unsigned' of argument 0 must be a unit attribute}}
ks.func @unsigned_not_unit(%a: i32 {ks.unsigned = true}) {
  ks.return
}

// -----

// expected-error@+1 {{'ks.func' op in-out argument 0 and the result that returns its final value must both be 'ks.unsigned' or neither}}
ks.func @unsigned_inout_mismatch(%a: i32 {ks.inout, ks.unsigned}) -> i32 {
  ks.return %a : i32
}

// -----

// expected-error@+1 {{'ks.func' op attribute 'ks.unsigned_names' must be an array of strings}}
ks.func @unsigned_names_not_strings(%a: i32) attributes {ks.unsigned_names = [1 : i32]} {
  ks.return
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

// -----

ks.kernel @randi_one_bound(%s: i32, %lo: i32) {
  // expected-error@+1 {{'ks.randi' op takes no bounds or two (low and high), got 1}}
  %v, %t = ks.randi %s, %lo
  ks.return
}

// -----

ks.kernel @randf_three_bounds(%s: i32, %b: f32) {
  // expected-error@+1 {{'ks.randf' op takes no bounds or two (low and high), got 3}}
  %v, %t = ks.randf %s, %b, %b, %b
  ks.return
}

// -----

// The bounds of randf are floats.
ks.kernel @randf_int_bounds(%s: i32, %b: i32) {
  // expected-error@+1 {{'ks.randf' op operand #1 must be variadic of 32-bit float, but got 'i32'}}
  %v, %t = "ks.randf"(%s, %b, %b) : (i32, i32, i32) -> (f32, i32)
  ks.return
}

// -----

// The state is an i32 (a uint32_t in the source).
ks.kernel @rand_init_i64(%seed: i64) {
  // expected-error@+1 {{'ks.rand_init' op operand #0 must be 32-bit signless integer, but got 'i64'}}
  %s = "ks.rand_init"(%seed) : (i64) -> i32
  ks.return
}

//===----------------------------------------------------------------------===//
// Structs
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{struct 'Empty' needs at least one field}}
ks.func @empty_struct(%s: !ks.struct<"Empty">) {
  ks.return
}

// -----

// expected-error@+1 {{struct 'Twice' has two fields named 'x'}}
ks.func @duplicate_field(%s: !ks.struct<"Twice", x: f32, x: f64>) {
  ks.return
}

// -----

// expected-error@+1 {{field 'a' of struct 'Holder' must have a scalar, vector, matrix or struct type, got '!ks.array<f32>'}}
ks.func @array_field(%s: !ks.struct<"Holder", a: !ks.array<f32>>) {
  ks.return
}

// -----

// expected-error@+1 {{a struct needs a name}}
ks.func @unnamed_struct(%s: !ks.struct<"", x: f32>) {
  ks.return
}

// -----

ks.func @make_count(%x: f32) -> !ks.struct<"Pair", a: f32, b: f32> {
  // expected-error@+1 {{'ks.struct_make' op expects 2 field values for '!ks.struct<"Pair", a: f32, b: f32>', got 1}}
  %s = "ks.struct_make"(%x) : (f32) -> !ks.struct<"Pair", a: f32, b: f32>
  ks.return %s : !ks.struct<"Pair", a: f32, b: f32>
}

// -----

// A uint32_t field takes a signless i32.
ks.func @make_unsigned(%x: ui32) -> !ks.struct<"Id", id: ui32> {
  // expected-error@+1 {{'ks.struct_make' op the value of field 0 ('id') must have type 'i32', got 'ui32'}}
  %s = "ks.struct_make"(%x) : (ui32) -> !ks.struct<"Id", id: ui32>
  ks.return %s : !ks.struct<"Id", id: ui32>
}

// -----

ks.func @extract_range(%s: !ks.struct<"Pair", a: f32, b: f32>) -> f32 {
  // expected-error@+1 {{'ks.struct_extract' op field index 2 is out of range for '!ks.struct<"Pair", a: f32, b: f32>'}}
  %x = ks.struct_extract %s[2] : !ks.struct<"Pair", a: f32, b: f32> -> f32
  ks.return %x : f32
}

// -----

ks.func @extract_type(%s: !ks.struct<"Pair", a: f32, b: f64>) -> f32 {
  // expected-error@+1 {{'ks.struct_extract' op the result of field 1 ('b') must have type 'f64', got 'f32'}}
  %x = ks.struct_extract %s[1] : !ks.struct<"Pair", a: f32, b: f64> -> f32
  ks.return %x : f32
}

// -----

ks.func @insert_type(%s: !ks.struct<"Pair", a: f32, b: f64>, %v: i32) {
  // expected-error@+1 {{'ks.struct_insert' op the value of field 0 ('a') must have type 'f32', got 'i32'}}
  %t = ks.struct_insert %v, %s[0] : i32 into !ks.struct<"Pair", a: f32, b: f64>
  ks.return
}

// -----

ks.func @make_parse(%x: f32) {
  // expected-error@+1 {{expected 2 field values for '!ks.struct<"Pair", a: f32, b: f32>', got 1}}
  %s = ks.struct_make %x : !ks.struct<"Pair", a: f32, b: f32>
  ks.return
}

//===----------------------------------------------------------------------===//
// ks.accumulator
//===----------------------------------------------------------------------===//

// -----

func.func @accumulator_2d(%a: !ks.array<f32, 2>) {
  // expected-error@+1 {{'ks.accumulator' op sums elements of 1-D arrays only, got '!ks.array<f32, 2>'}}
  %s = ks.accumulator %a {size = 1 : i64} : !ks.array<f32, 2>
  return
}

// -----

func.func @accumulator_const(%a: !ks.array<const f32>) {
  // expected-error@+1 {{'ks.accumulator' op cannot update read-only array of type '!ks.array<const f32>'}}
  %s = ks.accumulator %a {size = 1 : i64} : !ks.array<const f32>
  return
}

// -----

func.func @accumulator_bool(%a: !ks.array<i1>) {
  // expected-error@+1 {{'ks.accumulator' op needs an f32, f64, i32, ui32 or i64 element type, got '!ks.array<i1>'}}
  %s = ks.accumulator %a {size = 1 : i64} : !ks.array<i1>
  return
}

// -----

func.func @accumulator_empty(%a: !ks.array<f32>) {
  // expected-error@+1 {{'ks.accumulator' op attribute 'size' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %s = ks.accumulator %a {size = 0 : i64} : !ks.array<f32>
  return
}
