//===- KsInterfaces.td - Interfaces of the ks dialect ------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSINTERFACES_TD
#define KSC_DIALECT_KS_IR_KSINTERFACES_TD

include "mlir/IR/OpBase.td"

def Ks_DerivativeOpInterface : OpInterface<"DerivativeOpInterface"> {
  let cppNamespace = "::ksc::ks";
  let description = [{
    What the differentiation passes (`ks-reverse-ad`, `ks-forward-ad`) know
    of a pure operation with float results: its reverse-mode rule (the
    adjoints of the operands from those of the results), its forward-mode
    rule (the tangents of the results from those of the operands), and
    which of its values the reverse rule reads, so that the adjoint kernel
    keeps exactly those.

    The ks operations implement it in ODS (`KsDerivatives.cpp`); the
    operations of `arith`, `math` and `vector` that kernels use get it as
    external models (`ArithDerivatives.cpp`, `VectorDerivatives.cpp`),
    attached by `ksc::ks::registerDerivativeExternalModels`, which the
    passes add to their dependent dialects. An operation without it is not
    differentiable: the passes refuse it with a located error.

    For example, the reverse rule of `ks.dot` turns

    ```mlir
    %d = ks.dot %a, %b : vector<3xf32>
    ```

    and the adjoint `%dd` of `%d` into the adjoints of `%a` and `%b`:

    ```mlir
    %s = vector.broadcast %dd : f32 to vector<3xf32>
    %da = arith.mulf %s, %b : vector<3xf32>
    %db = arith.mulf %s, %a : vector<3xf32>
    ```
  }];
  let methods = [
    InterfaceMethod<[{
        The reverse-mode rule: sets `ctx.operandAdjoints[i]` (sized to the
        operands, all null, by the caller) to what operand i's adjoint gets
        from `ctx.resultAdjoints`, or leaves it null for nothing. Builds at
        `ctx.b`; fails, without a diagnostic, where the rule does not apply.
      }], "::mlir::LogicalResult", "buildAdjoint",
      (ins "::ksc::ks::ad::RuleContext &":$ctx)>,
    InterfaceMethod<[{
        The forward-mode rule: sets `ctx.resultTangents[i]` (sized to the
        results, all null, by the caller) to the tangent of result i given
        `ctx.operandTangents` (some non-null), or leaves it null for a zero.
        By default the operation is pointwise: its Jacobian is diagonal, so
        the tangent is the sum, over the operands with a tangent, of the
        reverse rule applied to that tangent.
      }], "::mlir::LogicalResult", "buildTangent",
      (ins "::ksc::ks::ad::TangentContext &":$ctx), "",
      [{ return ::ksc::ks::ad::pointwiseTangent(ctx); }]>,
    InterfaceMethod<[{
        Whether the reverse rule reads the result (exp's does: dy * y), so
        that the reverse sweep needs it.
      }], "bool", "adjointUsesResult", (ins), "", [{ return false; }]>,
    InterfaceMethod<[{
        Whether the reverse rule reads operand `index`, given which values
        are active (mulf reads x2 only for x1's adjoint; addf reads
        neither).
      }], "bool", "adjointReadsOperand",
      (ins "unsigned":$index,
           "::llvm::function_ref<bool(::mlir::Value)>":$isActive), "",
      [{ return true; }]>,
    InterfaceMethod<[{
        Whether every derivative of the operation is zero (comparisons,
        rounding): active operands contribute nothing, and neither rule is
        applied.
      }], "bool", "hasZeroDerivative", (ins), "", [{ return false; }]>,
  ];
}

// The ks operations with this trait have their reverse and forward
// derivative rules next to each other in KsDerivatives.cpp; `overridden`
// names the other DerivativeOpInterface methods an operation defines there.
class Ks_DerivativeRules<list<string> overridden = []>
    : DeclareOpInterfaceMethods<Ks_DerivativeOpInterface,
                                ["buildTangent"] # overridden>;

#endif // KSC_DIALECT_KS_IR_KSINTERFACES_TD
