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

#endif // KSC_CONVERSION_PASSES_TD
