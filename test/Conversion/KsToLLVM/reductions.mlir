// RUN: ksc-opt %s --convert-scf-to-cf --convert-ks-to-llvm --split-input-file | FileCheck %s

// The sums convert-ks-to-cuda reduces before their atomics (ReductionsToLLVM):
// a GPU thread's accumulator, its updates plain reads and writes
// (`exclusive`), and the block's flush.

// The thread function's update of the accumulator is a load, an fadd and a
// store (which SROA promotes to a register once inlined).
// CHECK-LABEL: llvm.func internal @saxpy_adj.thread(
// CHECK-SAME:    %{{.*}}: i32, %[[A:.*]]: f32, %{{.*}}: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>, %[[SUM:.*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>)
// CHECK:         %[[PRODUCT:.*]] = llvm.fmul %{{.*}}, %[[A]] : f32
// CHECK:         %[[DATA:.*]] = llvm.extractvalue %[[SUM]][0]
// CHECK:         %[[ADDRESS:.*]] = llvm.getelementptr %[[DATA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         %[[OLD:.*]] = llvm.load %[[ADDRESS]] : !llvm.ptr -> f32
// CHECK:         %[[NEW:.*]] = llvm.fadd %[[OLD]], %[[PRODUCT]] : f32
// CHECK:         llvm.store %[[NEW]], %[[ADDRESS]] : f32, !llvm.ptr
// CHECK-NOT:     llvm.atomicrmw
// CHECK:         llvm.return
func.func private @saxpy_adj(%tid: i32, %a: f32, %x: !ks.array<const f32>, %adj_a: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %0 = ks.load %x[%tid] : !ks.array<const f32>, i32
  %1 = arith.mulf %0, %a : f32
  %2 = ks.atomic_rmw add exclusive %adj_a[%c0], %1 : !ks.array<f32>, i32
  return
}

