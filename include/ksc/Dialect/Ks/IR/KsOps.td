//===- KsOps.td - Operations of the ks dialect -------------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSOPS_TD
#define KSC_DIALECT_KS_IR_KSOPS_TD

include "ksc/Dialect/Ks/IR/KsBase.td"
include "ksc/Dialect/Ks/IR/KsEnums.td"
include "ksc/Dialect/Ks/IR/KsTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"
include "ksc/Dialect/Ks/IR/KsInterfaces.td"

//===----------------------------------------------------------------------===//
// Kernels and device functions
//===----------------------------------------------------------------------===//

// Kernels and device functions share their representation: a symbol, a
// function type, optional argument/result attributes, the source names of the
// arguments and a single-block body.
class Ks_FunctionLikeOp<string mnemonic, list<Trait> traits = []>
    : Ks_Op<mnemonic, traits # [
        FunctionOpInterface, IsolatedFromAbove, AutomaticAllocationScope,
        DeclareOpInterfaceMethods<OpAsmOpInterface,
                                  ["getAsmBlockArgumentNames"]>]> {
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<StrAttr>:$sym_visibility,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs,
    OptionalAttr<StrArrayAttr>:$arg_names
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;

  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type,
                   CArg<"::llvm::ArrayRef<::llvm::StringRef>", "{}">:$argNames)>
  ];

  code functionLikeClassDeclaration = [{
    /// FunctionOpInterface: the body, or null for a declaration.
    ::mlir::Region *getCallableRegion() {
      return getBody().empty() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    bool isDeclaration() { return getBody().empty(); }

    /// The source name of argument `i`, or "" when it has none.
    ::llvm::StringRef getArgName(unsigned i);
  }];
}

def Ks_KernelOp : Ks_FunctionLikeOp<"kernel"> {
  let summary = "A kernel: the body of one thread of a launch";
  let description = [{
    A `ks.kernel` is an entry point of the module. A launch runs its body
    once per thread of a grid; `ks.tid` inside the body is the index of the
    running thread. Kernels return nothing: they communicate through the
    arrays they are given. The argument names are the source names of the
    kernel's parameters; they name the arguments in emitted code and in
    `ksc-run`'s input files.

    ```mlir
    ks.kernel @scale(%s: f32, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      %v = ks.load %y[%i] : !ks.array<f32>, i32
      %w = arith.mulf %v, %s : f32
      ks.store %w, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```
  }];
  let extraClassDeclaration = functionLikeClassDeclaration;
}

def Ks_FuncOp : Ks_FunctionLikeOp<"func"> {
  let summary = "A device function callable from kernels and device functions";
  let description = [{
    A `ks.func` is a function of the kernel language (`KSC_FUNC` in the
    source). It may take and return scalars, and take arrays. Calls to it are
    `ks.call` operations. The kernel language has no recursion (the frontend
    rejects it); the IR does not check for it.

    ```mlir
    ks.func @sq(%v: f32) -> f32 {
      %0 = arith.mulf %v, %v : f32
      ks.return %0 : f32
    }
    ```
  }];
  let extraClassDeclaration = functionLikeClassDeclaration;
}

