//===- KsStructOps.td - Struct operations of the ks dialect -*- tablegen -*-===//
//
// Part of ksc. Building structs and reading and replacing their fields.
// The three operations are linear: their derivative rules
// (KsDerivatives.cpp) move the derivatives of the fields as the operations
// move the fields, and a struct's derivative is a struct of the same type.
// Structs are values (SSA), like vectors: replacing a field returns a new
// struct, and the frontend stores it back into the variable or array
// element that held the old one.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSSTRUCTOPS_TD
#define KSC_DIALECT_KS_IR_KSSTRUCTOPS_TD

def Ks_StructMakeOp : Ks_Op<"struct_make", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<["adjointReadsOperand"]>]> {
  let summary = "Builds a struct from the values of its fields";
  let description = [{
    A struct whose fields hold `fields`, in declaration order: one operand
    per field, of the field's value type (`i32` for a `ui32` field). The
    source's aggregate initialization (`Particle p = {pos, 1.0f};`) and
    value initialization (`Particle p{};`, with zero operands) become this
    operation.

    ```mlir
    %p = ks.struct_make %pos, %mass : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$fields);
  let results = (outs Ks_StructType:$result);
  // The operand types are the field value types of the result.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Ks_StructExtractOp : Ks_Op<"struct_extract", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<["adjointReadsOperand"]>]> {
  let summary = "Reads a field of a struct";
  let description = [{
    The value of field `index` (0 for the first field declared) of `input`,
    of the field's value type: `p.mass` in the source.

    ```mlir
    %m = ks.struct_extract %p[1] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> -> f32
    ```
  }];
  let arguments = (ins Ks_StructType:$input, I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $input `[` $index `]` attr-dict `:` qualified(type($input)) `->` type($result)
  }];
  let builders = [
    // Field `index` of `input`, of the field's value type.
    OpBuilder<(ins "::mlir::Value":$input, "int64_t":$index), [{
      auto type = ::llvm::cast<StructType>(input.getType());
      build($_builder, $_state, type.getFieldValueType(index), input, index);
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Ks_StructInsertOp : Ks_Op<"struct_insert", [Pure,
    Ks_DerivativeRules<["adjointReadsOperand"]>,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "A copy of a struct with one field replaced";
  let description = [{
    `input` with field `index` replaced by `value`, which has the field's
    value type. Assigning a field in the source (`p.mass = 2.0f;`) is this
    operation followed by storing its result where `p` lives.

    ```mlir
    %q = ks.struct_insert %m, %p[1] : f32 into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
    ```
  }];
  let arguments = (ins AnyType:$value, Ks_StructType:$input, I64Attr:$index);
  let results = (outs Ks_StructType:$result);
  let assemblyFormat = [{
    $value `,` $input `[` $index `]` attr-dict `:` type($value) `into` qualified(type($input))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // KSC_DIALECT_KS_IR_KSSTRUCTOPS_TD
