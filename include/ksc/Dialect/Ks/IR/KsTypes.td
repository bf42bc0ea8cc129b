//===- KsTypes.td - Types of the ks dialect ----------------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSTYPES_TD
#define KSC_DIALECT_KS_IR_KSTYPES_TD

include "ksc/Dialect/Ks/IR/KsBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Ks_ArrayType : Ks_Type<"Array", "array"> {
  let summary = "A view of kernel memory with a shape and strides";
  let description = [{
    An `!ks.array` is the kernel language's `array<T>`: a reference to
    memory owned by the caller of a launch, with a shape and element strides
    known at run time. It is passed to kernels and functions by value (copying
    the view, not the data). `const` marks a read-only view (`array<const T>`
    in the source): `ks.store` to it is rejected by the verifier.

    The element type is one of the scalar types of the kernel language:
    `f32`, `f64`, `i1`, `i32`, `ui32` or `i64`. `ui32` is `uint32_t`: the
    array's memory holds unsigned integers, but what `ks.load` reads and
    `ks.store` writes is a signless `i32` (the value type of the array), as
    everywhere else in the IR, where unsignedness lives in the operations
    (`arith.divui`, `arith.uitofp`, ...). The element type only says how
    the array is declared in emitted code and how `ksc-run` reads and prints
    its elements. The rank is 1 to 4 and defaults to 1.

    ```mlir
    !ks.array<f32>          // array<float>
    !ks.array<const f64>    // array<const double>
    !ks.array<i32, 2>       // a 2-D array of int
    !ks.array<ui32>         // array<uint32_t>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$elementType,
    DefaultValuedParameter<"unsigned", "1">:$rank,
    DefaultValuedParameter<"bool", "false">:$isConst
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$elementType,
        CArg<"unsigned", "1">:$rank, CArg<"bool", "false">:$isConst), [{
      return $_get(elementType.getContext(), elementType, rank, isConst);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether `type` may be the element type of an array.
    static bool isValidElementType(::mlir::Type type);
    /// The type of the values `ks.load` reads and `ks.store` writes: the
    /// element type, signless (`i32` for `ui32`).
    ::mlir::Type getValueType() const;
    /// The same view type with (or without) `const`.
    ArrayType withConst(bool isConst) const {
      return ArrayType::get(getElementType(), getRank(), isConst);
    }
  }];
}

def Ks_GridType : Ks_Type<"Grid", "grid"> {
  let summary = "The extents of a launch";
  let description = [{
    The grid of a launch: the number of threads along each of its three
    dimensions (1 for the dimensions a 1-D or 2-D launch does not use). The
    CPU lowering passes it to the launcher of a kernel, which runs every
    thread of the grid; `ks.grid_extent` reads one extent.

    ```mlir
    func.func @launch_k(%dim: !ks.grid, %x: !ks.array<f32>)
    ```
  }];
}

#endif // KSC_DIALECT_KS_IR_KSTYPES_TD
