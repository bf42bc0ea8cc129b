//===- VectorDerivatives.cpp - Derivative rules of vector operations ----===//
//
// Part of ksc. The DerivativeOpInterface (KsInterfaces.td) of the vector
// operations kernels use, as external models. They move components, so
// they are linear: the adjoints move the components back, the tangents
// move as the values do. They read only the positions of components.
//
//===----------------------------------------------------------------------===//

#include "RuleMath.h"
#include "ksc/Dialect/Ks/IR/DerivativeOpInterface.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace ksc::ks;
using ad::RuleContext;
using ad::TangentContext;

/// The sum of the components of `v` (the adjoint of a broadcast scalar).
static Value sumComponents(OpBuilder &b, Location loc, Value v) {
  auto type = cast<VectorType>(v.getType());
  Value sum;
  SmallVector<int64_t> position(type.getRank(), 0);
  int64_t count = type.getNumElements();
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      position[d] = rest % type.getDimSize(d);
      rest /= type.getDimSize(d);
    }
    Value element = vector::ExtractOp::create(b, loc, v, position);
    sum = sum ? arith::AddFOp::create(b, loc, sum, element).getResult()
              : element;
  }
  return sum;
}

/// The positions of a vector.extract or vector.insert whose dynamic
/// positions are `operands` from `firstDynamic` on.
template <typename OpTy>
static SmallVector<OpFoldResult> positions(OpTy op, ValueRange operands,
                                           unsigned firstDynamic) {
  SmallVector<OpFoldResult> position(op.getMixedPosition());
  for (OpFoldResult &p : position)
    if (isa<Value>(p))
      p = operands[firstDynamic++];
  return position;
}

/// Tangent `i` of `ctx`, or a zero of its operand's type.
static Value tangentOrZero(TangentContext &ctx, unsigned i) {
  Value dx = ctx.operandTangents[i];
  return dx ? dx : ad::zero(ctx.b, ctx.loc, ctx.operands[i].getType());
}

