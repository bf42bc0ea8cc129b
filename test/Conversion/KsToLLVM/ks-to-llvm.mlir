// RUN: ksc-opt %s --convert-ks-to-llvm="block-size=128" --split-input-file | FileCheck %s

// A launcher becomes the kernel entry with its kernel's name; the thread
// function moves out of the way and becomes internal. Arrays are the
// {data, shape, strides} struct of ksc::array; a load computes the address
// from the strides.

// CHECK-LABEL: llvm.func internal @saxpy.thread(
// CHECK-SAME:    %[[TID:.*]]: i32, %[[A:.*]]: f32,
// CHECK-SAME:    %[[X:.*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>, %[[Y:.*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>)
// CHECK:         %[[DATA:.*]] = llvm.extractvalue %[[X]][0]
// CHECK:         %[[I:.*]] = llvm.sext %[[TID]] : i32 to i64
// CHECK:         %[[STRIDE:.*]] = llvm.extractvalue %[[X]][2, 0]
// CHECK:         %[[OFFSET:.*]] = llvm.mul %[[I]], %[[STRIDE]] : i64
// CHECK:         %[[ADDRESS:.*]] = llvm.getelementptr %[[DATA]][%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         %[[XI:.*]] = llvm.load %[[ADDRESS]] : !llvm.ptr -> f32
// CHECK:         llvm.fmul %[[A]], %[[XI]]
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
func.func private @saxpy(%tid: i32, %a: f32, %x: !ks.array<const f32>, %y: !ks.array<f32>) {
  %0 = ks.load %x[%tid] : !ks.array<const f32>, i32
  %1 = arith.mulf %a, %0 : f32
  %2 = ks.load %y[%tid] : !ks.array<f32>, i32
  %3 = arith.addf %1, %2 : f32
  ks.store %3, %y[%tid] : !ks.array<f32>, i32
  return
}

// CHECK-LABEL: llvm.func @saxpy(
// CHECK-SAME:    %[[DIM:.*]]: !llvm.struct<(i64, i64, i64)>, %{{.*}}: f32,
// CHECK-SAME:    nvvm.kernel, nvvm.maxntid = array<i32: 128>
// CHECK:         nvvm.read.ptx.sreg.ctaid.x
// CHECK:         nvvm.read.ptx.sreg.ntid.x
// CHECK:         nvvm.read.ptx.sreg.tid.x
// CHECK:         %[[NX:.*]] = llvm.extractvalue %[[DIM]][0]
// CHECK:         %[[NY:.*]] = llvm.extractvalue %[[DIM]][1]
// CHECK:         %[[NXY:.*]] = llvm.mul %[[NX]], %[[NY]]
// CHECK:         %[[NZ:.*]] = llvm.extractvalue %[[DIM]][2]
// CHECK:         llvm.mul %[[NXY]], %[[NZ]]
// CHECK:         llvm.call @saxpy.thread(
func.func @launch_saxpy(%dim: !ks.grid, %a: f32, %x: !ks.array<const f32>, %y: !ks.array<f32>) attributes {ks.launch_of = "saxpy"} {
  %b = gpu.block_id x
  %0 = arith.index_cast %b : index to i64
  %s = gpu.block_dim x
  %1 = arith.index_cast %s : index to i64
  %t = gpu.thread_id x
  %2 = arith.index_cast %t : index to i64
  %3 = arith.muli %0, %1 : i64
  %4 = arith.addi %3, %2 : i64
  %n = ks.grid_size %dim
  %in = arith.cmpi slt, %4, %n : i64
  cf.cond_br %in, ^run, ^done
^run:
  %i = arith.trunci %4 : i64 to i32
  func.call @saxpy(%i, %a, %x, %y) : (i32, f32, !ks.array<const f32>, !ks.array<f32>) -> ()
  cf.br ^done
^done:
  return
}

// -----

// Kernel parameters have the C++ layout: a vec3 is three floats, a bool a
// byte; inside, they are an LLVM vector and an i1.

