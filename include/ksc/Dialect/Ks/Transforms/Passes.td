//===- Passes.td - Transformations of the ks dialect -------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_TRANSFORMS_PASSES_TD
#define KSC_DIALECT_KS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KsPromoteToF64 : Pass<"ks-promote-to-f64", "::mlir::ModuleOp"> {
  let summary = "Compute in double precision: every f32 becomes f64";
  let description = [{
    Rewrites kernels and device functions to compute in `f64` wherever
    they use `f32`: arguments, results, arrays of `float` (which become
    arrays of `double`), vectors, matrices and quaternions, struct fields,
    constants and every operation on them. This is `ksc --precision=double`
    (and `ksc-run --precision=double`, whose gradient check then works in
    double): a kernel written in `float` runs, and is differentiated, in
    `double` without editing its source.

    Float constants are re-read from their shortest decimal form, so the
    source's `0.1f` becomes the double `0.1` rather than the double nearest
    to the float `0.1f`. Conversions between `float` and `double`
    (`arith.extf`, `arith.truncf`) disappear. The random-number operations
    keep drawing `f32` values (the generator is Warp's, bit for bit), which
    are then extended, and their bounds are rounded to `f32`.

    ```mlir
    ks.kernel @scale(%a: f32, %x: !ks.array<f32>) {
      %i = ks.tid : i32
      %c = arith.constant 1.000000e-01 : f32
      %v = ks.load %x[%i] : !ks.array<f32>, i32
      %w = arith.mulf %v, %a : f32
      %r = arith.addf %w, %c : f32
      ks.store %r, %x[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```

    becomes

    ```mlir
    ks.kernel @scale(%a: f64, %x: !ks.array<f64>) {
      %i = ks.tid : i32
      %c = arith.constant 1.000000e-01 : f64
      %v = ks.load %x[%i] : !ks.array<f64>, i32
      %w = arith.mulf %v, %a : f64
      %r = arith.addf %w, %c : f64
      ks.store %r, %x[%i] : !ks.array<f64>, i32
      ks.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

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

def KsReverseAD : Pass<"ks-reverse-ad", "::mlir::ModuleOp"> {
  let summary = "Add the adjoint kernel K_adj of every kernel K (reverse mode)";
  let description = [{
    For every `ks.kernel @K`, adds `ks.kernel @K_adj`, the vector-Jacobian
    product of a launch of K: K's arguments followed by one adjoint array
    per argument that has an adjoint (an active input, see `wrt`, or an
    array of float, double, vector or matrix elements that K writes). An
    array's adjoint is a non-const array of the same shape; a scalar's is a
    one-element array that receives the sum over all threads. On entry the
    adjoint arrays hold the adjoints of the values after the launch, on exit
    those of the values before it. `ks.adjoint_of` names the primal kernel
    and `ks.adjoint_args` lists, per adjoint argument, the index of its
    primal argument. docs/autodiff.md describes the semantics and what
    cannot be differentiated yet.

    The body is K's body (the forward sweep) followed by the reverse sweep.
    The forward sweep writes only the primal arrays that a thread may read
    after writing them, or whose atomic updates' old values K uses; it
    leaves the others (outputs, in-place updates) alone, and what only fed
    their stores goes with them.
    Only active values (depending on an active input and reaching a store
    into an array with an adjoint) get adjoint code. A read accumulates into
    the adjoint array, with `ks.atomic_rmw add` unless its index is
    `c * tid() + d` with `c != 0` (then no other thread reads the element)
    and no read of the same array has an index threads may share.

    ```mlir
    ks.kernel @sq(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      %v = ks.load %x[%i] : !ks.array<const f32>, i32
      %w = arith.mulf %v, %v : f32
      ks.store %w, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```

    gets, after canonicalization:

    ```mlir
    ks.kernel @sq_adj(%x: !ks.array<const f32>, %y: !ks.array<f32>,
                      %adj_x: !ks.array<f32>, %adj_y: !ks.array<f32>)
        attributes {ks.adjoint_args = array<i64: 0, 1>, ks.adjoint_of = @sq} {
      %cst = arith.constant 0.000000e+00 : f32
      %i = ks.tid : i32
      %v = ks.load %x[%i] : !ks.array<const f32>, i32
      %adj_w = ks.load %adj_y[%i] : !ks.array<f32>, i32
      ks.store %cst, %adj_y[%i] : !ks.array<f32>, i32
      %0 = arith.mulf %adj_w, %v : f32
      %adj_v = arith.addf %0, %0 fastmath<nsz> : f32
      %1 = ks.load %adj_x[%i] : !ks.array<f32>, i32
      %2 = arith.addf %1, %adj_v fastmath<nsz> : f32
      ks.store %2, %adj_x[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```
  }];
  let options = [
    ListOption<"wrt", "wrt", "std::string",
               "Differentiate with respect to these arguments only (by "
               "name; default: every argument with a derivative)">,
    Option<"printActivity", "print-activity", "bool", "false",
           "Print, per kernel, which arguments and values are active "
           "(to stderr)">,
    Option<"gpuCost", "gpu-cost", "bool", "false",
           "The cost model of a GPU, whose per-thread tape is local memory: "
           "the reverse sweep of a loop also recomputes square roots "
           "instead of keeping them on the tape">
  ];
  let dependentDialects = ["::ksc::ks::KsDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def KsForwardAD : Pass<"ks-forward-ad", "::mlir::ModuleOp"> {
  let summary = "Add the tangent kernel K_jvp of every kernel K (forward mode)";
  let description = [{
    For every `ks.kernel @K`, adds `ks.kernel @K_jvp`, the Jacobian-vector
    product of a launch of K: K's arguments followed by one tangent per
    argument that has one (the same arguments as the adjoints of
    `ks-reverse-ad`: the active inputs, see `wrt`, and the arrays of float,
    double, vector or matrix elements that K writes), named `tan_<name>`.
    A tangent has the type of its argument: a scalar's is passed by value,
    an array's is an array of the same shape. On entry the tangent arrays
    hold the tangents of the arrays' values before the launch (zero for an
    argument outside `wrt`), on exit those after it. `ks.tangent_of` names
    the primal kernel and `ks.tangent_args` lists, per tangent argument, the
    index of its primal argument.

    With `width` W > 1 (batched forward mode) the kernel propagates W
    tangent directions at once: an array's tangent has one more, leading
    dimension of extent W (`tan_x[k]`, shaped like `x`, is direction k), a
    scalar's is an array of W values, and
    `ks.tangent_width` records W.

    The body is K's body in which every active value is followed by its
    tangents; control flow is kept (an `scf.if`, `scf.for` or `scf.while`
    carries the tangents of its active values as further results, iteration
    arguments and yielded values), so loops of any trip count, `while`,
    `break` and `continue` need no tape. With `of-adjoints`, the pass
    differentiates the adjoint kernels `K_adj` instead (forward over
    reverse), with respect to the arguments of K, giving `K_hvp`:
    Hessian-vector products. docs/autodiff.md describes the semantics.

    ```mlir
    ks.kernel @sq(%x: !ks.array<const f32>, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      %v = ks.load %x[%i] : !ks.array<const f32>, i32
      %w = arith.mulf %v, %v : f32
      ks.store %w, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```

    gets, after canonicalization:

    ```mlir
    ks.kernel @sq_jvp(%x: !ks.array<const f32>, %y: !ks.array<f32>,
                      %tan_x: !ks.array<const f32>, %tan_y: !ks.array<f32>)
        attributes {ks.tangent_args = array<i64: 0, 1>, ks.tangent_of = @sq} {
      %i = ks.tid : i32
      %v = ks.load %x[%i] : !ks.array<const f32>, i32
      %tan_v = ks.load %tan_x[%i] : !ks.array<const f32>, i32
      %w = arith.mulf %v, %v : f32
      %0 = arith.mulf %tan_v, %v : f32
      %tan_w = arith.addf %0, %0 : f32
      ks.store %w, %y[%i] : !ks.array<f32>, i32
      ks.store %tan_w, %tan_y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```
  }];
  let options = [
    ListOption<"wrt", "wrt", "std::string",
               "Differentiate with respect to these arguments only (by "
               "name; default: every argument with a derivative)">,
    Option<"width", "width", "unsigned", "1",
           "The number of tangent directions a launch propagates">,
    Option<"ofAdjoints", "of-adjoints", "bool", "false",
           "Differentiate the adjoint kernels K_adj into K_hvp "
           "(Hessian-vector products) instead of the primal kernels">
  ];
  let dependentDialects = ["::ksc::ks::KsDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def KsExpandBuiltins : Pass<"ks-expand-builtins", "::mlir::ModuleOp"> {
  let summary = "Expand linear algebra, quaternion and random-number operations";
  let description = [{
    Rewrites the operations that the C++ emitters print as calls of the ksc
    runtime into `arith`, `math` and `vector` operations, for targets that
    have no runtime to call (PTX through LLVM). Every expansion computes
    what the runtime computes in the same order of operations, so that the
    results are the same bit for bit where the target rounds like the host:

    * `ks.dot`, `ks.cross`, `ks.outer`, `ks.matmul`: products and sums in
      index order (`ks.dot` of `vector<3xf32>` is `(a0 * b0 + a1 * b1) +
      a2 * b2`);
    * `ks.determinant` by cofactor expansion along the first row, starting
      from 0; `ks.inverse` as the transposed cofactors divided by the
      determinant, selected against the zero matrix when the determinant
      is 0;
    * `ks.quat_mul`, `ks.quat_rotate`, `ks.quat_rotate_inv`,
      `ks.quat_to_matrix` with NVIDIA Warp's formulas;
    * `ks.rand_init`, `ks.randi`, `ks.randf`, `ks.randn`: the PCG hash on
      `i32` (`arith.muli`, `arith.shrui`, `arith.xori`) and Warp's
      conversions to numbers (`randn` through `math.log`, `math.sqrt` and
      `math.cos`).

    ```mlir
    %d = ks.dot %a, %b : vector<2xf32>
    ```

    becomes

    ```mlir
    %a0 = vector.extract %a[0] : f32 from vector<2xf32>
    %b0 = vector.extract %b[0] : f32 from vector<2xf32>
    %p0 = arith.mulf %a0, %b0 : f32
    %a1 = vector.extract %a[1] : f32 from vector<2xf32>
    %b1 = vector.extract %b[1] : f32 from vector<2xf32>
    %p1 = arith.mulf %a1, %b1 : f32
    %d = arith.addf %p0, %p1 : f32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // KSC_DIALECT_KS_TRANSFORMS_PASSES_TD
