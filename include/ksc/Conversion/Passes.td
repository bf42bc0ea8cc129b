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
      runs the whole launch: it calls `@k` for every thread of the grid, one
      after another in row-major order (one loop over `ks.grid_size` when
      the kernel reads only `ks.tid`, else one loop per dimension, which
      also compute the flat index). It carries `ks.launch_of = "k"` so that
      emitters can give it a C entry point;
    * an array argument that the kernel only updates with `ks.atomic_rmw
      add` or `sub` at constant indices below 16, never using the old value
      (a sum over all threads, such as the adjoint of a scalar argument in an
      adjoint kernel), is summed in a `ks.accumulator` of the launcher: the
      threads receive the accumulator in place of the array, and
      `ks.flush_accumulator` adds it into the array after the last thread.
      Only the order of the additions changes, which atomic additions leave
      open anyway.

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

    becomes

    ```mlir
    func.func private @fill(%tid: i32 {ks.name = "tid"}, %v: f32 {ks.name = "v"},
                            %y: !ks.array<f32> {ks.name = "y"}) {
      ks.store %v, %y[%tid] : !ks.array<f32>, i32
      return
    }
    func.func @launch_fill(%dim: !ks.grid {ks.name = "dim"}, %v: f32 {ks.name = "v"},
                           %y: !ks.array<f32> {ks.name = "y"})
        attributes {ks.launch_of = "fill"} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %size = ks.grid_size %dim
      %n = arith.trunci %size : i64 to i32
      scf.for %tid = %c0 to %n step %c1 : i32 {
        func.call @fill(%tid, %v, %y) : (i32, f32, !ks.array<f32>) -> ()
      }
      return
    }
    ```
  }];
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
    emitter's host launch function. Sums over threads stay atomic updates
    of the arrays (no `ks.accumulator`). The thread's tape
    (`ks.tape_push`/`ks.tape_pop`, in adjoints of loops) is not supported
    on the CUDA target yet: a kernel that uses it is an error.

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
           "thread of the grid) or grid-stride">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // KSC_CONVERSION_PASSES_TD
