//===- KsDerivatives.cpp - Derivative rules of the ks operations --------===//
//
// Part of ksc. The DerivativeOpInterface methods (KsInterfaces.td) of the
// ks operations with float results: linear algebra, quaternions, randf.
// Each operation's reverse rule (buildAdjoint: the adjoints of the
// operands from the adjoint dy of the result) is next to its forward rule
// (buildTangent: the tangent of the result from the operands' tangents
// dx_i; null for a zero tangent). Bilinear operations (dot, cross, outer,
// matmul, quat_mul) have the tangent f(dx_1, x_2) + f(x_1, dx_2).
//
//===----------------------------------------------------------------------===//

#include "RuleMath.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace ksc::ks;
using ad::Math;
using ad::RuleContext;
using ad::TangentContext;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The adjoint of the result; null when it has none.
static Value resultAdjoint(const RuleContext &ctx) {
  return ctx.resultAdjoints.empty() ? Value() : ctx.resultAdjoints[0];
}

/// The transpose of a matrix.
static Value transpose(OpBuilder &b, Location loc, Value matrix) {
  return vector::TransposeOp::create(b, loc, matrix, ArrayRef<int64_t>{1, 0});
}

/// `scalar` in every component of a value of `type`.
static Value broadcastTo(OpBuilder &b, Location loc, Value scalar, Type type) {
  return vector::BroadcastOp::create(b, loc, type, scalar);
}

/// The tangent f(dx1, x2) + f(x1, dx2) of an operation f linear in each of
/// its two operands.
static LogicalResult bilinearTangent(TangentContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  ArrayRef<Value> dx = ctx.operandTangents;
  ValueRange x = ctx.operands;
  Math m{b, loc, ctx.results[0].getType()};
  Value &dy = ctx.resultTangents[0];
  // dot(x, x): 2 dot(dx, x), one product.
  if (isa<DotOp>(ctx.op) && x[0] == x[1]) {
    Value once = ad::recreate(b, loc, ctx.op, {dx[0], x[1]});
    dy = m.add(once, once);
    return success();
  }
  Value first = dx[0] ? ad::recreate(b, loc, ctx.op, {dx[0], x[1]}) : Value();
  Value second = dx[1] ? ad::recreate(b, loc, ctx.op, {x[0], dx[1]}) : Value();
  dy = ad::sumOf(m, first, second);
  return success();
}

/// A product reads each factor for the other's adjoint.
static bool productReadsOperand(Operation *op, unsigned index,
                                llvm::function_ref<bool(Value)> isActive) {
  return op->getNumOperands() == 2 && isActive(op->getOperand(1 - index));
}

//===----------------------------------------------------------------------===//
// Vector products
//===----------------------------------------------------------------------===//

LogicalResult DotOp::buildAdjoint(RuleContext &ctx) {
  Type type = ctx.operands[0].getType();
  Value spread = broadcastTo(ctx.b, ctx.loc, resultAdjoint(ctx), type);
  Math v{ctx.b, ctx.loc, type};
  ctx.operandAdjoints[0] = v.mul(spread, ctx.operands[1]);
  ctx.operandAdjoints[1] = v.mul(spread, ctx.operands[0]);
  return success();
}
LogicalResult DotOp::buildTangent(TangentContext &ctx) {
  return bilinearTangent(ctx);
}
bool DotOp::adjointReadsOperand(unsigned index,
                                llvm::function_ref<bool(Value)> isActive) {
  return productReadsOperand(*this, index, isActive);
}

//===----------------------------------------------------------------------===//
// Length and normalize: a zero derivative at the zero vector
//===----------------------------------------------------------------------===//

/// 1 / l where l > 0, else 0 (l zero or NaN): the factor of the
/// derivatives of length and normalize, which have none at the zero
/// vector. The division is by 1 there, so that no 0 / 0 reaches a
/// derivative of the division itself (forward-over-reverse).
static Value inverseOrZero(Math &s, Value length) {
  Value positive = s.cmp(Math::Pred::OGT, length, s.c(0));
  Value safe = s.select(positive, length, s.c(1));
  Value zero = s.c(0);
  Value inverse = s.div(s.c(1), safe);
  return s.select(positive, inverse, zero);
}

