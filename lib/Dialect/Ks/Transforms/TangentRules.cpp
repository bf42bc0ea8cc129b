//===- TangentRules.cpp - Tangents of pure operations --------------------===//
//
// Part of ksc. The forward-mode rule of every pure operation with float
// results: given the tangents dx_i of the operands of y = f(x_1, ...), the
// tangent dy = sum_i (df/dx_i) dx_i.
//
// Pointwise operations (arith, math, randf) share the reverse-mode table
// (DerivativeRules.cpp): their Jacobian is diagonal, so the contribution of
// operand i is its reverse rule applied to dx_i in place of the result's
// adjoint. Linear operations (sums, casts, vector shuffles) apply
// themselves to the tangents, bilinear ones (products, dot, cross, matmul,
// quat_mul) are f(dx_1, x_2) + f(x_1, dx_2), and the rest (min/max, select,
// determinant, inverse, rotations by a quaternion) have a formula each.
//
//===----------------------------------------------------------------------===//

#include "AD.h"
#include "RuleMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;
using ad::Math;

/// `a + b` where a null value is a zero.
static Value sumOf(Math &m, Value a, Value b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return m.add(a, b);
}

/// `op` again on `operands`, with its attributes and result types.
static Value recreate(OpBuilder &b, Location loc, Operation *op,
                      ValueRange operands) {
  OperationState state(loc, op->getName());
  state.addOperands(operands);
  state.addTypes(op->getResultTypes());
  state.addAttributes(op->getAttrs());
  return b.create(state)->getResult(0);
}

