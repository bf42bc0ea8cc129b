//===- Passes.td - Conversions out of the ks dialect --------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_CONVERSION_PASSES_TD
#define KSC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKsToCpu : Pass<"convert-ks-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower kernels and device functions to CPU functions and launch loops";
  let description = [{
    Makes the CPU execution model of kernels explicit, so that the C++
    emitter only prints what it sees:

    * every `ks.func` becomes a private `func.func`, and `ks.call` becomes
      `func.call`;
    * every `ks.kernel @k` becomes a private `func.func @k` that runs one
      thread: its leading `i32` arguments are the thread indices it reads
      (in the order `ks.tid`, `ks.tid 0`, `ks.tid 1`, `ks.tid 2`), which
      replace the `ks.tid` operations;
    * for every kernel a public `func.func @launch_k(%dim: !ks.grid, ...)`
      runs the whole launch. It carries `ks.launch_of = "k"` so that
      emitters can give it a C entry point. With `parallel` (the default)
      it is a `ks.parallel_launch` whose body calls `@k` for a range of
      flat thread indices in order (coordinates computed from the flat
      index, row-major), at least 1024 threads per chunk when the kernel
      has no loop and 1 when it has; the runtime runs the ranges on several
      OS threads. With `parallel=false` it calls `@k` for every thread of
      the grid, one after another in row-major order (one loop over
      `ks.grid_size` when the kernel reads only `ks.tid`, else one loop per
      dimension, which also compute the flat index);
    * an array argument that the kernel only updates with `ks.atomic_rmw
      add` or `sub`, never using the old value, is a sum over all threads
      (such as the adjoint of a scalar argument in an adjoint kernel, or of
      an array a loop reads at data-dependent indices). At constant indices
      below 16 of a 1-D array, the threads add into an accumulator of the
      launch instead (a `ks.accumulator` and `ks.flush_accumulator` when
      serial, one per chunk of a `ks.parallel_launch`, summed in chunk
      order); in a parallel launch, when an update is inside a loop, into a
      copy per OS thread (`private` of `ks.parallel_launch`). Only the
      order of the additions changes, which atomic additions leave open
      anyway;
    * `ks.atomic_rmw` operations become `exclusive` (plain updates) where
      no other OS thread can access the element meanwhile: those into
      accumulators and per-thread copies, and every one of a kernel when
      `parallel=false`. The others stay atomic;
    * with `deterministic`, a kernel whose results could depend on the order
      of atomic updates (float ones at data-dependent indices, ones whose
      old value is used, per-OS-thread copies; in the kernel or the
      functions it calls) gets the serial launcher instead, so that its
      results are the same for any number of OS threads.

    Argument names move into `ks.name` argument attributes; the `ks.inout`
    and `ks.unsigned` argument and result attributes and the
    `ks.unsigned_names` of kernels and functions are kept (the launcher's
    arguments get `ks.unsigned` too). `ks.load`, `ks.store`,
    `ks.atomic_rmw`, `ks.dim`, `ks.check_bounds`, the random-number
    operations and the struct operations stay as they are.

    ```mlir
    ks.kernel @fill(%v: f32, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      ks.store %v, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```

    becomes (`parallel=false`: an `scf.for` over every thread in place of
    the `ks.parallel_launch`)

    ```mlir
    func.func private @fill(%tid: i32 {ks.name = "tid"}, %v: f32 {ks.name = "v"},
                            %y: !ks.array<f32> {ks.name = "y"}) {
      ks.store %v, %y[%tid] : !ks.array<f32>, i32
      return
    }
    func.func @launch_fill(%dim: !ks.grid {ks.name = "dim"}, %v: f32 {ks.name = "v"},
                           %y: !ks.array<f32> {ks.name = "y"})
        attributes {ks.launch_of = "fill"} {
      ks.parallel_launch %dim grain 1024 {
      ^bb0(%begin: i32, %end: i32):
        %c1 = arith.constant 1 : i32
        scf.for %tid = %begin to %end step %c1 : i32 {
          func.call @fill(%tid, %v, %y) : (i32, f32, !ks.array<f32>) -> ()
        }
      }
      return
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Launchers run chunks of threads on several OS threads "
           "(ks.parallel_launch); false: every thread one after another">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "With parallel: a kernel whose results could depend on the order "
           "of its atomic updates (float ones, ones whose old value is used, "
           "per-thread copies) gets a serial launcher">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ConvertKsToCuda : Pass<"convert-ks-to-cuda", "::mlir::ModuleOp"> {
  let summary = "Lower kernels and device functions to CUDA thread functions and GPU kernels";
  let description = [{
    The CUDA counterpart of `convert-ks-to-cpu`: device functions and the
    one-thread functions of kernels are the same (`ks.func` becomes a
    private `func.func`, `ks.kernel @k` a private `func.func @k` receiving
    the thread indices it reads as leading `i32` arguments), so that the
    emitters print the same bodies for both targets. What differs is the
    launcher `func.func @launch_k(%dim: !ks.grid, ...)` (`ks.launch_of =
    "k"`): it is the body of one GPU thread of the launch, which the C++
    emitter prints as the `__global__` function `k`. It computes its global
    index `blockIdx.x * blockDim.x + threadIdx.x` (`gpu.block_id`,
    `gpu.block_dim`, `gpu.thread_id` in 64 bits) and calls `@k`

    * once, when the index is below the number of threads of the grid
      (`launch=guarded`, the default: the host launches one GPU thread per
      thread of the grid), or
    * for the index and every `gridDim.x * blockDim.x` after it below the
      number of threads (`launch=grid-stride`: any number of blocks covers
      the grid).

    A kernel that reads `tid(0)`, `tid(1)` or `tid(2)` gets its coordinates
    from the flat index in row-major order, as on the CPU. The launcher
    carries `ks.cuda_launch` (`"guarded"` or `"grid-stride"`) for the
    emitter's host launch function.

    Sums over the threads are reduced before their atomics (the same
    analysis as `convert-ks-to-cpu`'s, lib/Conversion/Kernels/
    Accumulations.h): an array argument the kernel only adds into at
    constant indices (the adjoint of a scalar argument) is replaced for the
    thread by a `ks.accumulator` of the GPU thread, its updates become
    `exclusive`, and the launcher adds the block's accumulators into the
    array with `ks.flush_accumulator block` after the grid-stride loop,
    where every thread of the block arrives (such a kernel's launcher always
    loops over the grid: its launches have few blocks, see
    ksc/Support/CudaLaunch.h). Every other
    atomic `add` or `sub` whose old value is unused gets `aggregate`: the
    lanes of a warp that update the same element combine their values
    first.

    With `deterministic`, every launch gives the same bits for the same
    grid and block size: the accumulators' flushes are `ordered` (the
    blocks' sums are added in block order by the last block, through
    partials the launch allocates: trailing launcher arguments with
    `ks.partial_words`), and a kernel with other atomic updates whose
    results depend on the order of the threads (as `convert-ks-to-cpu`'s
    `deterministic` decides) gets `ks.cuda_launch = "serial"`: one GPU
    thread runs the loop over the grid.

    ```mlir
    func.func @launch_saxpy_adj(%dim: !ks.grid {ks.name = "dim"}, ...,
        %adj_a: !ks.array<f32> {ks.name = "adj_a"},
        %adj_a_partials: !ks.array<i64> {ks.name = "adj_a_partials",
                                          ks.partial_words = 1 : i64})
        attributes {ks.cuda_launch = "grid-stride", ks.launch_of = "saxpy_adj"} {
      %sum = ks.accumulator %adj_a {size = 1 : i64} : !ks.array<f32>
      ...
      ks.flush_accumulator block %sum into %adj_a ordered %adj_a_partials
          : !ks.array<f32>, !ks.array<i64>
      return
    }
    ```

    A GPU thread has no thread-local tape to find: a thread function that
    uses one (`ks.tape_push`/`ks.tape_pop`, in adjoints of loops) gets a
    `!ks.tape` last argument, which its tape operations name, and its
    launcher makes the tape with `ks.tape_create` (`tape-bytes` bytes of
    the GPU thread's local memory) and passes it. Tape operations outside
    kernels are an error.

    ```mlir
    ks.kernel @fill(%v: f32, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      ks.store %v, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```

    becomes (guarded)

    ```mlir
    func.func private @fill(%tid: i32 {ks.name = "tid"}, %v: f32 {ks.name = "v"},
                            %y: !ks.array<f32> {ks.name = "y"}) {
      ks.store %v, %y[%tid] : !ks.array<f32>, i32
      return
    }
    func.func @launch_fill(%dim: !ks.grid {ks.name = "dim"}, %v: f32 {ks.name = "v"},
                           %y: !ks.array<f32> {ks.name = "y"})
        attributes {ks.cuda_launch = "guarded", ks.launch_of = "fill"} {
      %block = gpu.block_id x
      %b = arith.index_cast %block : index to i64
      %size = gpu.block_dim x
      %s = arith.index_cast %size : index to i64
      %thread = gpu.thread_id x
      %t = arith.index_cast %thread : index to i64
      %0 = arith.muli %b, %s : i64
      %tid = arith.addi %0, %t : i64
      %n = ks.grid_size %dim
      %in = arith.cmpi slt, %tid, %n : i64
      scf.if %in {
        %i = arith.trunci %tid : i64 to i32
        func.call @fill(%i, %v, %y) : (i32, f32, !ks.array<f32>) -> ()
      }
      return
    }
    ```
  }];
  let options = [
    Option<"launch", "launch", "std::string", /*default=*/"\"guarded\"",
           "How GPU threads cover the grid: guarded (one GPU thread per "
           "thread of the grid) or grid-stride">,
    Option<"tapeBytes", "tape-bytes", "int64_t", /*default=*/"4096",
           "The capacity of each GPU thread's tape, in bytes (kernels whose "
           "adjoints keep values on a tape)">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "Sums across blocks in a fixed order, and a serial launch for a "
           "kernel with other order-dependent atomic updates">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}


def ConvertKsToLLVM : Pass<"convert-ks-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower CUDA-lowered kernels to the LLVM and NVVM dialects";
  let description = [{
    The last step of the PTX pipeline: it takes the output of
    `convert-ks-to-cuda` after `ks-expand-builtins` and `convert-scf-to-cf`
    and converts everything into the `llvm` and `nvvm` dialects, ready for
    translation to LLVM IR and LLVM's NVPTX backend.

    Types: `!ks.array<T, N>` is the struct of `ksc::array<T, N>`,
    `!llvm.struct<(ptr, array<N x i64>, array<N x i64>)>` (data pointer,
    shape, strides in elements); `!ks.grid` is `!llvm.struct<(i64, i64,
    i64)>`; a `!ks.struct` is an LLVM struct with C++'s layout, vectors
    and matrices in it stored as LLVM arrays (a `vec3` is three floats, no
    padding). Array elements are laid out the same way.

    Operations: `ks.load`/`ks.store` compute the element's address from the
    strides (`llvm.getelementptr`), `ks.atomic_rmw` becomes `llvm.atomicrmw`
    (monotonic; a float `min`/`max` becomes a compare-and-swap loop with
    the semantics of `ks.atomic_rmw`, a vector or matrix one atomic per
    component), `ks.slice`, `ks.dim`, `ks.grid_size`, `ks.grid_extent`
    read and build the structs, `ks.check_bounds` and `ks.check_index`
    print the runtime's message with `vprintf` and trap. A `!ks.tape` is a
    pointer to a record that `ks.tape_create` allocates in the thread's
    local memory (its top, its capacity, then its bytes); `ks.tape_push`
    and `ks.tape_pop` move the top by the value's size rounded up to 8
    bytes, and a push that does not fit prints a message and traps. The
    sums of GPU launchers (ReductionsToLLVM.cpp): `ks.accumulator` is a
    zeroed `alloca` of its elements viewed as an array of extent `min(size,
    dim(array, 0))` (registers, once the thread function is inlined);
    `ks.flush_accumulator block` a tree of `nvvm.shfl.sync` per warp, the
    warps' sums in a shared-memory array (`@__ksc_block_sums_<type>`,
    address space 3) between `nvvm.barrier0`s, and one atomic per scalar
    and block (without `block`: one atomic per scalar and thread); an
    `exclusive` update a plain load, operation and store; an `aggregate`
    one `nvvm.match.sync any` on the address over the active lanes
    (`activemask`) and a tree of shuffles over each group's members before
    its lowest lane's atomic (the plain atomic before sm_70, which has no
    `match.any`). `arith`, `math`
    (libdevice functions `__nv_*` where libdevice has one, LLVM intrinsics
    otherwise), `cf`, `func`, `vector` and the `gpu` thread indices use the
    upstream conversions.

    Every launcher `@launch_k` (`ks.launch_of = "k"`) becomes the kernel
    entry `@k` (`nvvm.kernel`, and `nvvm.maxntid` when `block-size` is
    given) with the parameters of the CUDA C++ `__global__` function `k`:
    the grid, then the kernel's arguments, each with its C++ layout (a
    vector argument as an array of its components, a `bool` as a byte).
    The thread function `@k` is renamed `@k.thread`; functions other than
    the entries get internal linkage.

    ```mlir
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    ```

    becomes

    ```mlir
    %data = llvm.extractvalue %x[0] : !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>
    %stride = llvm.extractvalue %x[2, 0] : !llvm.struct<(ptr, array<1 x i64>, array<1 x i64>)>
    %i64 = llvm.sext %i : i32 to i64
    %offset = llvm.mul %i64, %stride : i64
    %address = llvm.getelementptr %data[%offset] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %address : !llvm.ptr -> f32
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "unsigned", /*default=*/"0",
           "GPU threads per block the kernels are launched with, given to "
           "them as nvvm.maxntid (0: not given)">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // KSC_CONVERSION_PASSES_TD