LogicalResult LengthOp::buildAdjoint(RuleContext &ctx) {
  // l = |v|: dv = v (dl / l).
  Type type = ctx.operands[0].getType();
  Math s{ctx.b, ctx.loc, ctx.results[0].getType()};
  Value factor = s.mul(resultAdjoint(ctx), inverseOrZero(s, ctx.results[0]));
  Math v{ctx.b, ctx.loc, type};
  ctx.operandAdjoints[0] =
      v.mul(ctx.operands[0], broadcastTo(ctx.b, ctx.loc, factor, type));
  return success();
}
LogicalResult LengthOp::buildTangent(TangentContext &ctx) {
  // dl = dot(v, dv) / l.
  Math s{ctx.b, ctx.loc, ctx.results[0].getType()};
  Value along =
      DotOp::create(ctx.b, ctx.loc, ctx.operands[0], ctx.operandTangents[0]);
  ctx.resultTangents[0] = s.mul(along, inverseOrZero(s, ctx.results[0]));
  return success();
}
bool LengthOp::adjointUsesResult() { return true; }

/// J w for the Jacobian J = (I - n n^T) / l of n = normalize(v), l = |v|
/// (of a quaternion's too: q (1 / l) has the same); zero where l is not
/// positive. J is symmetric: it is both the reverse and the forward rule.
static Value normalizeDerivative(OpBuilder &b, Location loc, Value v, Value w) {
  auto type = cast<VectorType>(v.getType());
  Math s{b, loc, type.getElementType()};
  Math m{b, loc, type};
  Value inverse =
      broadcastTo(b, loc, inverseOrZero(s, LengthOp::create(b, loc, v)), type);
  Value n = m.mul(v, inverse);
  Value along = broadcastTo(b, loc, DotOp::create(b, loc, n, w), type);
  return m.mul(m.sub(w, m.mul(n, along)), inverse);
}

LogicalResult NormalizeOp::buildAdjoint(RuleContext &ctx) {
  ctx.operandAdjoints[0] =
      normalizeDerivative(ctx.b, ctx.loc, ctx.operands[0], resultAdjoint(ctx));
  return success();
}
LogicalResult NormalizeOp::buildTangent(TangentContext &ctx) {
  ctx.resultTangents[0] = normalizeDerivative(ctx.b, ctx.loc, ctx.operands[0],
                                              ctx.operandTangents[0]);
  return success();
}

LogicalResult CrossOp::buildAdjoint(RuleContext &ctx) {
  Value dy = resultAdjoint(ctx);
  ctx.operandAdjoints[0] = CrossOp::create(ctx.b, ctx.loc, ctx.operands[1], dy);
  ctx.operandAdjoints[1] = CrossOp::create(ctx.b, ctx.loc, dy, ctx.operands[0]);
  return success();
}
LogicalResult CrossOp::buildTangent(TangentContext &ctx) {
  return bilinearTangent(ctx);
}
bool CrossOp::adjointReadsOperand(unsigned index,
                                  llvm::function_ref<bool(Value)> isActive) {
  return productReadsOperand(*this, index, isActive);
}

LogicalResult OuterOp::buildAdjoint(RuleContext &ctx) {
  // y = a b^T: da = dy b, db = dy^T a (= a^T dy, a row times dy).
  Value dy = resultAdjoint(ctx);
  Type vec = ctx.operands[0].getType();
  ctx.operandAdjoints[0] =
      MatmulOp::create(ctx.b, ctx.loc, vec, dy, ctx.operands[1]);
  ctx.operandAdjoints[1] =
      MatmulOp::create(ctx.b, ctx.loc, vec, ctx.operands[0], dy);
  return success();
}
LogicalResult OuterOp::buildTangent(TangentContext &ctx) {
  return bilinearTangent(ctx);
}
bool OuterOp::adjointReadsOperand(unsigned index,
                                  llvm::function_ref<bool(Value)> isActive) {
  return productReadsOperand(*this, index, isActive);
}

