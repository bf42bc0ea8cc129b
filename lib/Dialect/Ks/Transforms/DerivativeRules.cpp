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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

Value ad::structField(OpBuilder &b, Location loc, Value value,
                      unsigned index) {
  Value at = value;
  while (auto insert = at.getDefiningOp<StructInsertOp>()) {
    if (insert.getIndex() == index)
      return insert.getValue();
    at = insert.getInput();
  }
  if (auto make = at.getDefiningOp<StructMakeOp>())
    return make.getFields()[index];
  return StructExtractOp::create(b, loc, value, index);
}

bool ad::isKnownZero(Value value) {
  if (auto make = value.getDefiningOp<StructMakeOp>())
    return llvm::all_of(make.getFields(),
                        [](Value field) { return isKnownZero(field); });
  return matchPattern(value, m_AnyZeroFloat()) ||
         matchPattern(value, m_Zero());
}

Value ad::accumulate(OpBuilder &b, Location loc, Value sum,
                     Value contribution) {
  auto structType = dyn_cast<StructType>(sum.getType());
  if (!structType)
    return arith::AddFOp::create(b, loc, sum, contribution,
                                 arith::FastMathFlags::nsz);
  // Field by field, only those the contribution may have non-zero; the
  // other fields are the sum's (integers are zero in derivatives).
  // The sums first, then the inserts: the sum is not read after them.
  SmallVector<std::pair<unsigned, Value>> totals;
  for (unsigned i = 0, e = structType.getNumFields(); i < e; ++i) {
    if (!isDifferentiable(structType.getFieldTypes()[i]))
      continue;
    Value field = structField(b, loc, contribution, i);
    if (!isKnownZero(field))
      totals.emplace_back(
          i, accumulate(b, loc, structField(b, loc, sum, i), field));
  }
  Value result = sum;
  for (auto [i, total] : totals)
    result = StructInsertOp::create(b, loc, total, result, i);
  return result;
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

Value ad::forEachScalarPart(OpBuilder &b, Location loc, Value value,
                            Value final, SmallVectorImpl<int64_t> &path,
                            WinnerFn fn) {
  auto vector = dyn_cast<VectorType>(value.getType());
  if (!vector)
    return fn(b, path, value, final);
  Value result;
  for (int64_t p = 0; p < vector.getDimSize(0); ++p) {
    Value v = vector::ExtractOp::create(b, loc, value, p);
    Value f = vector::ExtractOp::create(b, loc, final, p);
    path.push_back(p);
    Value part = forEachScalarPart(b, loc, v, f, path, fn);
    path.pop_back();
    if (!part)
      continue;
    if (!result)
      result = zero(b, loc, vector);
    result = vector::InsertOp::create(b, loc, part, result, p);
  }
  return result;
}
