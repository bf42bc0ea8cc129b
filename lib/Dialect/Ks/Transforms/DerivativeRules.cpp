//===- DerivativeRules.cpp - Finding the rules of an operation ----------===//
//
// Part of ksc. How the differentiation passes apply the derivative rules of
// pure operations: through the DerivativeOpInterface
// (include/ksc/Dialect/Ks/IR/KsInterfaces.td), which the ks operations
// implement (lib/Dialect/Ks/IR/KsDerivatives.cpp) and the arith, math and
// vector operations get as external models (ArithDerivatives.cpp,
// VectorDerivatives.cpp there).
//
//===----------------------------------------------------------------------===//

#include "AD.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

bool ad::isDifferentiable(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  return type.isF32() || type.isF64();
}

Value ad::accumulate(OpBuilder &b, Location loc, Value sum,
                     Value contribution) {
  return arith::AddFOp::create(b, loc, sum, contribution,
                               arith::FastMathFlags::nsz);
}

LogicalResult ad::applyDerivativeRule(RuleContext &ctx) {
  ctx.operandAdjoints.assign(ctx.operands.size(), Value());
  Value dy = ctx.resultAdjoints.empty() ? Value() : ctx.resultAdjoints[0];
  if (ctx.op->getNumResults() == 1 && !dy)
    return success();
  auto rules = dyn_cast<DerivativeOpInterface>(ctx.op);
  return rules ? rules.buildAdjoint(ctx) : failure();
}

LogicalResult ad::applyTangentRule(TangentContext &ctx) {
  ctx.resultTangents.assign(ctx.op->getNumResults(), Value());
  if (llvm::none_of(ctx.operandTangents, [](Value v) { return bool(v); }) ||
      hasZeroDerivative(ctx.op))
    return success();
  auto rules = dyn_cast<DerivativeOpInterface>(ctx.op);
  return rules ? rules.buildTangent(ctx) : failure();
}

bool ad::ruleUsesResult(Operation *op) {
  auto rules = dyn_cast<DerivativeOpInterface>(op);
  return rules && rules.adjointUsesResult();
}

bool ad::ruleReadsOperand(Operation *op, unsigned index,
                          llvm::function_ref<bool(Value)> isActive) {
  auto rules = dyn_cast<DerivativeOpInterface>(op);
  return !rules || rules.adjointReadsOperand(index, isActive);
}

bool ad::hasZeroDerivative(Operation *op) {
  auto rules = dyn_cast<DerivativeOpInterface>(op);
  return rules && rules.hasZeroDerivative();
}