//===----------------------------------------------------------------------===//
// Matrices
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildAdjoint(RuleContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value dy = resultAdjoint(ctx);
  auto &out = ctx.operandAdjoints;
  Value lhs = ctx.operands[0], rhs = ctx.operands[1];
  auto lhsType = cast<VectorType>(lhs.getType());
  auto rhsType = cast<VectorType>(rhs.getType());
  if (lhsType.getRank() == 2 && rhsType.getRank() == 2) {
    // C = A B: dA = dC B^T, dB = A^T dC.
    out[0] = MatmulOp::create(b, loc, lhsType, dy, transpose(b, loc, rhs));
    out[1] = MatmulOp::create(b, loc, rhsType, transpose(b, loc, lhs), dy);
  } else if (lhsType.getRank() == 2) {
    // u = M v: dM = outer(du, v), dv = du M (a row times M).
    out[0] = OuterOp::create(b, loc, lhsType, dy, rhs);
    out[1] = MatmulOp::create(b, loc, rhsType, dy, lhs);
  } else {
    // u = v M: dv = M du, dM = outer(v, du).
    out[0] = MatmulOp::create(b, loc, lhsType, rhs, dy);
    out[1] = OuterOp::create(b, loc, rhsType, lhs, dy);
  }
  return success();
}
LogicalResult MatmulOp::buildTangent(TangentContext &ctx) {
  return bilinearTangent(ctx);
}
bool MatmulOp::adjointReadsOperand(unsigned index,
                                   llvm::function_ref<bool(Value)> isActive) {
  return productReadsOperand(*this, index, isActive);
}

LogicalResult DeterminantOp::buildAdjoint(RuleContext &ctx) {
  // d det(A) / dA = det(A) A^-T.
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value dy = resultAdjoint(ctx);
  Math m{b, loc, dy.getType()};
  Value matrix = ctx.operands[0];
  Type type = matrix.getType();
  Value scale = broadcastTo(b, loc, m.mul(dy, ctx.results[0]), type);
  Math mm{b, loc, type};
  ctx.operandAdjoints[0] = mm.mul(
      scale, transpose(b, loc, InverseOp::create(b, loc, matrix)));
  return success();
}
LogicalResult DeterminantOp::buildTangent(TangentContext &ctx) {
  // d det(A) = det(A) trace(A^-1 dA).
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value x = ctx.operands[0];
  Math m{b, loc, ctx.results[0].getType()};
  auto matrix = cast<VectorType>(x.getType());
  Value product = MatmulOp::create(b, loc, matrix, InverseOp::create(b, loc, x),
                                   ctx.operandTangents[0]);
  Value trace;
  for (int64_t i = 0; i < matrix.getDimSize(0); ++i)
    trace = ad::sumOf(m, trace,
                      vector::ExtractOp::create(b, loc, product,
                                                ArrayRef<int64_t>{i, i}));
  ctx.resultTangents[0] = m.mul(ctx.results[0], trace);
  return success();
}
bool DeterminantOp::adjointUsesResult() { return true; }

LogicalResult InverseOp::buildAdjoint(RuleContext &ctx) {
  // Y = A^-1: dA = -Y^T dY Y^T.
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value y = ctx.results[0];
  Type type = y.getType();
  Value yt = transpose(b, loc, y);
  Value product = MatmulOp::create(
      b, loc, type, MatmulOp::create(b, loc, type, yt, resultAdjoint(ctx)),
      yt);
  ctx.operandAdjoints[0] = arith::NegFOp::create(b, loc, product);
  return success();
}
LogicalResult InverseOp::buildTangent(TangentContext &ctx) {
  // Y = A^-1: dY = -Y dA Y.
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value y = ctx.results[0];
  Type type = y.getType();
  Math m{b, loc, type};
  ctx.resultTangents[0] = m.neg(MatmulOp::create(
      b, loc, type, MatmulOp::create(b, loc, type, y, ctx.operandTangents[0]),
      y));
  return success();
}
bool InverseOp::adjointUsesResult() { return true; }
// The rule is written with the result only.
bool InverseOp::adjointReadsOperand(unsigned,
                                    llvm::function_ref<bool(Value)>) {
  return false;
}

//===----------------------------------------------------------------------===//
// Quaternions
//===----------------------------------------------------------------------===//