def Ks_ReturnOp : Ks_Op<"return", [Pure, HasParent<"KernelOp, FuncOp">,
                                   ReturnLike, Terminator]> {
  let summary = "Returns from a kernel or device function";
  let description = [{
    Terminates the body of a `ks.kernel` (without operands) or a `ks.func`
    (with one operand per result of the function).

    ```mlir
    ks.return %0 : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def Ks_CallOp : Ks_Op<"call", [CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    Ks_DerivativeRules<>]> {
  let summary = "Calls a device function";
  let description = [{
    Calls the `ks.func` named by `callee` with the given operands. The operand
    and result types must match the callee's function type.

    The differentiation passes inline calls, except those of a function
    with custom derivative rules (`ks.custom_adjoint`, `ks.custom_tangent`
    on the callee): the derivative rules of such a call call them
    (KsDerivatives.cpp).

    ```mlir
    %r = ks.call @sq(%x) : (f32) -> f32
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$callee,
    Variadic<AnyType>:$operands,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let results = (outs Variadic<AnyType>);
  let builders = [
    OpBuilder<(ins "FuncOp":$callee, CArg<"::mlir::ValueRange", "{}">:$operands), [{
      $_state.addOperands(operands);
      $_state.addAttribute("callee", ::mlir::SymbolRefAttr::get(callee));
      $_state.addTypes(callee.getFunctionType().getResults());
    }]>
  ];
  let extraClassDeclaration = [{
    ::mlir::FunctionType getCalleeType() {
      return ::mlir::FunctionType::get(getContext(), getOperandTypes(),
                                       getResultTypes());
    }
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() {
      return getOperandsMutable();
    }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

def Ks_TidOp : Ks_Op<"tid", [Pure]> {
  let summary = "The index of the running thread";
  let description = [{
    Without `dim`, returns the index of the thread running the enclosing
    kernel among all threads of the launch, in `[0, X * Y * Z)` for a launch
    of grid `(X, Y, Z)`, counted in row-major order (`tid()` in the source).
    With `dim` = 0, 1 or 2, returns the thread's coordinate along that
    dimension of the grid (`tid(0)`, `tid(1)`, `tid(2)`). In a 1-D launch
    `tid()` and `tid(0)` are the same. Only valid inside a `ks.kernel`.

    ```mlir
    %i = ks.tid : i32
    %row = ks.tid 0 : i32
    %col = ks.tid 1 : i32
    ```
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I64Attr,
                       [IntMinValue<0>, IntMaxValue<2>]>>:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "($dim^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ks_GridExtentOp : Ks_Op<"grid_extent", [Ks_CppExpression, Pure]> {
  let summary = "The number of threads of a launch along one dimension";
  let description = [{
    Returns extent `dim` (0, 1 or 2) of the launch grid `grid`. The CPU
    lowering's launchers use it to run every thread of a launch.

    ```mlir
    %rows = ks.grid_extent %dim, 0
    ```
  }];
  let arguments = (ins Ks_GridType:$grid,
                       ConfinedAttr<I64Attr,
                       [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs I64:$result);
  let assemblyFormat = "$grid `,` $dim attr-dict";
}

def Ks_GridSizeOp : Ks_Op<"grid_size", [Ks_CppExpression, Pure]> {
  let summary = "The number of threads of a launch";
  let description = [{
    Returns the number of threads of the launch grid `grid`: the product of
    its three extents.

    ```mlir
    %n = ks.grid_size %dim
    ```
  }];
  let arguments = (ins Ks_GridType:$grid);
  let results = (outs I64:$result);
  let assemblyFormat = "$grid attr-dict";
}

//===----------------------------------------------------------------------===//
// Arrays
//===----------------------------------------------------------------------===//

def Ks_LoadOp : Ks_Op<"load", [Ks_CppExpression, 
    TypesMatchWith<"result type is the array's value type",
                   "array", "result",
                   "::llvm::cast<ArrayType>($_self).getValueType()">]> {
  let summary = "Reads an element of an array";
  let description = [{
    Reads the element of `array` at `indices` (one signless integer per
    dimension). Indices are not checked unless the `ks-insert-bounds-checks`
    pass ran; an access outside the array's shape is undefined behaviour.
    The result has the array's value type: the element type, signless (an
    element of a `!ks.array<ui32>` is read as an `i32`).

    ```mlir
    %v = ks.load %x[%i] : !ks.array<const f32>, i32
    %u = ks.load %h[%i] : !ks.array<ui32>, i32   // %u: i32
    ```
  }];
  let arguments = (ins Arg<Ks_ArrayType, "the array", [MemRead]>:$array,
                       Variadic<AnySignlessInteger>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $array `[` $indices `]` attr-dict `:` qualified(type($array)) `,` type($indices)
  }];
  let hasVerifier = 1;
  // A load right after a store to the same element reads the stored value.
  let hasCanonicalizeMethod = 1;
}

def Ks_StoreOp : Ks_Op<"store", [
    TypesMatchWith<"stored value has the array's value type",
                   "array", "value",
                   "::llvm::cast<ArrayType>($_self).getValueType()">]> {
  let summary = "Writes an element of an array";
  let description = [{
    Writes `value` to the element of `array` at `indices`. The array must not
    be `const`. The value has the array's value type (`i32` for a
    `!ks.array<ui32>`).

    ```mlir
    ks.store %v, %y[%i] : !ks.array<f32>, i32
    ```
  }];
  let arguments = (ins AnyType:$value,
                       Arg<Ks_ArrayType, "the array", [MemWrite]>:$array,
                       Variadic<AnySignlessInteger>:$indices);
  let assemblyFormat = [{
    $value `,` $array `[` $indices `]` attr-dict `:` qualified(type($array)) `,` type($indices)
  }];
  let hasVerifier = 1;
  // A store right before another store to the same element is dead.
  let hasCanonicalizeMethod = 1;
}

def Ks_AtomicRMWOp : Ks_Op<"atomic_rmw", [Ks_CppExpression]> {
  let summary = "Atomically updates an element of an array";
  let description = [{
    Reads the element of `array` at `indices` (one signless integer per
    dimension), combines it with `value` as `kind` says, writes the result
    back, and returns the value it read, all as one atomic step: concurrent
    `ks.atomic_rmw` operations on the same element never lose an update.
    The array must not be `const` and its element type must be `f32`, `f64`,
    `i32`, `ui32` or `i64` (not `i1`), or a vector or matrix of `f32`, `f64`
    or `i32` (`vec3`, `mat33d`, `quat`, `vec3i`), which is updated component
    by component, each component atomically and with the kind's meaning for
    that component (a `max` of vectors keeps each component's largest): the
    old value returned is each component's, not one snapshot of the whole.
    `value` and the result have the array's value type (`i32` for `ui32`
    elements).
    The source builtins `atomic_add`, `atomic_sub`, `atomic_min` and
    `atomic_max`, and `a[i] += v`, `a[i] -= v`, `++a[i]` and `a[i]--`,
    become this operation; `exchange` has no builtin: the derivative
    kernels of `atomic_min` and `atomic_max` take an element's adjoint
    with it (`ks-reverse-ad`).

    The new element, with `old` the value read:

    | kind | integers (`i32`, `i64`, `ui32`) | floats (`f32`, `f64`) |
    | --- | --- | --- |
    | `add` | `old + value`, wrapping on overflow | `old + value`, rounded to the element type |
    | `sub` | `old - value`, wrapping on overflow | `old - value`, rounded to the element type |
    | `min` | the smaller: signed, unsigned for `ui32` | `value` if `value < old` or `old` is NaN and `value` is not, else `old` |
    | `max` | the larger: signed, unsigned for `ui32` | `value` if `value > old` or `old` is NaN and `value` is not, else `old` |
    | `exchange` | `value` | `value` |

    Float `min`/`max` ignore a NaN as `arith.minnumf`/`arith.maxnumf` (and
    the source's `min`/`max` builtins) do: a NaN `value` leaves the element
    alone and a NaN element is replaced. Of `-0.0` and `0.0` the element
    keeps the one it has.

    The operation is atomic only with respect to other `ks.atomic_rmw`
    operations on the same element: it orders no other memory accesses
    (relaxed, as CUDA's `atomicAdd`), and a plain `ks.load`/`ks.store` of the
    element by another thread of the same launch races with it. Indices are
    not checked unless the `ks-insert-bounds-checks` pass ran.

    `exclusive` says that no other OS thread accesses the element while the
    thread runs, so that the update can be a plain read and write with the
    same result: `convert-ks-to-cpu` sets it where the launch makes the
    memory private (launch-private sums, or every thread of a launch on one
    OS thread).

    `aggregate` (set by `convert-ks-to-cuda` on `add` and `sub` updates
    whose old value is unused) lets a GPU combine the updates of a warp's
    lanes that run the operation together: lanes updating the same element
    add their values first (grouped with `match.any`, summed in a tree of
    shuffles) and one lane per element updates it; the result is then
    unspecified. With only distinct elements it is one atomic per lane, as
    without. See "How adjoints accumulate on the GPU" in docs/cuda.md.

    `fields [i, j]` updates a part of the element instead: each index is a
    field of a struct (field `j` of field `i`, for nested structs) or a
    position along the first dimension of a vector or matrix (a matrix's
    row, a vector's component), and the part has one of the types above.
    Adjoint kernels accumulate the adjoints of structs field by field so,
    and take one component's adjoint of a vector `atomic_max` (`exchange`
    at `fields [2]`). `value` and the result then have the part's value
    type.

    ```mlir
    %old = ks.atomic_rmw add %hist[%bin], %one : !ks.array<f32>, i32
    %prev = ks.atomic_rmw max %grid[%i, %j], %v : !ks.array<i64, 2>, i32, i64
    %0 = ks.atomic_rmw add exclusive %sum[%c0], %x : !ks.array<f32>, i32
    %adj = ks.atomic_rmw add aggregate %adj_c[%k], %s : !ks.array<f32>, i32
    %1 = ks.atomic_rmw add %adj[%i] fields [0], %dpos : !ks.array<!ks.struct<"Particle", pos: vector<3xf32>, mass: f32>>, i32
    %2 = ks.atomic_rmw max %box[%c0], %p : !ks.array<vector<3xf32>>, i32
    %3 = ks.atomic_rmw exchange %adj_box[%c0] fields [1], %zero : !ks.array<vector<3xf32>>, i32
    ```
  }];
  let arguments = (ins Ks_AtomicKind:$kind,
                       Arg<Ks_ArrayType, "the array", [MemRead, MemWrite]>:$array,
                       Variadic<AnySignlessInteger>:$indices,
                       AnyType:$value,
                       UnitAttr:$exclusive,
                       OptionalAttr<DenseI64ArrayAttr>:$fields,
                       UnitAttr:$aggregate);
  let results = (outs AnyType:$result);
  let builders = [
    // The result has the value's type.
    OpBuilder<(ins "AtomicKind":$kind, "::mlir::Value":$array,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$value,
                   CArg<"::llvm::ArrayRef<int64_t>", "{}">:$fields), [{
      build($_builder, $_state, value.getType(), kind, array, indices, value,
            /*exclusive=*/false,
            fields.empty() ? ::mlir::DenseI64ArrayAttr()
                           : $_builder.getDenseI64ArrayAttr(fields),
            /*aggregate=*/false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The type of what the operation updates: the array's element type,
    /// or the type of the field `fields` names.
    ::mlir::Type getTargetType();
    /// The value type of what the operation updates (`i32` for `ui32`).
    ::mlir::Type getTargetValueType();
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Ks_AccumulatorOp : Ks_Op<"accumulator", [
    TypesMatchWith<"result has the array's type", "array", "result",
                   "$_self">]> {
  let summary = "Launch-private partial sums of the leading elements of an array";
  let description = [{
    Returns a new, zero-filled 1-D array private to the code that creates it
    (a launcher), of extent `min(size, dim(array, 0))`: the partial sums of
    the first `size` elements of `array`. `ks.flush_accumulator` adds them
    into `array`.

    `convert-ks-to-cpu` gives a launch such an accumulator in place of an
    array argument that the kernel only updates with `ks.atomic_rmw add` or
    `sub` at constant indices (a sum over all threads, such as the adjoint
    of a scalar argument): the threads add into memory the launch owns,
    which the host compiler keeps in registers and need not assume aliases
    the other arrays, and the launch adds the sums into the array once.
    Indices outside the accumulator are outside the array too, so bounds
    checks fail alike.

    ```mlir
    %sum = ks.accumulator %adj_a {size = 1 : i64} : !ks.array<f32>
    scf.for %tid = %c0 to %n step %c1 : i32 {
      func.call @saxpy_adj(%tid, ..., %sum, ...) : (...) -> ()
    }
    ks.flush_accumulator %sum into %adj_a : !ks.array<f32>
    ```
  }];
  let arguments = (ins Ks_ArrayType:$array,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$size);
  let results = (outs Res<Ks_ArrayType, "the partial sums", [MemAlloc]>:$result);
  let assemblyFormat = "$array attr-dict `:` qualified(type($array))";
  let hasVerifier = 1;
}

def Ks_FlushAccumulatorOp : Ks_Op<"flush_accumulator", [
    AllTypesMatch<["accumulator", "array"]>]> {
  let summary = "Adds the partial sums of a ks.accumulator into its array";
  let description = [{
    Adds element `k` of `accumulator` (made by `ks.accumulator` from
    `array`) into element `k` of `array`, for every `k` of the accumulator,
    each as a `ks.atomic_rmw add`.

    With `block` (the launchers of `convert-ks-to-cuda`), every GPU thread
    of the block holds an accumulator of its own and runs the operation at
    a point every thread of the block reaches (after the launch's guard or
    grid-stride loop): the accumulators are summed across the block (a tree
    of shuffles per warp, then the warps' sums through shared memory, with
    block barriers) and the block's first thread adds the sums into
    `array`: one atomic update per element and block instead of one per
    thread.

    With `ordered %partials` as well (`convert-ks-to-cuda` with
    `deterministic`), the blocks' sums are added in a fixed order, so that
    launches of the same grid and block size give the same bits: every
    block stores its sums into `%partials` (a 1-D `i64` array of the
    launch: element 0 a ticket, zero before the launch; then, for block
    `b`, `W` elements from `1 + b * W` holding the block's sums as packed
    scalars of the element type, `W = ceil(scalars * bytes per scalar /
    8)`). The last block to take a ticket sums the partials of all blocks
    in block order (thread `t` blocks `t, t + blockDim, ...`, then the
    block's fixed tree), adds the totals into `array`, and sets the ticket
    back to zero.

    ```mlir
    ks.flush_accumulator %sum into %adj_a : !ks.array<f32>
    ks.flush_accumulator block %adj_a_sum into %adj_a : !ks.array<f32>
    ks.flush_accumulator block %adj_a_sum into %adj_a
        ordered %adj_a_partials : !ks.array<f32>, !ks.array<i64>
    ```
  }];
  let arguments = (ins Arg<Ks_ArrayType, "the partial sums", [MemRead]>:$accumulator,
                       Arg<Ks_ArrayType, "the array", [MemRead, MemWrite]>:$array,
                       UnitAttr:$block,
                       Arg<Optional<Ks_ArrayType>, "the blocks' sums and a ticket",
                           [MemRead, MemWrite]>:$partials);
  let assemblyFormat = [{
    (`block` $block^)? $accumulator `into` $array (`ordered` $partials^)?
    attr-dict `:` qualified(type($array)) (`,` qualified(type($partials))^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The `i64` elements per block of `ordered`'s partials for `scalars`
    /// scalars of `scalarBytes` bytes each.
    static int64_t getPartialWords(int64_t scalars, int64_t scalarBytes) {
      return (scalars * scalarBytes + 7) / 8;
    }
  }];
}

def Ks_ParallelLaunchOp : Ks_Op<"parallel_launch", [
    AttrSizedOperandSegments, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"ParallelYieldOp">]> {
  let summary = "Runs the threads of a CPU launch on several OS threads";
  let description = [{
    Runs the `ks.grid_size` threads of `grid` by executing the body once per
    range `[%begin, %end)` of consecutive thread indices, ranges possibly at
    the same time on different OS threads (the runtime's
    `ksc::parallel_launch`). Ranges are made of chunks: consecutive threads,
    at least `grain` per chunk and at most 1024 chunks, so that the chunks
    depend on the launch size only.

    The body receives, after `%begin` and `%end`, one array per `sums`
    operand and one per `private` operand, in that order:

    * a `sums` operand (1-D, with its size in `sizes`) becomes a zeroed
      accumulator of `min(size, dim(array, 0))` elements private to the
      chunk; after the launch the chunks' accumulators are added up in
      chunk order and then into the array, so the result does not depend
      on the number of OS threads;
    * a `private` operand becomes a zeroed array of the same shape private
      to the OS thread (the array itself when the launch runs on one); after
      the launch the private arrays are added into it.

    The body may therefore update these only with additions whose old values
    it does not read. A failing thread stops the launch with the error of
    the lowest thread index that failed, and nothing is added.

    ```mlir
    ks.parallel_launch %dim grain 1024 sums(%adj_a : !ks.array<f32>)
        attributes {sizes = array<i64: 1>} {
    ^bb0(%begin: i32, %end: i32, %adj_a_sum: !ks.array<f32>):
      scf.for %tid = %begin to %end step %c1 : i32 {
        func.call @saxpy_adj(%tid, %a, %x, %y, %adj_a_sum, %adj_x, %adj_y) : (...) -> ()
      }
    }
    ```
  }];
  let arguments = (ins Ks_GridType:$grid,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$grain,
                       Variadic<Ks_ArrayType>:$sums,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$sizes,
                       Variadic<Ks_ArrayType>:$private_sums);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $grid `grain` $grain (`sums` `(` $sums^ `:` type($sums) `)`)?
    (`private` `(` $private_sums^ `:` type($private_sums) `)`)? attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
}

def Ks_ParallelYieldOp : Ks_Op<"parallel_yield", [Pure, Terminator,
    HasParent<"ParallelLaunchOp">]> {
  let summary = "Ends the body of a ks.parallel_launch";
  let description = [{
    The terminator of the body of `ks.parallel_launch`, implied in its
    printed form.
  }];
  let assemblyFormat = "attr-dict";
}

def Ks_AsConstOp : Ks_Op<"as_const", [Ks_CppExpression, Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>,
    TypesMatchWith<"result is the read-only view of the array",
                   "array", "result",
                   "::llvm::cast<ArrayType>($_self).withConst(true)">]> {
  let summary = "Views an array as read-only";
  let description = [{
    The same array as a read-only view: what C++ does when an `array<T>`
    is passed where an `array<const T>` is expected. Folds away when the
    array is already read-only.

    ```mlir
    %view = ks.as_const %y : !ks.array<f32>
    ```
  }];
  let arguments = (ins Ks_ArrayType:$array);
  let results = (outs Ks_ArrayType:$result);
  let assemblyFormat = "$array attr-dict `:` qualified(type($array))";
  let hasFolder = 1;
}

def Ks_SliceOp : Ks_Op<"slice", [Ks_CppExpression, Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "A view of an array with its leading dimensions fixed";
  let description = [{
    The view of `array` at `indices` in its leading dimensions: `a[i]` of a
    2-D array is row `i`, a 1-D view; `a[i]` of a 3-D array is a 2-D view
    and `a[i][j]` a 1-D one. The result has the remaining dimensions' shape
    and strides, the element type and read-only-ness of `array`, and
    shares its memory: writing an element of the view writes `array`.
    Indices are checked like element indices (against the leading
    dimensions' extents) by `ks-insert-bounds-checks`; out of range without
    the check, the view points outside the array (undefined behaviour on
    access).

    ```mlir
    %row = ks.slice %a[%i] : !ks.array<f32, 2>, i32 -> !ks.array<f32>
    %col = ks.slice %v[%i, %j] : !ks.array<const vector<3xf32>, 3>, i32, i64 -> !ks.array<const vector<3xf32>>
    ```
  }];
  let arguments = (ins Ks_ArrayType:$array,
                       Variadic<AnySignlessInteger>:$indices);
  let results = (outs Ks_ArrayType:$result);
  let assemblyFormat = [{
    $array `[` $indices `]` attr-dict `:` qualified(type($array)) `,`
    type($indices) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Ks_DimOp : Ks_Op<"dim", [Ks_CppExpression, Pure]> {
  let summary = "The extent of one dimension of an array";
  let description = [{
    Returns the number of elements of `array` along dimension `dim`.

    ```mlir
    %n = ks.dim %x, 0 : !ks.array<f32>
    ```
  }];
  let arguments = (ins Ks_ArrayType:$array,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs I64:$result);
  let assemblyFormat = "$array `,` $dim attr-dict `:` qualified(type($array))";
  let hasVerifier = 1;
}

def Ks_CheckBoundsOp : Ks_Op<"check_bounds", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Stops the launch if an index is outside an array";
  let description = [{
    Checks that `indices` lie inside the shape of `array` (one index per
    dimension for an element, fewer for a `ks.slice`, checked against the
    leading dimensions). If one does not,
    the launch stops with an error that names the access (`where`, a source
    location), the array (`name`), the index and the shape. The operation
    has side effects so that it is neither removed nor moved past the access
    it guards. Inserted by `ks-insert-bounds-checks`.

    ```mlir
    ks.check_bounds %x[%i] {name = "x", where = "copy.kdsl:3:13"} : !ks.array<const f32>, i32
    ```
  }];
  let arguments = (ins Ks_ArrayType:$array,
                       Variadic<AnySignlessInteger>:$indices,
                       StrAttr:$name, StrAttr:$where);
  let assemblyFormat = [{
    $array `[` $indices `]` attr-dict `:` qualified(type($array)) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Ks_CheckIndexOp : Ks_Op<"check_index", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Stops the launch if a component index is out of range";
  let description = [{
    Checks that `index`, a run-time position into a vector or matrix (`v[i]`,
    `m[i][j]`), lies in `[0, extent)`. If it does not, the launch stops with
    an error that names the access (`where`, a source location), the index,
    and the type indexed (`type`, as the source spells it). Like
    `ks.check_bounds` it has side effects so that it stays before the access
    it guards. Inserted by `ks-insert-bounds-checks`.

    ```mlir
    ks.check_index %i, 3 {type = "vec3", where = "k.kdsl:4:9"} : index
    ```
  }];
  let arguments = (ins Index:$index, I64Attr:$extent, StrAttr:$type,
                       StrAttr:$where);
  let assemblyFormat = "$index `,` $extent attr-dict `:` type($index)";
}

include "ksc/Dialect/Ks/IR/KsLinalgOps.td"
include "ksc/Dialect/Ks/IR/KsStructOps.td"

//===----------------------------------------------------------------------===//
// The tape of adjoint kernels
//===----------------------------------------------------------------------===//

def Ks_TapeResource : Resource<"::ksc::ks::TapeResource">;

def Ks_TapePushOp : Ks_Op<"tape_push",
    [MemoryEffects<[MemWrite<Ks_TapeResource>]>]> {
  let summary = "Saves a value on the running thread's tape";
  let description = [{
    Every thread has a tape: a last-in, first-out stack of values, empty when
    the thread starts. `ks.tape_push` puts `value` on top of it. The adjoint
    kernels that `ks-reverse-ad` builds push, in the forward sweep, the values
    a loop iteration computed that the reverse sweep needs, and pop them in
    the reverse sweep, in the opposite order, leaving the tape empty.

    Without `tape`, the tape is the running thread's own (the CPU runtime
    keeps one per OS thread); with it, the one `ks.tape_create` made for the
    thread (the CUDA target).

    ```mlir
    ks.tape_push %p : f32
    %q = ks.tape_pop : f32   // %q is %p
    ks.tape_push %p to %tape : f32
    ```
  }];
  let arguments = (ins AnyType:$value, Optional<Ks_TapeType>:$tape);
  let assemblyFormat = "$value (`to` $tape^)? attr-dict `:` type($value)";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$value), [{
      build($_builder, $_state, value, ::mlir::Value());
    }]>
  ];
}

def Ks_TapePopOp : Ks_Op<"tape_pop",
    [Ks_CppExpression, MemoryEffects<[MemRead<Ks_TapeResource>, MemWrite<Ks_TapeResource>]>]> {
  let summary = "Takes the value on top of the running thread's tape";
  let description = [{
    Removes the value on top of the running thread's tape (see
    `ks.tape_push`; the one `tape` names, if given) and returns it. The
    value must have been pushed with the result's type; popping an empty
    tape is undefined behaviour.

    ```mlir
    %q = ks.tape_pop : f32
    %r = ks.tape_pop from %tape : f32
    ```
  }];
  let arguments = (ins Optional<Ks_TapeType>:$tape);
  let results = (outs AnyType:$result);
  let assemblyFormat = "(`from` $tape^)? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type), [{
      build($_builder, $_state, type, ::mlir::Value());
    }]>
  ];
}

def Ks_TapeCapacityOp : Ks_Op<"tape_capacity",
    [Ks_CppExpression, MemoryEffects<[MemRead<Ks_TapeResource>]>]> {
  let summary = "The bytes a loop of the running thread may keep on its tape";
  let description = [{
    The capacity of the running thread's tape in bytes (of the one `tape`
    names, if given): on the CUDA target the capacity `ks.tape_create` gave
    it (`--tape-bytes`), on the CPU, whose tapes grow, the budget the
    runtime sets for the values a loop keeps (`ksc::tape::capacity()`, 1
    MiB). Adjoint kernels compare what a loop would push with half of it
    to choose between taping the loop and checkpointing it
    (docs/autodiff.md).

    ```mlir
    %bytes = ks.tape_capacity : i64
    %gpu = ks.tape_capacity of %tape : i64
    ```
  }];
  let arguments = (ins Optional<Ks_TapeType>:$tape);
  let results = (outs I64:$result);
  let assemblyFormat = "(`of` $tape^)? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins), [{
      build($_builder, $_state, $_builder.getI64Type(), ::mlir::Value());
    }]>
  ];
}

def Ks_TapeCreateOp : Ks_Op<"tape_create",
    [MemoryEffects<[MemAlloc<Ks_TapeResource>]>]> {
  let summary = "A new, empty tape for one thread of a GPU launch";
  let description = [{
    Makes an empty tape of `capacity` bytes in the running GPU thread's
    local memory, for the thread function it is passed to (the CUDA
    lowering creates one in each launcher whose kernel uses a tape). Every
    value pushed takes its size rounded up to 8 bytes. A push that does not
    fit stops the launch with an error naming `kernel`.

    ```mlir
    %tape = ks.tape_create {capacity = 4096 : i64, kernel = "product_adj"}
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<8>]>:$capacity,
                       StrAttr:$kernel);
  let results = (outs Ks_TapeType:$tape);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

// The random-number builtins are NVIDIA Warp's (warp/native/rand.h), bit for
// bit. The generator's state is an i32 (a uint32_t in the source); the
// operations that draw a number take the state and return the number and
// the new state, so they are pure functions of their operands.

def Ks_RandInitOp : Ks_Op<"rand_init", [Ks_CppExpression, Pure]> {
  let summary = "The initial state of a stream of random numbers";
  let description = [{
    Returns a generator state (a `uint32_t`) for `seed`, and for `offset`
    if given (both `int`s in the source), as Warp's `rand_init`:
    `pcg(seed)`, or `pcg(seed + pcg(offset))` with the additions modulo
    2^32, where `pcg(x)` is the PCG hash of Jarzynski and Olano ("Hash
    Functions for GPU Rendering", JCGT 2020):

    ```
    b = x * 747796405 + 2891336453
    c = ((b >> ((b >> 28) + 4)) ^ b) * 277803737
    pcg(x) = (c >> 22) ^ c
    ```

    computed on uint32_t. Threads usually pass their index as `offset`, so
    that one seed gives each thread a stream of its own.

    ```mlir
    %s = ks.rand_init %seed
    %t = ks.rand_init %seed, %i
    ```
  }];
  let arguments = (ins I32:$seed, Optional<I32>:$offset);
  let results = (outs I32:$state);
  let assemblyFormat = "$seed (`,` $offset^)? attr-dict";
}

// randi, randf and randn: a state in, a number and the next state out.
class Ks_RandOp<string mnemonic, Type valueType, list<Trait> traits = []>
    : Ks_Op<mnemonic, [Pure] # traits> {
  let arguments = (ins I32:$state, Variadic<valueType>:$bounds);
  let results = (outs valueType:$value, I32:$new_state);
  let assemblyFormat = "$state (`,` $bounds^)? attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the operation draws from [low, high) (has bounds).
    bool hasBounds() { return getBounds().size() == 2; }
    ::mlir::Value getLow() { return hasBounds() ? getBounds()[0] : nullptr; }
    ::mlir::Value getHigh() { return hasBounds() ? getBounds()[1] : nullptr; }
  }];
}

def Ks_RandIOp : Ks_RandOp<"randi", I32> {
  let summary = "A random int";
  let description = [{
    Advances the generator state (`new_state = pcg(state)`, see
    `ks.rand_init`) and returns, as Warp's `randi`, the new state as an
    `int` (the same 32 bits), or with bounds `low` and `high` a number in
    `[low, high)`: `new_state % (high - low) + low`, computed on uint32_t
    (so `high - low` wraps modulo 2^32). `high` must be greater than `low`;
    when they are equal the result is undefined (a division by zero).

    ```mlir
    %v, %s1 = ks.randi %s0
    %w, %s2 = ks.randi %s1, %low, %high
    ```
  }];
}

// The derivative of randf with bounds (KsDerivatives.cpp): pointwise in the
// bounds, through the same draw.
def Ks_RandFOp : Ks_RandOp<"randf", F32,
    [DeclareOpInterfaceMethods<Ks_DerivativeOpInterface>]> {
  let summary = "A random float, uniform in [0, 1) or [low, high)";
  let description = [{
    Advances the generator state (`new_state = pcg(state)`, see
    `ks.rand_init`) and returns, as Warp's `randf`, `float(new_state >> 8) *
    2^-24`: one of the 2^24 evenly spaced floats in `[0, 1)`, exactly. With
    bounds, it returns `(high - low) * r + low` for that number `r`, each
    operation rounded to float (no fused multiply-add).

    ```mlir
    %r, %s1 = ks.randf %s0
    %x, %s2 = ks.randf %s1, %low, %high
    ```
  }];
}

def Ks_RandNOp : Ks_Op<"randn", [Pure]> {
  let summary = "A random float from the standard normal distribution";
  let description = [{
    Draws two numbers `u1`, `u2` as `ks.randf` does, in that order (the
    state advances twice), and returns, as Warp's `randn` (Box-Muller),
    `sqrt(-2 * log(u1 + 5.96e-8)) * cos(2 * pi * u2)`, in float: the
    constant keeps the logarithm finite, and `2 * pi` is the float product
    of 2 and pi rounded to float.

    ```mlir
    %n, %s1 = ks.randn %s0
    ```
  }];
  let arguments = (ins I32:$state);
  let results = (outs F32:$value, I32:$new_state);
  let assemblyFormat = "$state attr-dict";
}

#endif // KSC_DIALECT_KS_IR_KSOPS_TD