// CHECK-LABEL: llvm.func @params(
// CHECK-SAME:    %{{.*}}: !llvm.struct<(i64, i64, i64)>, %[[V:.*]]: !llvm.array<3 x f32>, %[[FLAG:.*]]: i8,
// CHECK-DAG:     llvm.extractvalue %[[V]][0] : !llvm.array<3 x f32>
// CHECK-DAG:     llvm.insertelement
// CHECK-DAG:     llvm.trunc %[[FLAG]] : i8 to i1
func.func private @params(%v: vector<3xf32>, %flag: i1, %out: !ks.array<vector<3xf32>>) {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : vector<3xf32>
  %w = arith.select %flag, %v, %zero : vector<3xf32>
  ks.store %w, %out[%c0] : !ks.array<vector<3xf32>>, i32
  return
}
func.func @launch_params(%dim: !ks.grid, %v: vector<3xf32>, %flag: i1, %out: !ks.array<vector<3xf32>>) attributes {ks.launch_of = "params"} {
  func.call @params(%v, %flag, %out) : (vector<3xf32>, i1, !ks.array<vector<3xf32>>) -> ()
  return
}

// -----

// Vectors in arrays are stored as arrays of their components (no padding):
// the element type of the address computation is !llvm.array<3 x f32>.

// CHECK-LABEL: llvm.func internal @vectors(
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<3 x f32>
// CHECK:         %[[MEMORY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.array<3 x f32>
// CHECK:         llvm.extractvalue %[[MEMORY]][0] : !llvm.array<3 x f32>
// CHECK:         llvm.extractvalue %[[MEMORY]][1] : !llvm.array<3 x f32>
// CHECK:         llvm.extractvalue %[[MEMORY]][2] : !llvm.array<3 x f32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} : !llvm.array<3 x f32>, !llvm.ptr
func.func @vectors(%a: !ks.array<vector<3xf32>>, %i: i32) {
  %v = ks.load %a[%i] : !ks.array<vector<3xf32>>, i32
  %w = arith.addf %v, %v : vector<3xf32>
  ks.store %w, %a[%i] : !ks.array<vector<3xf32>>, i32
  return
}

// -----

// Atomics: monotonic read-modify-writes; a subtraction of floats adds the
// negation; unsigned integers take umax; a vector one atomic per component.

// CHECK-LABEL: llvm.func internal @atomics(
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK:         %[[NEG:.*]] = llvm.fneg %{{.*}} : f64
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %[[NEG]] monotonic : !llvm.ptr, f64
// CHECK:         llvm.atomicrmw umax %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw max %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:         llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
// CHECK:         llvm.atomicrmw fadd
// CHECK:         llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
// CHECK:         llvm.atomicrmw fadd
func.func @atomics(%f: !ks.array<f32>, %d: !ks.array<f64>, %u: !ks.array<ui32>, %l: !ks.array<i64>, %v: !ks.array<vector<2xf32>>, %i: i32) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f64
  %three = arith.constant 3 : i32
  %four = arith.constant 4 : i64
  %vec = arith.constant dense<1.0> : vector<2xf32>
  %0 = ks.atomic_rmw add %f[%i], %one : !ks.array<f32>, i32
  %1 = ks.atomic_rmw sub %d[%i], %two : !ks.array<f64>, i32
  %2 = ks.atomic_rmw max %u[%i], %three : !ks.array<ui32>, i32
  %3 = ks.atomic_rmw max %l[%i], %four : !ks.array<i64>, i32
  %4 = ks.atomic_rmw add %v[%i], %vec : !ks.array<vector<2xf32>>, i32
  return
}

// -----

// A float min is a compare-and-swap loop on the bits that replaces the
// element while the value is smaller, or the element NaN and the value not.

