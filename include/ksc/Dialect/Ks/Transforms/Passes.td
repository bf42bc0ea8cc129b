//===- Passes.td - Transformations of the ks dialect -------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_TRANSFORMS_PASSES_TD
#define KSC_DIALECT_KS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KsInsertBoundsChecks : Pass<"ks-insert-bounds-checks", "::mlir::ModuleOp"> {
  let summary = "Guard every array access with a bounds check";
  let description = [{
    Inserts a `ks.check_bounds` before every `ks.load`, `ks.store` and
    `ks.atomic_rmw`, and a `ks.check_index` for every run-time position of
    a `vector.extract` or `vector.insert` (a component `v[i]` or `m[i][j]`
    with a non-constant index; constant ones are checked by the frontend). At run time the check stops the launch with an error
    that names the source location of the access, the function, the array,
    the index and the shape of the array. This is `ksc --bounds-check`; `ksc-run` enables it unless
    given `--bounds-check=false`.

    Before:

    ```mlir
    ks.kernel @copy(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      %v = ks.load %x[%i] : !ks.array<const f32>, i32
      ks.store %v, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```

    After:

    ```mlir
    ks.kernel @copy(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      ks.check_bounds %x[%i] {name = "x", where = "copy.kdsl:3:13"} : !ks.array<const f32>, i32
      %v = ks.load %x[%i] : !ks.array<const f32>, i32
      ks.check_bounds %y[%i] {name = "y", where = "copy.kdsl:3:3"} : !ks.array<f32>, i32
      ks.store %v, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```
  }];
  let dependentDialects = ["::ksc::ks::KsDialect"];
}

#endif // KSC_DIALECT_KS_TRANSFORMS_PASSES_TD