/// The conjugate (-x, -y, -z, w) of a quaternion.
static Value conjugate(OpBuilder &b, Location loc, Value q) {
  auto type = cast<VectorType>(q.getType());
  Type element = type.getElementType();
  SmallVector<Attribute> signs(3, b.getFloatAttr(element, -1));
  signs.push_back(b.getFloatAttr(element, 1));
  Value flip =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, signs));
  return arith::MulFOp::create(b, loc, q, flip);
}

LogicalResult QuatMulOp::buildAdjoint(RuleContext &ctx) {
  // <p q, r> = <p, r conj(q)> = <q, conj(p) r>.
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value dy = resultAdjoint(ctx);
  Value a = ctx.operands[0], r = ctx.operands[1];
  ctx.operandAdjoints[0] = QuatMulOp::create(b, loc, dy, conjugate(b, loc, r));
  ctx.operandAdjoints[1] = QuatMulOp::create(b, loc, conjugate(b, loc, a), dy);
  return success();
}
LogicalResult QuatMulOp::buildTangent(TangentContext &ctx) {
  return bilinearTangent(ctx);
}

/// The adjoints (dq, dv) of r = quat_rotate(q, v) (sign 1) or of
/// quat_rotate_inv (sign -1), r = v c + u d + sign cross(u, v) 2 w with
/// u = q.xyz, c = 2 w^2 - 1, d = 2 dot(u, v), from the adjoint dr:
///   dv = c dr + 2 dot(u, dr) u + g cross(dr, u),
///   du = d dr + 2 dot(u, dr) v + g cross(v, dr),
///   dw = 4 w dot(v, dr) + 2 sign dot(cross(u, v), dr), with g = 2 sign w.
static std::pair<Value, Value> rotateAdjoint(OpBuilder &b, Location loc,
                                             Value q, Value v, Value dr,
                                             double sign) {
  auto vec3 = cast<VectorType>(v.getType());
  Type element = vec3.getElementType();
  Math s{b, loc, element};
  Math m{b, loc, vec3};
  auto component = [&](Value vec, int64_t i) -> Value {
    return vector::ExtractOp::create(b, loc, vec, i);
  };
  Value w = component(q, 3);
  Value u = vector::FromElementsOp::create(
      b, loc, vec3,
      ValueRange{component(q, 0), component(q, 1), component(q, 2)});
  auto spread = [&](Value scalar) -> Value {
    return vector::BroadcastOp::create(b, loc, vec3, scalar);
  };
  // One operation a statement where a call would take two built ones: C++
  // leaves the order of a call's arguments unspecified.
  Value one = s.c(1);
  Value w2 = s.mul(w, w);
  Value c = s.sub(s.mul(s.c(2), w2), one);
  Value uv = DotOp::create(b, loc, u, v);
  Value d = s.mul(s.c(2), uv);
  Value g = s.mul(s.c(2 * sign), w);
  Value udr = DotOp::create(b, loc, u, dr);
  Value twiceUdr = s.mul(s.c(2), udr);
  Value drCrossU = CrossOp::create(b, loc, dr, u);
  Value gTermV = m.mul(spread(g), drCrossU);
  Value uTermV = m.mul(spread(twiceUdr), u);
  Value dv = m.add(m.add(m.mul(spread(c), dr), uTermV), gTermV);
  Value vCrossDr = CrossOp::create(b, loc, v, dr);
  Value gTermU = m.mul(spread(g), vCrossDr);
  Value vTermU = m.mul(spread(twiceUdr), v);
  Value du = m.add(m.add(m.mul(spread(d), dr), vTermU), gTermU);
  Value uCrossV = CrossOp::create(b, loc, u, v);
  Value tripleDot = DotOp::create(b, loc, uCrossV, dr);
  Value signTerm = s.mul(s.c(2 * sign), tripleDot);
  Value vdr = DotOp::create(b, loc, v, dr);
  Value fourW = s.mul(s.c(4), w);
  Value dw = s.add(s.mul(fourW, vdr), signTerm);
  Value dq = vector::FromElementsOp::create(
      b, loc, q.getType(),
      ValueRange{component(du, 0), component(du, 1), component(du, 2), dw});
  return {dq, dv};
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
  // One operation a statement where a call would take two built ones.
  Value uv = DotOp::create(b, loc, u, v);
  Value d = s.mul(s.c(2), uv);
  Value dc = s.mul(s.mul(s.c(4), w), dw);
  Value duv = DotOp::create(b, loc, du, v);
  Value dd = s.mul(s.c(2), duv);
  Value g = s.mul(s.c(2 * sign), w), dg = s.mul(s.c(2 * sign), dw);
  Value ddTerm = m.mul(u, spread(dd));
  Value dTerm = m.mul(du, spread(d));
  Value terms = m.add(m.add(m.mul(v, spread(dc)), dTerm), ddTerm);
  Value duCrossV = CrossOp::create(b, loc, du, v);
  Value gTerm = m.mul(spread(g), duCrossV);
  Value uCrossV = CrossOp::create(b, loc, u, v);
  Value dgTerm = m.mul(spread(dg), uCrossV);
  return m.add(terms, m.add(dgTerm, gTerm));
}

