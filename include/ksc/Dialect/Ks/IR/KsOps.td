//===- KsOps.td - Operations of the ks dialect -------------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSOPS_TD
#define KSC_DIALECT_KS_IR_KSOPS_TD

include "ksc/Dialect/Ks/IR/KsBase.td"
include "ksc/Dialect/Ks/IR/KsTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls a device function";
  let description = [{
    Calls the `ks.func` named by `callee` with the given operands. The operand
    and result types must match the callee's function type.

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

def Ks_GridExtentOp : Ks_Op<"grid_extent", [Pure]> {
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

def Ks_GridSizeOp : Ks_Op<"grid_size", [Pure]> {
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

def Ks_LoadOp : Ks_Op<"load", [
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
}

def Ks_AsConstOp : Ks_Op<"as_const", [Pure,
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

def Ks_DimOp : Ks_Op<"dim", [Pure]> {
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
    Checks that `indices` lie inside the shape of `array`. If one does not,
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

#endif // KSC_DIALECT_KS_IR_KSOPS_TD