namespace {
/// A scalar in every component. (Broadcasts of rows are not produced by
/// the frontend: they have no rule.)
struct BroadcastModel
    : DerivativeOpInterface::ExternalModel<BroadcastModel,
                                           vector::BroadcastOp> {
  LogicalResult buildAdjoint(Operation *, RuleContext &ctx) const {
    if (isa<VectorType>(ctx.operands[0].getType()))
      return failure();
    ctx.operandAdjoints[0] =
        sumComponents(ctx.b, ctx.loc, ctx.resultAdjoints[0]);
    return success();
  }
  LogicalResult buildTangent(Operation *, TangentContext &ctx) const {
    ctx.resultTangents[0] =
        vector::BroadcastOp::create(ctx.b, ctx.loc, ctx.results[0].getType(),
                                    ctx.operandTangents[0]);
    return success();
  }
  bool adjointReadsOperand(Operation *, unsigned,
                           llvm::function_ref<bool(Value)>) const {
    return false;
  }
};

/// A component: its adjoint goes into a zero vector at its position.
struct ExtractModel
    : DerivativeOpInterface::ExternalModel<ExtractModel, vector::ExtractOp> {
  LogicalResult buildAdjoint(Operation *op, RuleContext &ctx) const {
    Value into = ad::zero(ctx.b, ctx.loc, ctx.operands[0].getType());
    ctx.operandAdjoints[0] = vector::InsertOp::create(
        ctx.b, ctx.loc, ctx.resultAdjoints[0], into,
        positions(cast<vector::ExtractOp>(op), ctx.operands, 1));
    return success();
  }
  LogicalResult buildTangent(Operation *op, TangentContext &ctx) const {
    if (!ctx.operandTangents[0])
      return success();
    ctx.resultTangents[0] = vector::ExtractOp::create(
        ctx.b, ctx.loc, ctx.operandTangents[0],
        positions(cast<vector::ExtractOp>(op), ctx.operands, 1));
    return success();
  }
  bool adjointReadsOperand(Operation *, unsigned index,
                           llvm::function_ref<bool(Value)>) const {
    return index >= 1;
  }
};

/// A vector with one component replaced.
struct InsertModel
    : DerivativeOpInterface::ExternalModel<InsertModel, vector::InsertOp> {
  LogicalResult buildAdjoint(Operation *op, RuleContext &ctx) const {
    OpBuilder &b = ctx.b;
    Location loc = ctx.loc;
    Value dy = ctx.resultAdjoints[0];
    SmallVector<OpFoldResult> position =
        positions(cast<vector::InsertOp>(op), ctx.operands, 2);
    ctx.operandAdjoints[0] = vector::ExtractOp::create(b, loc, dy, position);
    ctx.operandAdjoints[1] = vector::InsertOp::create(
        b, loc, ad::zero(b, loc, ctx.operands[0].getType()), dy, position);
    return success();
  }
  LogicalResult buildTangent(Operation *op, TangentContext &ctx) const {
    Value dest = tangentOrZero(ctx, 1);
    Value value = tangentOrZero(ctx, 0);
    ctx.resultTangents[0] = vector::InsertOp::create(
        ctx.b, ctx.loc, value, dest,
        positions(cast<vector::InsertOp>(op), ctx.operands, 2));
    return success();
  }
  bool adjointReadsOperand(Operation *, unsigned index,
                           llvm::function_ref<bool(Value)>) const {
    return index >= 2;
  }
};

/// A vector or matrix of scalars, in row-major order.
struct FromElementsModel
    : DerivativeOpInterface::ExternalModel<FromElementsModel,
                                           vector::FromElementsOp> {
  LogicalResult buildAdjoint(Operation *, RuleContext &ctx) const {
    Value dy = ctx.resultAdjoints[0];
    auto type = cast<VectorType>(dy.getType());
    for (auto [index, element] : llvm::enumerate(ctx.operands)) {
      SmallVector<int64_t> position;
      int64_t rest = index;
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        position.insert(position.begin(), rest % type.getDimSize(d));
        rest /= type.getDimSize(d);
      }
      ctx.operandAdjoints[index] =
          vector::ExtractOp::create(ctx.b, ctx.loc, dy, position);
    }
    return success();
  }
  LogicalResult buildTangent(Operation *, TangentContext &ctx) const {
    SmallVector<Value> elements;
    for (unsigned i = 0; i < ctx.operands.size(); ++i)
      elements.push_back(tangentOrZero(ctx, i));
    ctx.resultTangents[0] = vector::FromElementsOp::create(
        ctx.b, ctx.loc, ctx.results[0].getType(), elements);
    return success();
  }
  bool adjointReadsOperand(Operation *, unsigned,
                           llvm::function_ref<bool(Value)>) const {
    return false;
  }
};

/// The transpose of a matrix.
struct TransposeModel
    : DerivativeOpInterface::ExternalModel<TransposeModel,
                                           vector::TransposeOp> {
  LogicalResult buildAdjoint(Operation *, RuleContext &ctx) const {
    ctx.operandAdjoints[0] = vector::TransposeOp::create(
        ctx.b, ctx.loc, ctx.resultAdjoints[0], ArrayRef<int64_t>{1, 0});
    return success();
  }
  LogicalResult buildTangent(Operation *op, TangentContext &ctx) const {
    ctx.resultTangents[0] = vector::TransposeOp::create(
        ctx.b, ctx.loc, ctx.operandTangents[0],
        cast<vector::TransposeOp>(op).getPermutation());
    return success();
  }
  bool adjointReadsOperand(Operation *, unsigned,
                           llvm::function_ref<bool(Value)>) const {
    return false;
  }
};
} // namespace

void ksc::ks::ad::registerVectorDerivativeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, vector::VectorDialect *) {
    vector::BroadcastOp::attachInterface<BroadcastModel>(*context);
    vector::ExtractOp::attachInterface<ExtractModel>(*context);
    vector::InsertOp::attachInterface<InsertModel>(*context);
    vector::FromElementsOp::attachInterface<FromElementsModel>(*context);
    vector::TransposeOp::attachInterface<TransposeModel>(*context);
  });
}
