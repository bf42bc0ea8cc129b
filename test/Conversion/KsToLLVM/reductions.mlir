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