/// The adjoints of quat_rotate (sign 1) and quat_rotate_inv (sign -1).
static LogicalResult rotateAdjointRule(RuleContext &ctx, double sign) {
  auto [dq, dv] = rotateAdjoint(ctx.b, ctx.loc, ctx.operands[0],
                                ctx.operands[1], resultAdjoint(ctx), sign);
  ctx.operandAdjoints[0] = dq, ctx.operandAdjoints[1] = dv;
  return success();
}

/// The tangent of quat_rotate (sign 1) and quat_rotate_inv (sign -1).
static LogicalResult rotateTangentRule(TangentContext &ctx, double sign) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  ArrayRef<Value> dx = ctx.operandTangents;
  ValueRange x = ctx.operands;
  Math m{b, loc, ctx.results[0].getType()};
  Value byQ = dx[0] ? rotateTangent(b, loc, x[0], x[1], dx[0], sign) : Value();
  Value byV = dx[1] ? ad::recreate(b, loc, ctx.op, {x[0], dx[1]}) : Value();
  ctx.resultTangents[0] = ad::sumOf(m, byQ, byV);
  return success();
}

LogicalResult QuatRotateOp::buildAdjoint(RuleContext &ctx) {
  return rotateAdjointRule(ctx, 1.0);
}
LogicalResult QuatRotateOp::buildTangent(TangentContext &ctx) {
  return rotateTangentRule(ctx, 1.0);
}
LogicalResult QuatRotateInvOp::buildAdjoint(RuleContext &ctx) {
  return rotateAdjointRule(ctx, -1.0);
}
LogicalResult QuatRotateInvOp::buildTangent(TangentContext &ctx) {
  return rotateTangentRule(ctx, -1.0);
}

/// The unit vector e_j of `vec3`.
static Value unitVector(OpBuilder &b, Location loc, VectorType vec3,
                        int64_t j) {
  Type element = vec3.getElementType();
  SmallVector<Attribute> unit(3, b.getFloatAttr(element, 0));
  unit[j] = b.getFloatAttr(element, 1);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec3, unit));
}

// Column j of m = quat_to_matrix(q) is quat_rotate(q, e_j).
LogicalResult QuatToMatrixOp::buildAdjoint(RuleContext &ctx) {
  // The adjoints of q of the three columns add up.
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value q = ctx.operands[0];
  auto quatType = cast<VectorType>(q.getType());
  auto vec3 = VectorType::get({3}, quatType.getElementType());
  Value columns = transpose(b, loc, resultAdjoint(ctx));
  Value sum;
  for (int64_t j = 0; j < 3; ++j) {
    Value e = unitVector(b, loc, vec3, j);
    Value column = vector::ExtractOp::create(b, loc, columns, j);
    Value dq = rotateAdjoint(b, loc, q, e, column, 1.0).first;
    sum = sum ? arith::AddFOp::create(b, loc, sum, dq).getResult() : dq;
  }
  ctx.operandAdjoints[0] = sum;
  return success();
}
LogicalResult QuatToMatrixOp::buildTangent(TangentContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Type type = ctx.results[0].getType();
  auto matrix = cast<VectorType>(type);
  auto vec3 = VectorType::get({3}, matrix.getElementType());
  Value columns[3];
  for (int64_t j = 0; j < 3; ++j)
    columns[j] = rotateTangent(b, loc, ctx.operands[0],
                               unitVector(b, loc, vec3, j),
                               ctx.operandTangents[0], 1);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j)
      elements.push_back(vector::ExtractOp::create(b, loc, columns[j], i));
  ctx.resultTangents[0] =
      vector::FromElementsOp::create(b, loc, type, elements);
  return success();
}

