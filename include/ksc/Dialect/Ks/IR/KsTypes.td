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

    The element type is one of the scalar types of the kernel language,
    `f32`, `f64`, `i1`, `i32`, `ui32` or `i64`, a vector or matrix
    (`vector<3xf32>`, `vector<3x3xf64>`), or a `!ks.struct`. `ui32` is `uint32_t`: the
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

def Ks_StructType : Ks_Type<"Struct", "struct"> {
  let summary = "A struct of the kernel language: named fields of value types";
  let description = [{
    A `!ks.struct` is a struct declared in a `.kdsl` file: a value made of
    named fields, like the source's `struct Particle { vec3 pos; float mass;
    };`. Its parameters are the struct's name and its fields in declaration
    order, each a name and a type. A field type is one an array element may
    have: `f32`, `f64`, `i1`, `i32`, `ui32`, `i64`, a vector or matrix, or
    another struct (nested structs). As in `!ks.array`, a `ui32` field is a
    `uint32_t` whose value is read and written as a signless `i32` (the
    field's value type). Structs are values: `ks.struct_make` builds one,
    `ks.struct_extract` reads a field, `ks.struct_insert` returns a copy with
    one field replaced. Emitted code declares the struct with the source's
    name and field names, laid out as C++ lays out the source's struct.

    A field name that is not a plain identifier (or that reads as an integer
    type, such as `i32`) is printed quoted.

    ```mlir
    !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
    !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32>
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$name,
    ArrayRefParameter<"::mlir::StringAttr", "field names">:$fieldNames,
    ArrayRefParameter<"::mlir::Type", "field types">:$fieldTypes
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumFields() const { return getFieldTypes().size(); }
    /// The type of the values `ks.struct_extract` reads from field `index`
    /// and `ks.struct_insert` and `ks.struct_make` write into it: the field
    /// type, signless (`i32` for `ui32`).
    ::mlir::Type getFieldValueType(unsigned index) const;
    /// The index of the field called `name`, if there is one.
    std::optional<unsigned> getFieldIndex(::llvm::StringRef name) const;
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

def Ks_TapeType : Ks_Type<"Tape", "tape"> {
  let summary = "A thread's tape in memory its launch provides";
  let description = [{
    The tape of one thread of a GPU launch (`ks.tape_create`): memory for
    the values an adjoint kernel's forward sweep saves for its reverse
    sweep. On the CPU the tape is the running OS thread's and no value
    names it; the CUDA lowering gives each thread function that uses a tape
    a `!ks.tape` argument, which its `ks.tape_push` and `ks.tape_pop`
    operations name.

    ```mlir
    %tape = ks.tape_create {capacity = 4096 : i64}
    ks.tape_push %p to %tape : f32
    ```
  }];
}

#endif // KSC_DIALECT_KS_IR_KSTYPES_TD