// The accumulator: a zero-filled alloca of `size` elements, an array of
// extent min(size, dim(adj_a, 0)) and stride 1, passed to the thread in
// place of adj_a.
// CHECK-LABEL: llvm.func @saxpy_adj(
// CHECK-SAME:    %{{.*}}: !llvm.struct<(i64, i64, i64)>, %{{.*}}: f32, %{{.*}}: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>, %[[ADJ_A:.*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>)
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[STORAGE:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x f32> : (i64) -> !llvm.ptr
// CHECK:         %[[ZEROS:.*]] = llvm.mlir.zero : !llvm.array<1 x f32>
// CHECK:         llvm.store %[[ZEROS]], %[[STORAGE]] : !llvm.array<1 x f32>, !llvm.ptr
// CHECK:         %[[DIM:.*]] = llvm.extractvalue %[[ADJ_A]][1, 0]
// CHECK:         %[[SIZE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[EXTENT:.*]] = llvm.intr.smin(%[[DIM]], %[[SIZE]]) : (i64, i64) -> i64
// CHECK:         %[[ACC0:.*]] = llvm.insertvalue %[[STORAGE]], %{{.*}}[0]
// CHECK:         %[[ACC1:.*]] = llvm.insertvalue %[[EXTENT]], %[[ACC0]][1, 0]
// CHECK:         %[[ACC:.*]] = llvm.insertvalue %[[ONE]], %[[ACC1]][2, 0]
// CHECK:         llvm.cond_br %{{.*}}, ^[[THREAD:.*]], ^[[FLUSH:.*]]
// CHECK:       ^[[THREAD]]:
// CHECK:         llvm.call @saxpy_adj.thread(%{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]])
// CHECK:         llvm.br ^[[FLUSH]]

// The flush, where every thread of the block arrives: lane = tid.x & 31,
// warp = tid.x >> 5, the block's warps, the lanes of the thread's warp
// (min(32, ntid - 32 warp)) and of the first warp.
// CHECK:       ^[[FLUSH]]:
// CHECK:         %[[SUMS:.*]] = llvm.extractvalue %[[ACC]][0]
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[NTID:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK:         %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK:         %[[WARP:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// CHECK:         %[[LANES:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK:         %[[FIRST_LANES:.*]] = llvm.select %{{.*}}, %[[NTID]], %{{.*}} : i1, i32
// CHECK:         %[[LANE0:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
// CHECK:         %[[WARP0:.*]] = llvm.icmp "eq" %[[WARP]], %{{.*}} : i32
// CHECK:         %[[SHARED:.*]] = llvm.mlir.addressof @__ksc_block_sums_f32 : !llvm.ptr<3>

// A round: a barrier, the warp's sum (shuffles among its lanes, the mask
// ~0 >> (32 - lanes); lane + 16 while inside, else its own value) ...
// CHECK:         nvvm.barrier0
// CHECK:         %[[VALUE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[MISSING:.*]] = llvm.sub %{{.*}}, %[[LANES]] : i32
// CHECK:         %[[MASK:.*]] = llvm.lshr %{{.*}}, %[[MISSING]] : i32
// CHECK:         %[[SIXTEEN:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK:         %[[ABOVE:.*]] = llvm.add %[[LANE]], %[[SIXTEEN]] : i32
// CHECK:         %[[INSIDE:.*]] = llvm.icmp "slt" %[[ABOVE]], %[[LANES]] : i32
// CHECK:         %[[SOURCE:.*]] = llvm.select %[[INSIDE]], %[[ABOVE]], %[[LANE]] : i1, i32
// CHECK:         %[[OTHER:.*]] = nvvm.shfl.sync  idx %[[MASK]], %[[VALUE]], %[[SOURCE]], %{{.*}} : f32 -> f32
// CHECK:         %[[PAIR:.*]] = llvm.fadd %[[VALUE]], %[[OTHER]] : f32
// CHECK:         llvm.select %[[INSIDE]], %[[PAIR]], %[[VALUE]] : i1, f32
// CHECK-COUNT-4: nvvm.shfl.sync  idx %[[MASK]]
// CHECK:         %[[WARP_SUM:.*]] = llvm.select %{{.*}} : i1, f32
// CHECK:         llvm.cond_br %[[LANE0]], ^[[STORE:.*]], ^[[READ:.*]]

// ... stored by lane 0 in the warp's slots of shared memory, a barrier,
// and the first warp sums the warps' sums ...
// CHECK:       ^[[STORE]]:
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %[[SHARED]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK:         llvm.store %[[WARP_SUM]], %[[SLOT]] : f32, !llvm.ptr<3>
// CHECK:       ^[[READ]]:
// CHECK:         nvvm.barrier0
// CHECK:         llvm.cond_br %[[WARP0]], ^[[FIRST:.*]], ^[[END:.*]]
// CHECK:       ^[[FIRST]]:
// CHECK:         %[[STORED:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         %[[PARTIAL:.*]] = llvm.select %{{.*}}, %[[STORED]], %{{.*}} : i1, f32
// CHECK:         llvm.sub %{{.*}}, %[[FIRST_LANES]] : i32
// CHECK-COUNT-5: nvvm.shfl.sync  idx
// CHECK:         %[[BLOCK_SUM:.*]] = llvm.select %{{.*}} : i1, f32
// CHECK:         llvm.cond_br %[[LANE0]], ^[[LEADER:.*]], ^{{.*}}

// ... whose lane 0 adds the block's sum into element 0 of adj_a, if the
// accumulator has it.
// CHECK:       ^[[LEADER]]:
// CHECK:         llvm.icmp "slt" %{{.*}}, %{{.*}} : i64
// CHECK:         llvm.extractvalue %[[ADJ_A]][0]
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %[[BLOCK_SUM]] monotonic : !llvm.ptr, f32
// CHECK:       ^[[END]]:
// CHECK-NEXT:    llvm.return
func.func @launch_saxpy_adj(%dim: !ks.grid, %a: f32, %x: !ks.array<const f32>, %adj_a: !ks.array<f32>) attributes {ks.cuda_launch = "guarded", ks.launch_of = "saxpy_adj"} {
  %sum = ks.accumulator %adj_a {size = 1 : i64} : !ks.array<f32>
  %b = gpu.block_id x
  %0 = arith.index_cast %b : index to i64
  %s = gpu.block_dim x
  %1 = arith.index_cast %s : index to i64
  %t = gpu.thread_id x
  %2 = arith.index_cast %t : index to i64
  %3 = arith.muli %0, %1 overflow<nsw> : i64
  %4 = arith.addi %3, %2 overflow<nsw> : i64
  %n = ks.grid_size %dim
  %in = arith.cmpi slt, %4, %n : i64
  scf.if %in {
    %i = arith.trunci %4 : i64 to i32
    func.call @saxpy_adj(%i, %a, %x, %sum) : (i32, f32, !ks.array<const f32>, !ks.array<f32>) -> ()
  }
  ks.flush_accumulator block %sum into %adj_a : !ks.array<f32>
  return
}

// -----

// Accumulators of vec3 (2 elements: 6 scalars, one round) and of f64, in a
// grid-stride launcher; one shared array per scalar type. A vec3 element is
// three floats: the accumulator's scalar k is float k of its storage, the
// array's scalar 3 i + c is float c of element i. An f64 is shuffled as its
// two halves.

// CHECK-DAG:   llvm.mlir.global internal @__ksc_block_sums_f64() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<256 x f64>
// CHECK-DAG:   llvm.mlir.global internal @__ksc_block_sums_f32() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<256 x f32>
// CHECK-LABEL: llvm.func @forces_adj(
// CHECK-SAME:    %[[ADJ_G:[^:]*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>, %[[ADJ_S:[^:]*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>)
// CHECK:         %[[G_STORAGE:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x array<3 x f32>> : (i64) -> !llvm.ptr
// CHECK:         llvm.mlir.zero : !llvm.array<2 x array<3 x f32>>
// CHECK:         %[[S_STORAGE:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x f64> : (i64) -> !llvm.ptr
// CHECK:         llvm.call @forces_adj.thread(

// The vec3 sums: after the loop, one round of 6 scalars ...
// CHECK:         llvm.mlir.addressof @__ksc_block_sums_f32 : !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.getelementptr %{{.*}}[5] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NOT:     llvm.getelementptr %{{.*}}[6] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         nvvm.barrier0
// CHECK-NOT:     nvvm.barrier0
// ... the last scalar (index 5) adds into component 2 of element 1.
// CHECK:         %[[FIVE:.*]] = llvm.mlir.constant(5 : i64) : i64
// CHECK:         llvm.icmp "slt" %[[FIVE]], %{{.*}} : i64
// CHECK:         %[[DATA:.*]] = llvm.extractvalue %[[ADJ_G]][0]
// CHECK:         %[[STRIDE:.*]] = llvm.extractvalue %[[ADJ_G]][2, 0]
// CHECK:         %[[ELEMENT:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[OFFSET:.*]] = llvm.mul %[[ELEMENT]], %[[STRIDE]] : i64
// CHECK:         %[[ADDRESS:.*]] = llvm.getelementptr %[[DATA]][%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<3 x f32>
// CHECK:         %[[COMPONENT:.*]] = llvm.getelementptr %[[ADDRESS]][2] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         llvm.atomicrmw fadd %[[COMPONENT]], %{{.*}} monotonic : !llvm.ptr, f32

// The f64 sums: each shuffle is two, of the low and high words.
// CHECK:         llvm.mlir.addressof @__ksc_block_sums_f64 : !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         %[[VALUE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK:         %[[BITS:.*]] = llvm.bitcast %[[VALUE]] : f64 to i64
// CHECK:         %[[LOW:.*]] = llvm.trunc %[[BITS]] : i64 to i32
// CHECK:         %[[HIGH_BITS:.*]] = llvm.lshr %[[BITS]], %{{.*}} : i64
// CHECK:         %[[HIGH:.*]] = llvm.trunc %[[HIGH_BITS]] : i64 to i32
// CHECK:         nvvm.shfl.sync  idx %{{.*}}, %[[LOW]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK:         nvvm.shfl.sync  idx %{{.*}}, %[[HIGH]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK:         %[[JOINED:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
// CHECK:         %[[OTHER:.*]] = llvm.bitcast %[[JOINED]] : i64 to f64
// CHECK:         llvm.fadd %[[VALUE]], %[[OTHER]] : f64
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f64
// CHECK:         llvm.return
func.func private @forces_adj(%tid: i32, %f: vector<3xf32>, %e: f64, %adj_g: !ks.array<vector<3xf32>>, %adj_s: !ks.array<f64>) {
  %c1 = arith.constant 1 : i32
  %0 = ks.atomic_rmw add exclusive %adj_g[%c1], %f : !ks.array<vector<3xf32>>, i32
  %1 = ks.atomic_rmw sub exclusive %adj_s[%tid], %e : !ks.array<f64>, i32
  return
}
func.func @launch_forces_adj(%dim: !ks.grid, %f: vector<3xf32>, %e: f64, %adj_g: !ks.array<vector<3xf32>>, %adj_s: !ks.array<f64>) attributes {ks.cuda_launch = "grid-stride", ks.launch_of = "forces_adj"} {
  %g_sum = ks.accumulator %adj_g {size = 2 : i64} : !ks.array<vector<3xf32>>
  %s_sum = ks.accumulator %adj_s {size = 1 : i64} : !ks.array<f64>
  %b = gpu.block_id x
  %0 = arith.index_cast %b : index to i64
  %s = gpu.block_dim x
  %1 = arith.index_cast %s : index to i64
  %t = gpu.thread_id x
  %2 = arith.index_cast %t : index to i64
  %g = gpu.grid_dim x
  %3 = arith.index_cast %g : index to i64
  %4 = arith.muli %0, %1 overflow<nsw> : i64
  %first = arith.addi %4, %2 overflow<nsw> : i64
  %step = arith.muli %3, %1 overflow<nsw> : i64
  %n = ks.grid_size %dim
  scf.for %k = %first to %n step %step : i64 {
    %i = arith.trunci %k : i64 to i32
    func.call @forces_adj(%i, %f, %e, %g_sum, %s_sum) : (i32, vector<3xf32>, f64, !ks.array<vector<3xf32>>, !ks.array<f64>) -> ()
  }
  ks.flush_accumulator block %g_sum into %adj_g : !ks.array<vector<3xf32>>
  ks.flush_accumulator block %s_sum into %adj_s : !ks.array<f64>
  return
}

// -----

// Aggregated updates: the active lanes with the same address (match.any on
// its bits) sum their values in a tree of shuffles, and the lowest updates
// it; when every lane has an address of its own, each updates it as
// without aggregation. The result is poison.

// CHECK-LABEL: llvm.func internal @scatter(
// CHECK-SAME:    %{{.*}}: i32, %{{.*}}: i32, %[[V:[^:]*]]: f32, %[[W:[^:]*]]: vector<3xf32>
// CHECK:         %[[ADDRESS:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         %[[ACTIVE:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK:         %[[KEY:.*]] = llvm.ptrtoint %[[ADDRESS]] : !llvm.ptr to i64
// CHECK:         %[[PEERS:.*]] = nvvm.match.sync  any %[[ACTIVE]], %[[KEY]] : i64 -> i32
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK:         %[[LANE_BIT:.*]] = llvm.shl %{{.*}}, %[[LANE]] : i32
// CHECK:         %[[BELOW:.*]] = llvm.sub %[[LANE_BIT]], %{{.*}} : i32
// CHECK:         %[[PEERS_BELOW:.*]] = llvm.and %[[PEERS]], %[[BELOW]] : i32
// CHECK:         %[[RANK:.*]] = llvm.intr.ctpop(%[[PEERS_BELOW]]) : (i32) -> i32
// CHECK:         %[[ABOVE:.*]] = llvm.and %[[PEERS]], %{{.*}} : i32
// CHECK:         %[[COUNT:.*]] = llvm.intr.ctpop(%[[PEERS]]) : (i32) -> i32
// CHECK:         %[[ALONE:.*]] = llvm.icmp "eq" %[[PEERS]], %[[LANE_BIT]] : i32
// CHECK:         %[[ALL_ALONE:.*]] = nvvm.vote.sync  all %[[ACTIVE]], %[[ALONE]] -> i1
// CHECK:         llvm.cond_br %[[ALL_ALONE]], ^[[UPDATE:.*]](%[[V]] : f32), ^[[STEP1:.*]](%[[V]] : f32)

// Step 1: while some lane has more than one peer, ranks 0, 2, 4, ... add
// the value of the next peer above.
// CHECK:       ^[[STEP1]](%[[V1:.*]]: f32):
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[MORE:.*]] = llvm.icmp "ugt" %[[COUNT]], %[[ONE]] : i32
// CHECK:         %[[ANY:.*]] = nvvm.vote.sync  any %[[ACTIVE]], %[[MORE]] -> i1
// CHECK:         llvm.cond_br %[[ANY]], ^[[BODY1:.*]], ^[[LEADER:.*]](%[[V1]] : f32)
// CHECK:       ^[[BODY1]]:
// CHECK:         %[[HAS_SOURCE:.*]] = llvm.icmp "ne" %[[ABOVE]], %{{.*}} : i32
// CHECK:         %[[FIRST:.*]] = "llvm.intr.cttz"(%[[ABOVE]]) <{is_zero_poison = false}> : (i32) -> i32
// CHECK:         %[[SOURCE:.*]] = llvm.select %[[HAS_SOURCE]], %[[FIRST]], %[[LANE]] : i1, i32
// CHECK:         %[[RANK_BITS:.*]] = llvm.and %[[RANK]], %{{.*}} : i32
// CHECK:         %[[RECEIVES:.*]] = llvm.icmp "eq" %[[RANK_BITS]], %{{.*}} : i32
// CHECK:         %[[ADDS:.*]] = llvm.and %[[HAS_SOURCE]], %[[RECEIVES]] : i1
// CHECK:         %[[OTHER:.*]] = nvvm.shfl.sync  idx %[[ACTIVE]], %[[V1]], %[[SOURCE]], %{{.*}} : f32 -> f32
// CHECK:         %[[SUM:.*]] = llvm.fadd %[[V1]], %[[OTHER]] : f32
// CHECK:         %[[V2:.*]] = llvm.select %[[ADDS]], %[[SUM]], %[[V1]] : i1, f32
// CHECK:         llvm.br ^[[STEP2:.*]](%[[V2]] : f32)

// Step 2 skips the lowest peer above (above & (above - 1)); steps 4, 8, 16.
// CHECK:       ^[[STEP2]](%{{.*}}: f32):
// CHECK:         llvm.mlir.constant(2 : i32) : i32
// CHECK:         nvvm.vote.sync  any
// CHECK:         %[[LESS:.*]] = llvm.sub %[[ABOVE]], %{{.*}} : i32
// CHECK:         %[[SECOND:.*]] = llvm.and %[[ABOVE]], %[[LESS]] : i32
// CHECK:         "llvm.intr.cttz"(%[[SECOND]])
// CHECK:         llvm.mlir.constant(3 : i32) : i32
// CHECK:         nvvm.shfl.sync  idx %[[ACTIVE]]
// CHECK:         llvm.mlir.constant(4 : i32) : i32
// CHECK:         llvm.mlir.constant(8 : i32) : i32
// CHECK:         llvm.mlir.constant(16 : i32) : i32
// CHECK:         llvm.mlir.constant(31 : i32) : i32
// CHECK:         nvvm.shfl.sync  idx %[[ACTIVE]]

// The lowest lane of each group (rank 0) updates the element.
// CHECK:       ^[[LEADER]](%[[TOTAL:.*]]: f32):
// CHECK:         %[[IS_LEADER:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}} : i32
// CHECK:         llvm.cond_br %[[IS_LEADER]], ^[[UPDATE]](%[[TOTAL]] : f32), ^[[DONE:.*]]
// CHECK:       ^[[UPDATE]](%[[VALUE:.*]]: f32):
// CHECK:         llvm.atomicrmw fadd %[[ADDRESS]], %[[VALUE]] monotonic : !llvm.ptr, f32
// CHECK:       ^[[DONE]]:

// A vec3: component by component (the shuffles of a step, the atomics).
// CHECK:         nvvm.match.sync  any
// CHECK:         llvm.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : !llvm.array<3 x f32>), ^{{.*}}(%{{.*}} : !llvm.array<3 x f32>)
// CHECK:         llvm.extractvalue %{{.*}}[0] : !llvm.array<3 x f32>
// CHECK:         nvvm.shfl.sync  idx %{{.*}} : f32 -> f32
// CHECK:         llvm.extractvalue %{{.*}}[1] : !llvm.array<3 x f32>
// CHECK:         nvvm.shfl.sync  idx %{{.*}} : f32 -> f32
// CHECK:         llvm.extractvalue %{{.*}}[2] : !llvm.array<3 x f32>
// CHECK:         nvvm.shfl.sync  idx %{{.*}} : f32 -> f32
// CHECK:         llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x f32>
// CHECK:         llvm.atomicrmw fadd
// CHECK:         llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x f32>
// CHECK:         llvm.atomicrmw fadd
// CHECK:         llvm.getelementptr %{{.*}}[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x f32>
// CHECK:         llvm.atomicrmw fadd

// An i32 subtraction: the group's values are added, and the sum
// subtracted.
// CHECK:         nvvm.match.sync  any
// CHECK:         nvvm.shfl.sync  idx %{{.*}} : i32 -> i32
// CHECK:         llvm.add %{{.*}}, %{{.*}} : i32
// CHECK:         llvm.atomicrmw sub %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.return
func.func private @scatter(%tid: i32, %k: i32, %v: f32, %w: vector<3xf32>, %n: i32, %adj_c: !ks.array<f32>, %adj_p: !ks.array<vector<3xf32>>, %count: !ks.array<i32>) {
  %0 = ks.atomic_rmw add aggregate %adj_c[%k], %v : !ks.array<f32>, i32
  %1 = ks.atomic_rmw add aggregate %adj_p[%tid], %w : !ks.array<vector<3xf32>>, i32
  %2 = ks.atomic_rmw sub aggregate %count[%k], %n : !ks.array<i32>, i32
  return
}

// -----

// Exclusive updates of other kinds: a float max as the atomic one decides
// it (greater, or replacing a NaN), an unsigned min, an exchange.

// CHECK-LABEL: llvm.func internal @exclusive(
// CHECK:         %[[OLD:.*]] = llvm.load %[[P:.*]] : !llvm.ptr -> f32
// CHECK:         %[[GREATER:.*]] = llvm.fcmp "ogt" %[[V:.*]], %[[OLD]] : f32
// CHECK:         %[[OLD_NAN:.*]] = llvm.fcmp "uno" %[[OLD]], %[[OLD]] : f32
// CHECK:         %[[NUMBER:.*]] = llvm.fcmp "ord" %[[V]], %[[V]] : f32
// CHECK:         %[[REPLACES_NAN:.*]] = llvm.and %[[OLD_NAN]], %[[NUMBER]] : i1
// CHECK:         %[[REPLACE:.*]] = llvm.or %[[GREATER]], %[[REPLACES_NAN]] : i1
// CHECK:         %[[NEW:.*]] = llvm.select %[[REPLACE]], %[[V]], %[[OLD]] : i1, f32
// CHECK:         llvm.store %[[NEW]], %[[P]] : f32, !llvm.ptr
// CHECK:         %[[OLD_U:.*]] = llvm.load %[[Q:.*]] : !llvm.ptr -> i32
// CHECK:         %[[LESS:.*]] = llvm.icmp "ult" %[[U:.*]], %[[OLD_U]] : i32
// CHECK:         %[[NEW_U:.*]] = llvm.select %[[LESS]], %[[U]], %[[OLD_U]] : i1, i32
// CHECK:         llvm.store %[[NEW_U]], %[[Q]] : i32, !llvm.ptr
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK-NOT:     llvm.atomicrmw
// CHECK-NOT:     llvm.cmpxchg
// CHECK:         llvm.return
func.func private @exclusive(%a: !ks.array<f32>, %u: !ks.array<ui32>, %v: f32, %w: i32, %i: i32) {
  %0 = ks.atomic_rmw max exclusive %a[%i], %v : !ks.array<f32>, i32
  %1 = ks.atomic_rmw min exclusive %u[%i], %w : !ks.array<ui32>, i32
  %2 = ks.atomic_rmw exchange exclusive %a[%i], %v : !ks.array<f32>, i32
  return
}

// -----

// Without `block`, each thread adds its own sums atomically, those of the
// accumulator's extent.

// CHECK-LABEL: llvm.func @thread_sums(
// CHECK:         llvm.alloca %{{.*}} x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
// CHECK:         llvm.call @thread_sums.thread(
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         llvm.icmp "slt" %[[ZERO]], %{{.*}} : i64
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         llvm.icmp "slt" %[[ONE]], %{{.*}} : i64
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func private @thread_sums(%tid: i32, %n: !ks.array<i64>) {
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1 : i64
  %0 = ks.atomic_rmw add exclusive %n[%c1], %one : !ks.array<i64>, i32
  return
}
func.func @launch_thread_sums(%dim: !ks.grid, %n: !ks.array<i64>) attributes {ks.launch_of = "thread_sums"} {
  %sum = ks.accumulator %n {size = 2 : i64} : !ks.array<i64>
  %t = gpu.thread_id x
  %0 = arith.index_cast %t : index to i32
  func.call @thread_sums(%0, %sum) : (i32, !ks.array<i64>) -> ()
  ks.flush_accumulator %sum into %n : !ks.array<i64>
  return
}

// -----

// `ordered %partials` (convert-ks-to-cuda with `deterministic`; the
// runtime's block_flush_ordered): the block's sum goes, by the same block
// reduction, into the block's partials (element 1 + b * W of the i64
// partials, W = 1 for one f32) instead of adj_a; its first thread fences,
// takes a ticket (element 0) and tells the block whether it was the last
// (nctaid.x - 1) through shared memory. The last block fences and sums the
// blocks' partials, thread t those of blocks t, t + ntid.x, ... in order by
// volatile loads, reduces them as a block, adds the total into adj_a with
// one atomic and zeroes the ticket; the other blocks are done.

// CHECK-DAG:   llvm.mlir.global internal @__ksc_block_last() {addr_space = 3 : i32, alignment = 4 : i64} : i32
// CHECK-LABEL: llvm.func @ordered_saxpy_adj(
// CHECK-SAME:    %[[ADJ_A:[^:]*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>, %[[PARTIALS:[^:]*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>)
// CHECK:         llvm.call @ordered_saxpy_adj.thread(
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK:         %[[WARP:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// CHECK:         %[[LANE0:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
// CHECK:         %[[WARP0:.*]] = llvm.icmp "eq" %[[WARP]], %{{.*}} : i32

// The block's partials: element 1 + ctaid.x * 1.
// CHECK:         %[[CTAID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:         %[[BLOCK:.*]] = llvm.zext %[[CTAID]] : i32 to i64
// CHECK:         %[[W:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[START:.*]] = llvm.mul %[[BLOCK]], %[[W]] : i64
// CHECK:         %[[WORD:.*]] = llvm.add %[[START]], %[[ONE]] : i64
// CHECK:         %[[P_DATA:.*]] = llvm.extractvalue %[[PARTIALS]][0]
// CHECK:         %[[P_STRIDE:.*]] = llvm.extractvalue %[[PARTIALS]][2, 0]
// CHECK:         %[[OFFSET:.*]] = llvm.mul %[[WORD]], %[[P_STRIDE]] : i64
// CHECK:         %[[MINE:.*]] = llvm.getelementptr %[[P_DATA]][%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64

// The block reduction, whose first thread stores the sum; no atomic.
// CHECK:         nvvm.barrier0
// CHECK-COUNT-5: nvvm.shfl.sync  idx
// CHECK:         nvvm.barrier0
// CHECK-COUNT-5: nvvm.shfl.sync  idx
// CHECK:         %[[BLOCK_SUM:.*]] = llvm.select %{{.*}} : i1, f32
// CHECK:         llvm.cond_br %[[LANE0]], ^[[STORE:.*]], ^{{.*}}
// CHECK:       ^[[STORE]]:
// CHECK-NOT:     llvm.atomicrmw
// CHECK:         %[[MINE_0:.*]] = llvm.getelementptr %[[MINE]][0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         llvm.store %[[BLOCK_SUM]], %[[MINE_0]] {alignment = 4 : i64} : f32, !llvm.ptr

// The ticket: a fence, then an atomic add of 1 on element 0 by thread 0.
// CHECK:         %[[LAST_FLAG:.*]] = llvm.mlir.addressof @__ksc_block_last : !llvm.ptr<3>
// CHECK:         %[[FIRST:.*]] = llvm.and %[[LANE0]], %[[WARP0]] : i1
// CHECK:         llvm.cond_br %[[FIRST]], ^[[TICKET:.*]], ^[[TICKET_END:.*]]
// CHECK:       ^[[TICKET]]:
// CHECK-NEXT:    nvvm.memory.barrier <gpu>
// CHECK:         %[[T_DATA:.*]] = llvm.extractvalue %[[PARTIALS]][0]
// CHECK:         %[[T_ADDRESS:.*]] = llvm.getelementptr %[[T_DATA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK:         %[[T_ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[OLD:.*]] = llvm.atomicrmw add %[[T_ADDRESS]], %[[T_ONE]] syncscope("device") monotonic : !llvm.ptr, i64
// CHECK:         %[[NCTAID:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK:         %[[BLOCKS:.*]] = llvm.zext %[[NCTAID]] : i32 to i64
// CHECK:         %[[LAST_TICKET:.*]] = llvm.sub %[[BLOCKS]], %[[T_ONE]] : i64
// CHECK:         %[[IS_LAST:.*]] = llvm.icmp "eq" %[[OLD]], %[[LAST_TICKET]] : i64
// CHECK:         %[[IS_LAST_WORD:.*]] = llvm.zext %[[IS_LAST]] : i1 to i32
// CHECK:         llvm.store %[[IS_LAST_WORD]], %[[LAST_FLAG]] : i32, !llvm.ptr<3>
// CHECK:       ^[[TICKET_END]]:
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    %[[FLAG:.*]] = llvm.load %[[LAST_FLAG]] : !llvm.ptr<3> -> i32
// CHECK:         %[[LAST:.*]] = llvm.icmp "ne" %[[FLAG]], %{{.*}} : i32
// CHECK:         llvm.cond_br %[[LAST]], ^[[LAST_BLOCK:.*]], ^[[DONE:.*]]

// The last block: a fence, then each thread's loop over the blocks.
// CHECK:       ^[[LAST_BLOCK]]:
// CHECK-NEXT:    nvvm.memory.barrier <gpu>
// CHECK:         nvvm.barrier0
// CHECK:         %[[TID2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[FIRST_BLOCK:.*]] = llvm.zext %[[TID2]] : i32 to i64
// CHECK:         %[[NTID:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK:         %[[STEP:.*]] = llvm.zext %[[NTID]] : i32 to i64
// CHECK:         %[[NCTAID2:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK:         %[[END:.*]] = llvm.zext %[[NCTAID2]] : i32 to i64
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK:         llvm.br ^[[HEADER:.*]](%[[FIRST_BLOCK]], %[[ZERO]] : i64, f32)
// CHECK:       ^[[HEADER]](%[[B:[0-9]+]]: i64, %[[SUM:[0-9]+]]: f32):
// CHECK-NEXT:    %[[MORE:.*]] = llvm.icmp "slt" %[[B]], %[[END]] : i64
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^[[BODY:.*]], ^[[REDUCE:.*]]
// CHECK:       ^[[BODY]]:
// CHECK:         %[[B_START:.*]] = llvm.mul %[[B]], %{{.*}} : i64
// CHECK:         %[[B_WORD:.*]] = llvm.add %[[B_START]], %{{.*}} : i64
// CHECK:         %[[B_OFFSET:.*]] = llvm.mul %[[B_WORD]], %{{.*}} : i64
// CHECK:         %[[B_SUMS:.*]] = llvm.getelementptr %{{.*}}[%[[B_OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK:         %[[NEXT:.*]] = llvm.add %[[B]], %[[STEP]] : i64
// CHECK:         %[[B_0:.*]] = llvm.getelementptr %[[B_SUMS]][0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         %[[PARTIAL:.*]] = llvm.load volatile %[[B_0]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK:         %[[NEW_SUM:.*]] = llvm.fadd %[[SUM]], %[[PARTIAL]] : f32
// CHECK:         llvm.br ^[[HEADER]](%[[NEXT]], %[[NEW_SUM]] : i64, f32)

// The threads' sums reduced as a block, the total added into adj_a.
// CHECK:       ^[[REDUCE]]:
// CHECK:         nvvm.shfl.sync  idx %{{.*}}, %[[SUM]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK:         nvvm.barrier0
// CHECK-COUNT-5: nvvm.shfl.sync  idx
// CHECK:         %[[TOTAL:.*]] = llvm.select %{{.*}} : i1, f32
// CHECK:         llvm.extractvalue %[[ADJ_A]][0]
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %[[TOTAL]] monotonic : !llvm.ptr, f32

// Thread 0 zeroes the ticket.
// CHECK:         %[[FIRST2:.*]] = llvm.and %[[LANE0]], %[[WARP0]] : i1
// CHECK:         llvm.cond_br %[[FIRST2]], ^[[RESET:.*]], ^{{.*}}
// CHECK:       ^[[RESET]]:
// CHECK:         %[[I64_ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         %[[R_DATA:.*]] = llvm.extractvalue %[[PARTIALS]][0]
// CHECK:         %[[R_ADDRESS:.*]] = llvm.getelementptr %[[R_DATA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK:         llvm.store %[[I64_ZERO]], %[[R_ADDRESS]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:       ^[[DONE]]:
// CHECK-NEXT:    llvm.return
func.func private @ordered_saxpy_adj(%tid: i32, %a: f32, %x: !ks.array<const f32>, %adj_a: !ks.array<f32>) {
  %c0 = arith.constant 0 : i32
  %0 = ks.load %x[%tid] : !ks.array<const f32>, i32
  %1 = arith.mulf %0, %a : f32
  %2 = ks.atomic_rmw add exclusive %adj_a[%c0], %1 : !ks.array<f32>, i32
  return
}
func.func @launch_ordered_saxpy_adj(%dim: !ks.grid, %a: f32, %x: !ks.array<const f32>, %adj_a: !ks.array<f32>, %adj_a_partials: !ks.array<i64>) attributes {ks.cuda_launch = "guarded", ks.launch_of = "ordered_saxpy_adj"} {
  %sum = ks.accumulator %adj_a {size = 1 : i64} : !ks.array<f32>
  %b = gpu.block_id x
  %0 = arith.index_cast %b : index to i64
  %s = gpu.block_dim x
  %1 = arith.index_cast %s : index to i64
  %t = gpu.thread_id x
  %2 = arith.index_cast %t : index to i64
  %3 = arith.muli %0, %1 overflow<nsw> : i64
  %4 = arith.addi %3, %2 overflow<nsw> : i64
  %n = ks.grid_size %dim
  %in = arith.cmpi slt, %4, %n : i64
  scf.if %in {
    %i = arith.trunci %4 : i64 to i32
    func.call @ordered_saxpy_adj(%i, %a, %x, %sum) : (i32, f32, !ks.array<const f32>, !ks.array<f32>) -> ()
  }
  ks.flush_accumulator block %sum into %adj_a ordered %adj_a_partials : !ks.array<f32>, !ks.array<i64>
  return
}

// -----

// Ordered sums of vec3 (2 elements: 6 float scalars, W = 3 partials per
// block) and of f64 (W = 1), each with partials of its own: thread 0
// stores the 6 block sums at floats 0 ... 5 of the block's partials; the
// last block's threads sum 6 floats per block, with one loop over the
// blocks, then an f64 per block.

// CHECK-LABEL: llvm.func @ordered_forces_adj(
// CHECK-SAME:    %[[G_PARTIALS:[^:]*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>, %[[S_PARTIALS:[^:]*]]: !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>)
// CHECK:         llvm.call @ordered_forces_adj.thread(
// CHECK:         %[[CTAID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:         %[[BLOCK:.*]] = llvm.zext %[[CTAID]] : i32 to i64
// CHECK:         %[[W:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK:         %[[START:.*]] = llvm.mul %[[BLOCK]], %[[W]] : i64
// CHECK:         %[[WORD:.*]] = llvm.add %[[START]], %{{.*}} : i64
// CHECK:         llvm.extractvalue %[[G_PARTIALS]][0]
// CHECK:         %[[MINE:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK:         %[[MINE_0:.*]] = llvm.getelementptr %[[MINE]][0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %{{.*}}, %[[MINE_0]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         %[[MINE_5:.*]] = llvm.getelementptr %[[MINE]][5] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %{{.*}}, %[[MINE_5]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         nvvm.memory.barrier <gpu>
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr, i64
// CHECK:         nvvm.memory.barrier <gpu>
// CHECK:         llvm.br ^[[HEADER:.*]](%{{.*}}, %[[ZERO:[0-9]+]], %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : i64, f32, f32, f32, f32, f32, f32)
// CHECK:       ^[[HEADER]](%[[B:[0-9]+]]: i64, %[[S0:[0-9]+]]: f32, %{{[0-9]+}}: f32, %{{[0-9]+}}: f32, %{{[0-9]+}}: f32, %{{[0-9]+}}: f32, %[[S5:[0-9]+]]: f32):
// CHECK:         %[[B_W:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK:         %[[B_START:.*]] = llvm.mul %[[B]], %[[B_W]] : i64
// CHECK:         llvm.extractvalue %[[G_PARTIALS]][0]
// CHECK:         %[[B_SUMS:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK:         %[[B_0:.*]] = llvm.getelementptr %[[B_SUMS]][0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[P0:.*]] = llvm.load volatile %[[B_0]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[NEW0:.*]] = llvm.fadd %[[S0]], %[[P0]] : f32
// CHECK-COUNT-4: llvm.load volatile
// CHECK:         %[[B_5:.*]] = llvm.getelementptr %[[B_SUMS]][5] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[P5:.*]] = llvm.load volatile %[[B_5]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[NEW5:.*]] = llvm.fadd %[[S5]], %[[P5]] : f32
// CHECK-NEXT:    llvm.br ^[[HEADER]](%{{.*}}, %[[NEW0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NEW5]] : i64, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-6: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr

// The f64 sums.
// CHECK:         llvm.mlir.addressof @__ksc_block_sums_f64 : !llvm.ptr<3>
// CHECK:         llvm.extractvalue %[[S_PARTIALS]][0]
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr, i64
// CHECK:         llvm.br ^[[F64_HEADER:.*]](%{{.*}}, %{{.*}} : i64, f64)
// CHECK:       ^[[F64_HEADER]](%{{[0-9]+}}: i64, %[[F64_SUM:[0-9]+]]: f64):
// CHECK:         llvm.extractvalue %[[S_PARTIALS]][0]
// CHECK:         %[[F64_PARTIAL:.*]] = llvm.load volatile %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK-NEXT:    llvm.fadd %[[F64_SUM]], %[[F64_PARTIAL]] : f64
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f64
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:         llvm.return
func.func private @ordered_forces_adj(%tid: i32, %f: vector<3xf32>, %e: f64, %adj_g: !ks.array<vector<3xf32>>, %adj_s: !ks.array<f64>) {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %0 = ks.atomic_rmw add exclusive %adj_g[%c1], %f : !ks.array<vector<3xf32>>, i32
  %1 = ks.atomic_rmw add exclusive %adj_s[%c0], %e : !ks.array<f64>, i32
  return
}
func.func @launch_ordered_forces_adj(%dim: !ks.grid, %f: vector<3xf32>, %e: f64, %adj_g: !ks.array<vector<3xf32>>, %adj_s: !ks.array<f64>, %adj_g_partials: !ks.array<i64>, %adj_s_partials: !ks.array<i64>) attributes {ks.cuda_launch = "grid-stride", ks.launch_of = "ordered_forces_adj"} {
  %g_sum = ks.accumulator %adj_g {size = 2 : i64} : !ks.array<vector<3xf32>>
  %s_sum = ks.accumulator %adj_s {size = 1 : i64} : !ks.array<f64>
  %b = gpu.block_id x
  %0 = arith.index_cast %b : index to i64
  %s = gpu.block_dim x
  %1 = arith.index_cast %s : index to i64
  %t = gpu.thread_id x
  %2 = arith.index_cast %t : index to i64
  %g = gpu.grid_dim x
  %3 = arith.index_cast %g : index to i64
  %4 = arith.muli %0, %1 overflow<nsw> : i64
  %first = arith.addi %4, %2 overflow<nsw> : i64
  %step = arith.muli %3, %1 overflow<nsw> : i64
  %n = ks.grid_size %dim
  scf.for %k = %first to %n step %step : i64 {
    %i = arith.trunci %k : i64 to i32
    func.call @ordered_forces_adj(%i, %f, %e, %g_sum, %s_sum) : (i32, vector<3xf32>, f64, !ks.array<vector<3xf32>>, !ks.array<f64>) -> ()
  }
  ks.flush_accumulator block %g_sum into %adj_g ordered %adj_g_partials : !ks.array<vector<3xf32>>, !ks.array<i64>
  ks.flush_accumulator block %s_sum into %adj_s ordered %adj_s_partials : !ks.array<f64>, !ks.array<i64>
  return
}