//===----------------------------------------------------------------------===//
// Structs
//===----------------------------------------------------------------------===//

// The derivative of a struct is a struct of the same type whose
// non-differentiable fields (integers, bool) are zero. The operations move
// fields, so their rules move the fields' derivatives; they read no
// primal values.

/// The derivative `d` of an operand, or a zero of its type.
static Value orZero(OpBuilder &b, Location loc, Value d, Value operand) {
  return d ? d : ad::zero(b, loc, operand.getType());
}

LogicalResult StructMakeOp::buildAdjoint(RuleContext &ctx) {
  Value dy = resultAdjoint(ctx);
  for (auto [i, field] : llvm::enumerate(ctx.operands))
    if (ad::isDifferentiable(field.getType()))
      ctx.operandAdjoints[i] = StructExtractOp::create(ctx.b, ctx.loc, dy, i);
  return success();
}
LogicalResult StructMakeOp::buildTangent(TangentContext &ctx) {
  SmallVector<Value> fields;
  for (auto [field, dx] : llvm::zip(ctx.operands, ctx.operandTangents))
    fields.push_back(ad::isDifferentiable(field.getType())
                         ? orZero(ctx.b, ctx.loc, dx, field)
                         : ad::zero(ctx.b, ctx.loc, field.getType()));
  ctx.resultTangents[0] =
      StructMakeOp::create(ctx.b, ctx.loc, getType(), fields);
  return success();
}
bool StructMakeOp::adjointReadsOperand(unsigned, function_ref<bool(Value)>) {
  return false;
}

LogicalResult StructExtractOp::buildAdjoint(RuleContext &ctx) {
  ctx.operandAdjoints[0] = StructInsertOp::create(
      ctx.b, ctx.loc, resultAdjoint(ctx),
      ad::zero(ctx.b, ctx.loc, getInput().getType()), getIndex());
  return success();
}
LogicalResult StructExtractOp::buildTangent(TangentContext &ctx) {
  if (ad::isDifferentiable(getType()))
    ctx.resultTangents[0] = StructExtractOp::create(
        ctx.b, ctx.loc, ctx.operandTangents[0], getIndex());
  return success();
}
bool StructExtractOp::adjointReadsOperand(unsigned,
                                          function_ref<bool(Value)>) {
  return false;
}

LogicalResult StructInsertOp::buildAdjoint(RuleContext &ctx) {
  Value dy = resultAdjoint(ctx);
  if (ad::isDifferentiable(getValue().getType()))
    ctx.operandAdjoints[0] =
        StructExtractOp::create(ctx.b, ctx.loc, dy, getIndex());
  // The replaced field has no influence on the result (an integer field's
  // derivative means nothing: it is left as it is).
  ctx.operandAdjoints[1] = dy;
  if (ad::isDifferentiable(getValue().getType()))
    ctx.operandAdjoints[1] = StructInsertOp::create(
        ctx.b, ctx.loc, ad::zero(ctx.b, ctx.loc, getValue().getType()), dy,
        getIndex());
  return success();
}
LogicalResult StructInsertOp::buildTangent(TangentContext &ctx) {
  Value input = orZero(ctx.b, ctx.loc, ctx.operandTangents[1], ctx.operands[1]);
  ctx.resultTangents[0] = input;
  if (ad::isDifferentiable(getValue().getType()))
    ctx.resultTangents[0] = StructInsertOp::create(
        ctx.b, ctx.loc,
        orZero(ctx.b, ctx.loc, ctx.operandTangents[0], ctx.operands[0]), input,
        getIndex());
  return success();
}
bool StructInsertOp::adjointReadsOperand(unsigned,
                                         function_ref<bool(Value)>) {
  return false;
}

//===----------------------------------------------------------------------===//
// Calls of functions with custom derivative rules
//===----------------------------------------------------------------------===//