/// The tangent of r = quat_rotate(q, v) (sign 1) or quat_rotate_inv
/// (sign -1) for a tangent dq of q, v fixed. With u = q.xyz and w = q.w,
/// r = v c + u d + g cross(u, v), c = 2 w^2 - 1, d = 2 dot(u, v), g =
/// 2 sign w; so dr = v dc + du d + u dd + dg cross(u, v) + g cross(du, v).
static Value rotateTangent(OpBuilder &b, Location loc, Value q, Value v,
                           Value dq, double sign) {
  auto vec3 = cast<VectorType>(v.getType());
  Math s{b, loc, vec3.getElementType()};
  Math m{b, loc, vec3};
  auto component = [&](Value vec, int64_t i) -> Value {
    return vector::ExtractOp::create(b, loc, vec, i);
  };
  auto xyz = [&](Value quat) -> Value {
    return vector::FromElementsOp::create(
        b, loc, vec3,
        ValueRange{component(quat, 0), component(quat, 1), component(quat, 2)});
  };
  auto spread = [&](Value scalar) -> Value {
    return vector::BroadcastOp::create(b, loc, vec3, scalar);
  };
  Value u = xyz(q), du = xyz(dq);
  Value w = component(q, 3), dw = component(dq, 3);
  Value d = s.mul(s.c(2), DotOp::create(b, loc, u, v));
  Value dc = s.mul(s.mul(s.c(4), w), dw);
  Value dd = s.mul(s.c(2), DotOp::create(b, loc, du, v));
  Value g = s.mul(s.c(2 * sign), w), dg = s.mul(s.c(2 * sign), dw);
  Value terms = m.add(m.add(m.mul(v, spread(dc)), m.mul(du, spread(d))),
                      m.mul(u, spread(dd)));
  return m.add(terms, m.add(m.mul(spread(dg), CrossOp::create(b, loc, u, v)),
                            m.mul(spread(g), CrossOp::create(b, loc, du, v))));
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

/// The rules of vector and linear-algebra operations.
static LogicalResult applyVectorTangentRule(ad::TangentContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  ArrayRef<Value> dx = ctx.operandTangents;
  ValueRange x = ctx.operands;
  Type type = ctx.results[0].getType();
  Math m{b, loc, type};
  Value &dy = ctx.resultTangents[0];
  auto orZero = [&](unsigned i) {
    return dx[i] ? dx[i] : ad::zero(b, loc, x[i].getType());
  };
  // f(dx1, x2) + f(x1, dx2) for an operation linear in each operand.
  auto bilinear = [&]() {
    // dot(x, x): 2 dot(dx, x), one product.
    if (isa<DotOp>(ctx.op) && x[0] == x[1]) {
      Value once = recreate(b, loc, ctx.op, {dx[0], x[1]});
      dy = m.add(once, once);
      return success();
    }
    Value first = dx[0] ? recreate(b, loc, ctx.op, {dx[0], x[1]}) : Value();
    Value second = dx[1] ? recreate(b, loc, ctx.op, {x[0], dx[1]}) : Value();
    dy = sumOf(m, first, second);
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(ctx.op)
      .Case([&](vector::BroadcastOp op) {
        dy = vector::BroadcastOp::create(b, loc, type, dx[0]);
        return success();
      })
      .Case([&](vector::ExtractOp op) {
        if (!dx[0])
          return success();
        dy = vector::ExtractOp::create(b, loc, dx[0], positions(op, x, 1));
        return success();
      })
      .Case([&](vector::InsertOp op) {
        dy = vector::InsertOp::create(b, loc, orZero(0), orZero(1),
                                      positions(op, x, 2));
        return success();
      })
      .Case([&](vector::FromElementsOp op) {
        SmallVector<Value> elements;
        for (unsigned i = 0; i < x.size(); ++i)
          elements.push_back(orZero(i));
        dy = vector::FromElementsOp::create(b, loc, type, elements);
        return success();
      })
      .Case([&](vector::TransposeOp op) {
        dy = vector::TransposeOp::create(b, loc, dx[0], op.getPermutation());
        return success();
      })
      .Case<DotOp, CrossOp, OuterOp, MatmulOp, QuatMulOp>(
          [&](Operation *) { return bilinear(); })
      .Case([&](DeterminantOp op) {
        // d det(A) = det(A) trace(A^-1 dA).
        auto matrix = cast<VectorType>(x[0].getType());
        Value product = MatmulOp::create(
            b, loc, matrix, InverseOp::create(b, loc, x[0]), dx[0]);
        Value trace;
        for (int64_t i = 0; i < matrix.getDimSize(0); ++i)
          trace = sumOf(m, trace,
                        vector::ExtractOp::create(b, loc, product,
                                                  ArrayRef<int64_t>{i, i}));
        dy = m.mul(ctx.results[0], trace);
        return success();
      })
      .Case([&](InverseOp op) {
        // Y = A^-1: dY = -Y dA Y.
        Value y = ctx.results[0];
        dy = m.neg(MatmulOp::create(
            b, loc, type, MatmulOp::create(b, loc, type, y, dx[0]), y));
        return success();
      })
      .Case<QuatRotateOp, QuatRotateInvOp>([&](Operation *op) {
        double sign = isa<QuatRotateOp>(op) ? 1 : -1;
        Value byQ =
            dx[0] ? rotateTangent(b, loc, x[0], x[1], dx[0], sign) : Value();
        Value byV = dx[1] ? recreate(b, loc, op, {x[0], dx[1]}) : Value();
        dy = sumOf(m, byQ, byV);
        return success();
      })
      .Case([&](QuatToMatrixOp op) {
        // Column j is quat_rotate(q, e_j).
        auto matrix = cast<VectorType>(type);
        auto vec3 = VectorType::get({3}, matrix.getElementType());
        Value columns[3];
        for (int64_t j = 0; j < 3; ++j) {
          SmallVector<Attribute> unit(3,
                                      b.getFloatAttr(vec3.getElementType(), 0));
          unit[j] = b.getFloatAttr(vec3.getElementType(), 1);
          Value e = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(vec3, unit));
          columns[j] = rotateTangent(b, loc, x[0], e, dx[0], 1);
        }
        SmallVector<Value> elements;
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 3; ++j)
            elements.push_back(
                vector::ExtractOp::create(b, loc, columns[j], i));
        dy = vector::FromElementsOp::create(b, loc, type, elements);
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

/// Whether the Jacobian of `op` is diagonal, so that its reverse rule gives
/// its tangent: the operations of the arith and math dialects, randf.
static bool isPointwise(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "arith" || dialect == "math" || isa<RandFOp>(op);
}

LogicalResult ad::applyTangentRule(TangentContext &ctx) {
  Operation *op = ctx.op;
  ctx.resultTangents.assign(op->getNumResults(), Value());
  ArrayRef<Value> dx = ctx.operandTangents;
  if (llvm::none_of(dx, [](Value v) { return bool(v); }) ||
      hasZeroDerivative(op))
    return success();
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  ValueRange x = ctx.operands;
  Math m{b, loc, ctx.results[0].getType()};
  Value &dy = ctx.resultTangents[0];
  auto orZero = [&](unsigned i) {
    return dx[i] ? dx[i] : ad::zero(b, loc, x[i].getType());
  };
  // Linear operations and those with a simpler tangent than the sum of
  // their reverse rules.
  if (isa<arith::AddFOp>(op)) {
    dy = sumOf(m, dx[0], dx[1]);
    return success();
  }
  if (isa<arith::SubFOp>(op)) {
    dy = !dx[1] ? dx[0] : dx[0] ? m.sub(dx[0], dx[1]) : m.neg(dx[1]);
    return success();
  }
  if (isa<arith::MulFOp>(op) && x[0] == x[1]) {
    // x * x: 2 x dx, one product.
    Value once = m.mul(dx[0], x[0]);
    dy = m.add(once, once);
    return success();
  }
  if (isa<arith::DivFOp>(op)) {
    // y = x1 / x2: dy = (dx1 - y dx2) / x2, one division.
    Value numerator = dx[0];
    if (dx[1]) {
      Value scaled = m.mul(ctx.results[0], dx[1]);
      numerator = numerator ? m.sub(numerator, scaled) : m.neg(scaled);
    }
    dy = m.div(numerator, x[1]);
    return success();
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    dy = recreate(b, loc, op, dx[0]);
    return success();
  }
  if (isa<arith::SelectOp>(op)) {
    dy = m.select(x[0], orZero(1), orZero(2));
    return success();
  }
  if (isa<arith::MinNumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MaximumFOp>(op)) {
    // The tangent of the operand returned: the first at a tie, the other
    // when one is NaN.
    bool min = isa<arith::MinNumFOp, arith::MinimumFOp>(op);
    Value first =
        m.orI(m.cmp(min ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OGE,
                    x[0], x[1]),
              m.cmp(arith::CmpFPredicate::UNO, x[1], x[1]));
    dy = m.select(first, orZero(0), orZero(1));
    return success();
  }
  if (isPointwise(op)) {
    // sum_i (df/dx_i) dx_i, each term the reverse rule of operand i on dx_i.
    for (auto [i, tangent] : llvm::enumerate(dx)) {
      if (!tangent)
        continue;
      SmallVector<Value> contributions;
      SmallVector<Value> seed{tangent};
      RuleContext rule{b, loc, op, x, ctx.results, seed, contributions};
      if (failed(applyDerivativeRule(rule)))
        return failure();
      dy = sumOf(m, dy, contributions[i]);
    }
    return success();
  }
  return applyVectorTangentRule(ctx);
}
