//===- DerivativeOpInterface.cpp - Derivative rules on ops -----------===//
//
// Part of ksc. The DerivativeOpInterface (KsInterfaces.td): its generated
// definitions, its default forward rule, and the registration of the
// external models of other dialects' operations.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/DerivativeOpInterface.h"
#include "RuleMath.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace ksc::ks;

#include "ksc/Dialect/Ks/IR/KsInterfaces.cpp.inc"

bool ad::isDifferentiable(Type type) {
  if (auto structType = dyn_cast<StructType>(type))
    return llvm::any_of(structType.getFieldTypes(),
                        [](Type field) { return isDifferentiable(field); });
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  return type.isF32() || type.isF64();
}

Value ad::zero(OpBuilder &b, Location loc, Type type) {
  if (auto structType = dyn_cast<StructType>(type)) {
    SmallVector<Value> fields;
    for (unsigned i = 0, e = structType.getNumFields(); i < e; ++i)
      fields.push_back(zero(b, loc, structType.getFieldValueType(i)));
    return StructMakeOp::create(b, loc, structType, fields);
  }
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

LogicalResult ad::pointwiseTangent(TangentContext &ctx) {
  auto rules = cast<DerivativeOpInterface>(ctx.op);
  Math m{ctx.b, ctx.loc, ctx.results[0].getType()};
  Value &dy = ctx.resultTangents[0];
  for (auto [i, tangent] : llvm::enumerate(ctx.operandTangents)) {
    if (!tangent)
      continue;
    SmallVector<Value> contributions(ctx.operands.size());
    SmallVector<Value> seed{tangent};
    RuleContext rule{ctx.b,       ctx.loc, ctx.op,       ctx.operands,
                     ctx.results, seed,    contributions};
    if (failed(rules.buildAdjoint(rule)))
      return failure();
    dy = sumOf(m, dy, contributions[i]);
  }
  return success();
}

void ksc::ks::registerDerivativeExternalModels(DialectRegistry &registry) {
  ad::registerArithDerivativeModels(registry);
  ad::registerVectorDerivativeModels(registry);
}