// The differentiation passes keep the calls of a device function that has
// custom rules (KSC_ADJOINT, KSC_TANGENT: ks.custom_adjoint and
// ks.custom_tangent on the callee) instead of inlining them; these rules
// call the user's rules. The adjoint rule g of f(x_1..x_n) is called as
// g(x_1..x_n, dy, 0...) with a zero for the adjoint of each operand with a
// derivative, which it adds to and returns (in-out parameters).

/// The rule `attr` names on the callee of `call`, if any.
static FuncOp customRule(CallOp call, StringRef attr) {
  auto callee =
      SymbolTable::lookupNearestSymbolFrom<FuncOp>(call, call.getCalleeAttr());
  auto rule = callee ? callee->getAttrOfType<FlatSymbolRefAttr>(attr)
                     : FlatSymbolRefAttr();
  return rule ? SymbolTable::lookupNearestSymbolFrom<FuncOp>(call, rule)
              : FuncOp();
}

/// The adjoints of `operands` (null for those without a derivative) that the
/// adjoint rule `rule` gives for the result adjoint `dy`.
static SmallVector<Value> callAdjointRule(OpBuilder &b, Location loc,
                                          FuncOp rule, ValueRange operands,
                                          Value dy) {
  SmallVector<Value> args(operands.begin(), operands.end());
  args.push_back(dy);
  for (Value x : operands)
    if (ad::isDifferentiable(x.getType()))
      args.push_back(ad::zero(b, loc, x.getType()));
  auto call = CallOp::create(b, loc, rule, args);
  SmallVector<Value> adjoints(operands.size());
  unsigned next = 0;
  for (auto [i, x] : llvm::enumerate(operands))
    if (ad::isDifferentiable(x.getType()))
      adjoints[i] = call.getResult(next++);
  return adjoints;
}

/// The float components of a value of differentiable type: a scalar, the
/// elements of a vector or matrix, the components of a struct's fields
/// with derivatives, in order.
static void componentTypes(Type type, SmallVectorImpl<Type> &types) {
  if (auto structType = dyn_cast<StructType>(type)) {
    for (Type field : structType.getFieldTypes())
      if (ad::isDifferentiable(field))
        componentTypes(getSignless(field), types);
    return;
  }
  if (auto vector = dyn_cast<VectorType>(type)) {
    types.append(vector.getNumElements(), vector.getElementType());
    return;
  }
  types.push_back(type);
}

static void components(OpBuilder &b, Location loc, Value value,
                       SmallVectorImpl<Value> &out) {
  Type type = value.getType();
  if (auto structType = dyn_cast<StructType>(type)) {
    for (unsigned i = 0, e = structType.getNumFields(); i < e; ++i)
      if (ad::isDifferentiable(structType.getFieldTypes()[i]))
        components(b, loc, StructExtractOp::create(b, loc, value, i), out);
    return;
  }
  auto vector = dyn_cast<VectorType>(type);
  if (!vector) {
    out.push_back(value);
    return;
  }
  SmallVector<int64_t> position(vector.getRank(), 0);
  for (int64_t flat = 0; flat < vector.getNumElements(); ++flat) {
    for (int64_t d = vector.getRank() - 1, rest = flat; d >= 0; --d) {
      position[d] = rest % vector.getDimSize(d);
      rest /= vector.getDimSize(d);
    }
    out.push_back(vector::ExtractOp::create(b, loc, value, position));
  }
}

/// A value of `type` made of the components `parts` (consumed from the
/// front); a struct's fields without derivatives are zero.
static Value fromComponents(OpBuilder &b, Location loc, Type type,
                            ArrayRef<Value> &parts) {
  if (auto structType = dyn_cast<StructType>(type)) {
    SmallVector<Value> fields;
    for (unsigned i = 0, e = structType.getNumFields(); i < e; ++i) {
      Type field = structType.getFieldValueType(i);
      fields.push_back(ad::isDifferentiable(field)
                           ? fromComponents(b, loc, field, parts)
                           : ad::zero(b, loc, field));
    }
    return StructMakeOp::create(b, loc, structType, fields);
  }
  if (auto vector = dyn_cast<VectorType>(type)) {
    ArrayRef<Value> elements = parts.take_front(vector.getNumElements());
    parts = parts.drop_front(vector.getNumElements());
    return vector::FromElementsOp::create(b, loc, vector, elements);
  }
  Value scalar = parts.front();
  parts = parts.drop_front();
  return scalar;
}