// CHECK-LABEL: llvm.func internal @float_min(
// CHECK-SAME:    %{{.*}}: !llvm.struct<{{.*}}>, %[[I:.*]]: i32, %[[V:.*]]: f32)
// CHECK:         %[[INITIAL:.*]] = llvm.load %[[P:.*]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK:         llvm.br ^[[LOOP:.*]](%[[INITIAL]] : f32)
// CHECK:       ^[[LOOP]](%[[OLD:.*]]: f32):
// CHECK:         %[[LESS:.*]] = llvm.fcmp "olt" %[[V]], %[[OLD]] : f32
// CHECK:         %[[OLD_NAN:.*]] = llvm.fcmp "uno" %[[OLD]], %[[OLD]] : f32
// CHECK:         %[[V_NUMBER:.*]] = llvm.fcmp "ord" %[[V]], %[[V]] : f32
// CHECK:         %[[FILL:.*]] = llvm.and %[[OLD_NAN]], %[[V_NUMBER]] : i1
// CHECK:         %[[REPLACE:.*]] = llvm.or %[[LESS]], %[[FILL]] : i1
// CHECK:         llvm.cond_br %[[REPLACE]], ^[[EXCHANGE:.*]], ^[[DONE:.*]](%[[OLD]] : f32)
// CHECK:       ^[[EXCHANGE]]:
// CHECK:         %[[OLD_BITS:.*]] = llvm.bitcast %[[OLD]] : f32 to i32
// CHECK:         %[[NEW_BITS:.*]] = llvm.bitcast %[[V]] : f32 to i32
// CHECK:         %[[PAIR:.*]] = llvm.cmpxchg %[[P]], %[[OLD_BITS]], %[[NEW_BITS]] monotonic monotonic : !llvm.ptr, i32
// CHECK:         %[[SEEN_BITS:.*]] = llvm.extractvalue %[[PAIR]][0]
// CHECK:         %[[SWAPPED:.*]] = llvm.extractvalue %[[PAIR]][1]
// CHECK:         %[[SEEN:.*]] = llvm.bitcast %[[SEEN_BITS]] : i32 to f32
// CHECK:         llvm.cond_br %[[SWAPPED]], ^[[DONE]](%[[OLD]] : f32), ^[[LOOP]](%[[SEEN]] : f32)
// CHECK:       ^[[DONE]](%[[RESULT:.*]]: f32):
// CHECK:         llvm.return %[[RESULT]]
func.func @float_min(%a: !ks.array<f32>, %i: i32, %v: f32) -> f32 {
  %old = ks.atomic_rmw min %a[%i], %v : !ks.array<f32>, i32
  return %old : f32
}

// -----

// A vector max: per component, each a float max's compare-and-swap loop,
// one after the other; an exchange of one component (the adjoint of a
// vector atomic_max takes a component so) is one xchg at its address.

// CHECK-LABEL: llvm.func internal @vector_max(
// CHECK:         llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
// CHECK:         llvm.fcmp "ogt"
// CHECK:         llvm.cmpxchg
// CHECK:         llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
// CHECK:         llvm.fcmp "ogt"
// CHECK:         llvm.cmpxchg
// CHECK-NOT:     llvm.cmpxchg
// CHECK:         llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
// CHECK:         llvm.atomicrmw xchg %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
func.func @vector_max(%a: !ks.array<vector<2xf32>>, %i: i32, %v: vector<2xf32>, %s: f32) -> vector<2xf32> {
  %old = ks.atomic_rmw max %a[%i], %v : !ks.array<vector<2xf32>>, i32
  %x = ks.atomic_rmw exchange %a[%i] fields [1], %s : !ks.array<vector<2xf32>>, i32
  return %old : vector<2xf32>
}

// -----

// Slices, extents and bounds checks. A failed check prints the runtime's
// message in one printf and traps.

// The message, with the '%' of the array's name escaped:
// CHECK:       llvm.mlir.global internal constant @printfFormat_0("ksc: rows.kdsl:3:5: index (%lld, %lld) is out of bounds for array 'a%%' of shape [%lld, %lld]\0A\00")
// CHECK-LABEL: llvm.func internal @rows(
// CHECK-SAME:    %[[A:.*]]: !llvm.struct<(ptr, array<2 x i64>, array<2 x i64>)>, %[[I:.*]]: i32, %[[J:.*]]: i64)
// CHECK:         %[[I64:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK:         %[[ROWS:.*]] = llvm.extractvalue %[[A]][1, 0]
// CHECK:         %[[BAD_I:.*]] = llvm.icmp "uge" %[[I64]], %[[ROWS]] : i64
// CHECK:         %[[COLS:.*]] = llvm.extractvalue %[[A]][1, 1]
// CHECK:         %[[BAD_J:.*]] = llvm.icmp "uge" %[[J]], %[[COLS]] : i64
// CHECK:         %[[BAD:.*]] = llvm.or %[[BAD_I]], %[[BAD_J]] : i1
// CHECK:         llvm.cond_br %[[BAD]], ^[[FAIL:.*]], ^[[OK:.*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         llvm.call @vprintf(
// CHECK:         llvm.intr.trap
// CHECK:         llvm.unreachable
// CHECK:       ^[[OK]]:
// The slice a[i]: data + i * stride0, shape and stride of dimension 1.
// CHECK:         %[[ROW:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[0] : !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>
// CHECK:         llvm.extractvalue %[[A]][1, 1]
// CHECK:         llvm.extractvalue %[[A]][2, 1]
// CHECK:         llvm.extractvalue %{{.*}}[1, 0] : !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>
func.func @rows(%a: !ks.array<f32, 2>, %i: i32, %j: i64) -> i64 {
  ks.check_bounds %a[%i, %j] {name = "a%", where = "rows.kdsl:3:5"} : !ks.array<f32, 2>, i32, i64
  %row = ks.slice %a[%i] : !ks.array<f32, 2>, i32 -> !ks.array<f32>
  %n = ks.dim %row, 0 : !ks.array<f32>
  return %n : i64
}