LogicalResult CallOp::buildAdjoint(RuleContext &ctx) {
  FuncOp rule = customRule(*this, kCustomAdjointAttr);
  if (!rule || getNumResults() != 1)
    return failure();
  SmallVector<Value> adjoints = callAdjointRule(ctx.b, ctx.loc, rule,
                                                ctx.operands,
                                                resultAdjoint(ctx));
  for (auto [i, adj] : llvm::enumerate(adjoints))
    ctx.operandAdjoints[i] = adj;
  return success();
}

// With a tangent rule h: h(x_1..x_n, dx...) with the tangent (or a zero)
// of each operand with a derivative. Without one, from the adjoint rule:
// component k of J dx is sum_i <g_i(e_k), dx_i>, where g_i(e_k) is the
// adjoint of operand i for the k-th unit vector as the result's adjoint:
// one call of the adjoint rule per component of the result.
LogicalResult CallOp::buildTangent(TangentContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  if (getNumResults() != 1)
    return failure();
  if (FuncOp rule = customRule(*this, kCustomTangentAttr)) {
    SmallVector<Value> args(ctx.operands.begin(), ctx.operands.end());
    for (auto [x, dx] : llvm::zip(ctx.operands, ctx.operandTangents))
      if (ad::isDifferentiable(x.getType()))
        args.push_back(dx ? dx : ad::zero(b, loc, x.getType()));
    ctx.resultTangents[0] = CallOp::create(b, loc, rule, args).getResult(0);
    return success();
  }
  FuncOp adjoint = customRule(*this, kCustomAdjointAttr);
  if (!adjoint)
    return failure();
  Type type = getResult(0).getType();
  SmallVector<Type> types;
  componentTypes(type, types);
  SmallVector<Value> zeros = llvm::map_to_vector(
      types, [&](Type t) { return ad::zero(b, loc, t); });
  SmallVector<Value> tangent;
  for (auto [k, componentType] : llvm::enumerate(types)) {
    SmallVector<Value> unit = zeros;
    unit[k] = arith::ConstantOp::create(b, loc, b.getFloatAttr(componentType, 1));
    ArrayRef<Value> parts = unit;
    SmallVector<Value> grads = callAdjointRule(
        b, loc, adjoint, ctx.operands, fromComponents(b, loc, type, parts));
    Math m{b, loc, componentType};
    Value sum;
    for (auto [grad, dx] : llvm::zip(grads, ctx.operandTangents)) {
      if (!grad || !dx)
        continue;
      SmallVector<Value> g, d;
      components(b, loc, grad, g);
      components(b, loc, dx, d);
      for (auto [gi, di] : llvm::zip(g, d)) {
        // Components of another precision than the result's.
        Value product = m.mul(gi, di);
        if (product.getType() != componentType)
          product = product.getType().getIntOrFloatBitWidth() <
                            componentType.getIntOrFloatBitWidth()
                        ? arith::ExtFOp::create(b, loc, componentType, product)
                              .getResult()
                        : arith::TruncFOp::create(b, loc, componentType,
                                                  product)
                              .getResult();
        sum = ad::sumOf(m, sum, product);
      }
    }
    tangent.push_back(sum ? sum : zeros[k]);
  }
  ArrayRef<Value> parts = tangent;
  ctx.resultTangents[0] = fromComponents(b, loc, type, parts);
  return success();
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

// randf(s, lo, hi) = (hi - lo) * r + lo with r = randf(s), the same draw.
// Pointwise in the bounds: the tangent is the interface's default.
LogicalResult RandFOp::buildAdjoint(RuleContext &ctx) {
  Value dy = resultAdjoint(ctx);
  if (!dy || ctx.operands.size() != 3)
    return success();
  Math m{ctx.b, ctx.loc, getValue().getType()};
  Value r = RandFOp::create(ctx.b, ctx.loc, dy.getType(), ctx.b.getI32Type(),
                            ctx.operands[0], ValueRange())
                .getValue();
  ctx.operandAdjoints[1] = m.mul(dy, m.sub(m.c(1), r));
  ctx.operandAdjoints[2] = m.mul(dy, r);
  return success();
}