// -----

// Structs are LLVM structs with C++'s layout: a vec3 field is an array.

// CHECK-LABEL: llvm.func internal @structs(
// CHECK-SAME:    %[[P:.*]]: !llvm.struct<(array<3 x f32>, f32)>)
// CHECK:         %[[POS:.*]] = llvm.extractvalue %[[P]][0] : !llvm.struct<(array<3 x f32>, f32)>
// CHECK:         llvm.extractvalue %[[POS]][0] : !llvm.array<3 x f32>
// CHECK:         llvm.insertvalue %{{.*}}, %[[P]][0] : !llvm.struct<(array<3 x f32>, f32)>
func.func @structs(%p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>) -> !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> {
  %pos = ks.struct_extract %p[0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> -> vector<3xf32>
  %twice = arith.addf %pos, %pos : vector<3xf32>
  %q = ks.struct_insert %twice, %p[0] : vector<3xf32> into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
  return %q : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
}

// -----

// A GPU thread's tape: a record in local memory (an alloca) of its top, its
// capacity and its bytes; a push checks that the value's 8-byte slot fits,
// stores it after the top and moves the top; a pop moves the top back and
// loads. A vec3 takes 16 bytes.

// CHECK:       llvm.mlir.global internal constant @printfFormat_0("ksc: kernel 'tape': the thread's tape is full (%lld bytes); compile with a larger --tape-bytes\0A\00")
// CHECK-LABEL: llvm.func internal @tape(
// CHECK-SAME:    %[[V:.*]]: vector<3xf32>)
// CHECK:         %[[RECORD:.*]] = llvm.alloca %{{.*}} x !llvm.array<80 x i8> {alignment = 16 : i64}
// CHECK:         llvm.store %{{.*}}, %[[RECORD]] : i64, !llvm.ptr
// CHECK:         %[[TOP:.*]] = llvm.load %[[RECORD]] : !llvm.ptr -> i64
// CHECK:         %[[SLOT:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK:         %[[NEW_TOP:.*]] = llvm.add %[[TOP]], %[[SLOT]] : i64
// CHECK:         %[[CAPACITY:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:         %[[FULL:.*]] = llvm.icmp "sgt" %[[NEW_TOP]], %[[CAPACITY]] : i64
// CHECK:         llvm.cond_br %[[FULL]], ^[[FAIL:.*]], ^[[PUSH:.*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         llvm.call @vprintf(
// CHECK:         llvm.intr.trap
// CHECK:       ^[[PUSH]]:
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : !llvm.array<3 x f32>, !llvm.ptr
// CHECK:         llvm.store %[[NEW_TOP]], %[[RECORD]] : i64, !llvm.ptr
// CHECK:         %[[TOP2:.*]] = llvm.load %[[RECORD]] : !llvm.ptr -> i64
// CHECK:         %[[BACK:.*]] = llvm.sub %[[TOP2]], %{{.*}} : i64
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> !llvm.array<3 x f32>
// CHECK:         llvm.store %[[BACK]], %[[RECORD]] : i64, !llvm.ptr
func.func @tape(%v: vector<3xf32>) -> vector<3xf32> {
  %tape = ks.tape_create {capacity = 64 : i64, kernel = "tape"}
  ks.tape_push %v to %tape : vector<3xf32>
  %w = ks.tape_pop from %tape : vector<3xf32>
  return %w : vector<3xf32>
}
