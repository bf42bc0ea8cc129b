//===- DerivativeRules.cpp - Adjoints of pure operations ----------------===//
//
// Part of ksc. The reverse-mode rule of every pure operation with float
// results that the frontend produces: given the adjoint `dy` of the result
// y = f(x, ...), the adjoint each operand gets. Pointwise math is a table
// of formulas (one line per operation, for scalars and vectors alike);
// vector and linear-algebra operations have a function each.
//
// Subgradients where a function has none: abs gets the adjoint's sign of x
// with abs'(0) = 1 (as Warp); min and max give the whole adjoint to the
// first argument at a tie, and to the other argument when one is NaN (the
// one they return).
//
//===----------------------------------------------------------------------===//

#include "AD.h"
#include "RuleMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;
using ad::Math;

bool ad::isDifferentiable(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  return type.isF32() || type.isF64();
}

Value ad::zero(OpBuilder &b, Location loc, Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vector,
                               b.getFloatAttr(vector.getElementType(), 0)));
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0));
}

Value ad::accumulate(OpBuilder &b, Location loc, Value sum,
                     Value contribution) {
  return arith::AddFOp::create(b, loc, sum, contribution,
                               arith::FastMathFlags::nsz);
}

static constexpr double kLn2 = 0.69314718055994530942;
static constexpr double kLn10 = 2.30258509299404568402;
static constexpr double k2OverSqrtPi = 1.12837916709551257390;

namespace {
/// dx of y = f(x), from x, y and dy.
using UnaryRule = Value (*)(Math &m, Value x, Value y, Value dy);
/// (dx1, dx2) of y = f(x1, x2).
using BinaryRule = std::pair<Value, Value> (*)(Math &m, Value x1, Value x2,
                                               Value y, Value dy);
/// A rule, and whether it reads the result y (then the reverse sweep needs
/// y: it is kept or recomputed).
struct UnaryEntry {
  llvm::StringLiteral name;
  bool usesResult;
  UnaryRule rule;
};
struct BinaryEntry {
  llvm::StringLiteral name;
  bool usesResult;
  BinaryRule rule;
};
} // namespace

static const UnaryEntry *findUnaryRule(StringRef name) {
  static const UnaryEntry rules[] = {
      {"arith.negf", false, [](Math &m, Value, Value, Value dy) { return m.neg(dy); }},
      {"math.sin", false, [](Math &m, Value x, Value, Value dy) {
         return m.mul(dy, m.cos(x));
       }},
      {"math.cos", false, [](Math &m, Value x, Value, Value dy) {
         return m.neg(m.mul(dy, m.sin(x)));
       }},
      {"math.tan", true, [](Math &m, Value, Value y, Value dy) {
         return m.mul(dy, m.add(m.c(1), m.sq(y)));
       }},
      {"math.asin", false, [](Math &m, Value x, Value, Value dy) {
         return m.div(dy, m.sqrt(m.sub(m.c(1), m.sq(x))));
       }},
      {"math.acos", false, [](Math &m, Value x, Value, Value dy) {
         return m.neg(m.div(dy, m.sqrt(m.sub(m.c(1), m.sq(x)))));
       }},
      {"math.atan", false, [](Math &m, Value x, Value, Value dy) {
         return m.div(dy, m.add(m.c(1), m.sq(x)));
       }},
      {"math.sinh", false, [](Math &m, Value x, Value, Value dy) {
         return m.mul(dy, m.cosh(x));
       }},
      {"math.cosh", false, [](Math &m, Value x, Value, Value dy) {
         return m.mul(dy, m.sinh(x));
       }},
      {"math.tanh", true, [](Math &m, Value, Value y, Value dy) {
         return m.mul(dy, m.sub(m.c(1), m.sq(y)));
       }},
      {"math.exp", true, [](Math &m, Value, Value y, Value dy) {
         return m.mul(dy, y);
       }},
      {"math.exp2", true, [](Math &m, Value, Value y, Value dy) {
         return m.mul(dy, m.mul(y, m.c(kLn2)));
       }},
      {"math.log", false, [](Math &m, Value x, Value, Value dy) {
         return m.div(dy, x);
       }},
      {"math.log2", false, [](Math &m, Value x, Value, Value dy) {
         return m.div(dy, m.mul(x, m.c(kLn2)));
       }},
      {"math.log10", false, [](Math &m, Value x, Value, Value dy) {
         return m.div(dy, m.mul(x, m.c(kLn10)));
       }},
      {"math.sqrt", true, [](Math &m, Value, Value y, Value dy) {
         return m.div(dy, m.mul(m.c(2), y));
       }},
      {"math.cbrt", true, [](Math &m, Value, Value y, Value dy) {
         return m.div(dy, m.mul(m.c(3), m.sq(y)));
       }},
      {"math.erf", false, [](Math &m, Value x, Value, Value dy) {
         return m.mul(dy, m.mul(m.c(k2OverSqrtPi),
                                m.exp(m.neg(m.sq(x)))));
       }},
      {"math.absf", false, [](Math &m, Value x, Value, Value dy) {
         return m.select(m.cmp(arith::CmpFPredicate::OLT, x, m.c(0)),
                         m.neg(dy), dy);
       }},
  };
  for (const auto &entry : rules)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

/// The adjoint of the operand that min/max returns: the first at a tie,
/// the other when one is NaN.
static std::pair<Value, Value> pickRule(Math &m, Value x1, Value x2, Value dy,
                                        arith::CmpFPredicate firstWins) {
  Value first = m.orI(m.cmp(firstWins, x1, x2),
                      m.cmp(arith::CmpFPredicate::UNO, x2, x2));
  Value none = m.c(0);
  return {m.select(first, dy, none), m.select(first, none, dy)};
}

static const BinaryEntry *findBinaryRule(StringRef name) {
  static const BinaryEntry rules[] = {
      {"arith.addf", false, [](Math &, Value, Value, Value, Value dy) {
         return std::pair(dy, dy);
       }},
      {"arith.subf", false, [](Math &m, Value, Value, Value, Value dy) {
         return std::pair(dy, m.neg(dy));
       }},
      {"arith.mulf", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         return std::pair(m.mul(dy, x2), m.mul(dy, x1));
       }},
      {"arith.divf", true, [](Math &m, Value, Value x2, Value y, Value dy) {
         Value d1 = m.div(dy, x2);
         return std::pair(d1, m.neg(m.mul(d1, y)));
       }},
      // fmod: x1 - trunc(x1 / x2) * x2.
      {"arith.remf", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         return std::pair(dy, m.neg(m.mul(dy, m.trunc(m.div(x1, x2)))));
       }},
      {"math.powf", true, [](Math &m, Value x1, Value x2, Value y, Value dy) {
         Value d1 = m.mul(dy, m.mul(x2, m.pow(x1, m.sub(x2, m.c(1)))));
         return std::pair(d1, m.mul(dy, m.mul(y, m.log(x1))));
       }},
      {"math.atan2", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         // atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
         Value scale = m.div(dy, m.add(m.sq(x1), m.sq(x2)));
         return std::pair(m.mul(scale, x2), m.neg(m.mul(scale, x1)));
       }},
      {"arith.minnumf", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         return pickRule(m, x1, x2, dy, arith::CmpFPredicate::OLE);
       }},
      {"arith.maxnumf", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         return pickRule(m, x1, x2, dy, arith::CmpFPredicate::OGE);
       }},
      {"arith.minimumf", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         return pickRule(m, x1, x2, dy, arith::CmpFPredicate::OLE);
       }},
      {"arith.maximumf", false, [](Math &m, Value x1, Value x2, Value, Value dy) {
         return pickRule(m, x1, x2, dy, arith::CmpFPredicate::OGE);
       }},
  };
  for (const auto &entry : rules)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

bool ad::ruleUsesResult(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (const UnaryEntry *entry = findUnaryRule(name))
    return entry->usesResult;
  if (const BinaryEntry *entry = findBinaryRule(name))
    return entry->usesResult;
  return isa<DeterminantOp, InverseOp>(op);
}

bool ad::ruleReadsOperand(Operation *op, unsigned index,
                          llvm::function_ref<bool(Value)> isActive) {
  if (isa<arith::AddFOp, arith::SubFOp, arith::NegFOp, arith::ExtFOp,
          arith::TruncFOp, vector::BroadcastOp, vector::FromElementsOp,
          vector::TransposeOp>(op))
    return false;
  // The condition of a select, not the values.
  if (isa<arith::SelectOp>(op))
    return index == 0;
  // Positions of components, not the vectors.
  if (isa<vector::ExtractOp>(op))
    return index >= 1;
  if (isa<vector::InsertOp>(op))
    return index >= 2;
  // Rules written with the result only: exp's is dy * y.
  static const llvm::StringLiteral resultOnly[] = {
      "math.tan", "math.tanh", "math.exp", "math.exp2", "math.sqrt",
      "math.cbrt"};
  if (llvm::is_contained(resultOnly, op->getName().getStringRef()) ||
      isa<InverseOp>(op))
    return false;
  // x1 / x2: dy / x2 and -(dy / x2) * y.
  if (isa<arith::DivFOp>(op))
    return index == 1;
  // A product reads each factor for the other's adjoint.
  if (isa<arith::MulFOp, DotOp, CrossOp, OuterOp, MatmulOp>(op))
    return op->getNumOperands() == 2 && isActive(op->getOperand(1 - index));
  return true;
}

bool ad::hasZeroDerivative(Operation *op) {
  return isa<arith::CmpFOp, arith::FPToSIOp, arith::FPToUIOp, math::FloorOp,
             math::CeilOp, math::RoundOp, math::RoundEvenOp, math::TruncOp,
             math::IsNaNOp, math::IsInfOp, math::IsFiniteOp>(op);
}

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
  Value c = s.sub(s.mul(s.c(2), s.mul(w, w)), s.c(1));
  Value d = s.mul(s.c(2), DotOp::create(b, loc, u, v));
  Value g = s.mul(s.c(2 * sign), w);
  Value twiceUdr = s.mul(s.c(2), DotOp::create(b, loc, u, dr));
  Value dv = m.add(m.add(m.mul(spread(c), dr), m.mul(spread(twiceUdr), u)),
                   m.mul(spread(g), CrossOp::create(b, loc, dr, u)));
  Value du = m.add(m.add(m.mul(spread(d), dr), m.mul(spread(twiceUdr), v)),
                   m.mul(spread(g), CrossOp::create(b, loc, v, dr)));
  Value dw = s.add(
      s.mul(s.mul(s.c(4), w), DotOp::create(b, loc, v, dr)),
      s.mul(s.c(2 * sign),
            DotOp::create(b, loc, CrossOp::create(b, loc, u, v), dr)));
  Value dq = vector::FromElementsOp::create(
      b, loc, q.getType(),
      ValueRange{component(du, 0), component(du, 1), component(du, 2), dw});
  return {dq, dv};
}

/// The adjoint of q in m = quat_to_matrix(q) for the adjoint dm: column j
/// of m is quat_rotate(q, e_j), so the adjoints of the three add up.
static Value quatToMatrixAdjoint(OpBuilder &b, Location loc, Value q,
                                 Value dm) {
  auto quatType = cast<VectorType>(q.getType());
  auto vec3 = VectorType::get({3}, quatType.getElementType());
  Value columns =
      vector::TransposeOp::create(b, loc, dm, ArrayRef<int64_t>{1, 0});
  Value sum;
  for (int64_t j = 0; j < 3; ++j) {
    Type element = vec3.getElementType();
    SmallVector<Attribute> unit(3, b.getFloatAttr(element, 0));
    unit[j] = b.getFloatAttr(element, 1);
    Value e =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec3, unit));
    Value column = vector::ExtractOp::create(b, loc, columns, j);
    Value dq = rotateAdjoint(b, loc, q, e, column, 1.0).first;
    sum = sum ? arith::AddFOp::create(b, loc, sum, dq).getResult() : dq;
  }
  return sum;
}

/// The rules of the vector dialect's operations, which move components.
static LogicalResult applyShuffleRule(ad::RuleContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value dy = ctx.resultAdjoints.empty() ? Value() : ctx.resultAdjoints[0];
  auto &out = ctx.operandAdjoints;
  return llvm::TypeSwitch<Operation *, LogicalResult>(ctx.op)
      .Case([&](vector::BroadcastOp op) {
        Value source = ctx.operands[0];
        if (isa<VectorType>(source.getType()))
          return failure(); // Row broadcasts: not produced by the frontend.
        out[0] = sumComponents(b, loc, dy);
        return success();
      })
      .Case([&](vector::ExtractOp op) {
        // The extracted component's adjoint, in a zero vector.
        Value into = ad::zero(b, loc, ctx.operands[0].getType());
        SmallVector<OpFoldResult> position;
        for (OpFoldResult p : op.getMixedPosition())
          position.push_back(p);
        // Dynamic positions are operands after the vector.
        unsigned dynamic = 1;
        for (OpFoldResult &p : position)
          if (isa<Value>(p))
            p = ctx.operands[dynamic++];
        out[0] = vector::InsertOp::create(b, loc, dy, into, position);
        return success();
      })
      .Case([&](vector::InsertOp op) {
        SmallVector<OpFoldResult> position(op.getMixedPosition());
        unsigned dynamic = 2;
        for (OpFoldResult &p : position)
          if (isa<Value>(p))
            p = ctx.operands[dynamic++];
        out[0] = vector::ExtractOp::create(b, loc, dy, position);
        out[1] = vector::InsertOp::create(
            b, loc, ad::zero(b, loc, ctx.operands[0].getType()), dy, position);
        return success();
      })
      .Case([&](vector::FromElementsOp op) {
        auto type = cast<VectorType>(dy.getType());
        for (auto [index, element] : llvm::enumerate(ctx.operands)) {
          SmallVector<int64_t> position;
          int64_t rest = index;
          for (int64_t d = type.getRank() - 1; d >= 0; --d) {
            position.insert(position.begin(), rest % type.getDimSize(d));
            rest /= type.getDimSize(d);
          }
          out[index] = vector::ExtractOp::create(b, loc, dy, position);
        }
        return success();
      })
      .Case([&](vector::TransposeOp op) {
        out[0] = vector::TransposeOp::create(b, loc, dy,
                                             ArrayRef<int64_t>{1, 0});
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

/// The rules of ks's linear algebra and quaternion operations.
static LogicalResult applyLinearAlgebraRule(ad::RuleContext &ctx) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value dy = ctx.resultAdjoints.empty() ? Value() : ctx.resultAdjoints[0];
  auto &out = ctx.operandAdjoints;
  Math m{b, loc, dy ? dy.getType() : Type()};
  auto transpose = [&](Value matrix) -> Value {
    return vector::TransposeOp::create(b, loc, matrix, ArrayRef<int64_t>{1, 0});
  };
  auto broadcastTo = [&](Value scalar, Type type) -> Value {
    return vector::BroadcastOp::create(b, loc, type, scalar);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(ctx.op)
      .Case([&](DotOp op) {
        Type type = ctx.operands[0].getType();
        Value spread = broadcastTo(dy, type);
        Math v{b, loc, type};
        out[0] = v.mul(spread, ctx.operands[1]);
        out[1] = v.mul(spread, ctx.operands[0]);
        return success();
      })
      .Case([&](CrossOp op) {
        out[0] = CrossOp::create(b, loc, ctx.operands[1], dy);
        out[1] = CrossOp::create(b, loc, dy, ctx.operands[0]);
        return success();
      })
      .Case([&](OuterOp op) {
        // y = a b^T: da = dy b, db = dy^T a (= a^T dy, a row times dy).
        Type vec = ctx.operands[0].getType();
        out[0] = MatmulOp::create(b, loc, vec, dy, ctx.operands[1]);
        out[1] = MatmulOp::create(b, loc, vec, ctx.operands[0], dy);
        return success();
      })
      .Case([&](MatmulOp op) {
        Value lhs = ctx.operands[0], rhs = ctx.operands[1];
        auto lhsType = cast<VectorType>(lhs.getType());
        auto rhsType = cast<VectorType>(rhs.getType());
        if (lhsType.getRank() == 2 && rhsType.getRank() == 2) {
          // C = A B: dA = dC B^T, dB = A^T dC.
          out[0] = MatmulOp::create(b, loc, lhsType, dy, transpose(rhs));
          out[1] = MatmulOp::create(b, loc, rhsType, transpose(lhs), dy);
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
      })
      .Case([&](DeterminantOp op) {
        // d det(A) / dA = det(A) A^-T.
        Value matrix = ctx.operands[0];
        Type type = matrix.getType();
        Value scale = broadcastTo(m.mul(dy, ctx.results[0]), type);
        Math mm{b, loc, type};
        out[0] = mm.mul(scale, transpose(InverseOp::create(b, loc, matrix)));
        return success();
      })
      .Case([&](InverseOp op) {
        // Y = A^-1: dA = -Y^T dY Y^T.
        Value y = ctx.results[0];
        Type type = y.getType();
        Value yt = transpose(y);
        Value product = MatmulOp::create(
            b, loc, type, MatmulOp::create(b, loc, type, yt, dy), yt);
        out[0] = arith::NegFOp::create(b, loc, product);
        return success();
      })
      .Case([&](QuatMulOp op) {
        // <p q, r> = <p, r conj(q)> = <q, conj(p) r>.
        Value a = ctx.operands[0], r = ctx.operands[1];
        out[0] = QuatMulOp::create(b, loc, dy, conjugate(b, loc, r));
        out[1] = QuatMulOp::create(b, loc, conjugate(b, loc, a), dy);
        return success();
      })
      .Case([&](QuatRotateOp op) {
        auto [dq, dv] = rotateAdjoint(b, loc, ctx.operands[0], ctx.operands[1],
                                      dy, 1.0);
        out[0] = dq, out[1] = dv;
        return success();
      })
      .Case([&](QuatRotateInvOp op) {
        auto [dq, dv] = rotateAdjoint(b, loc, ctx.operands[0], ctx.operands[1],
                                      dy, -1.0);
        out[0] = dq, out[1] = dv;
        return success();
      })
      .Case([&](QuatToMatrixOp op) {
        out[0] = quatToMatrixAdjoint(b, loc, ctx.operands[0], dy);
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

LogicalResult ad::applyDerivativeRule(RuleContext &ctx) {
  Operation *op = ctx.op;
  StringRef name = op->getName().getStringRef();
  ctx.operandAdjoints.assign(ctx.operands.size(), Value());
  Value dy = ctx.resultAdjoints.empty() ? Value() : ctx.resultAdjoints[0];
  if (op->getNumResults() == 1 && !dy)
    return success();
  Math m{ctx.b, ctx.loc, op->getNumResults() ? op->getResult(0).getType()
                                             : Type()};
  if (const UnaryEntry *entry = findUnaryRule(name)) {
    ctx.operandAdjoints[0] =
        entry->rule(m, ctx.operands[0], ctx.results[0], dy);
    return success();
  }
  if (const BinaryEntry *entry = findBinaryRule(name)) {
    auto [d1, d2] =
        entry->rule(m, ctx.operands[0], ctx.operands[1], ctx.results[0], dy);
    ctx.operandAdjoints[0] = d1;
    ctx.operandAdjoints[1] = d2;
    return success();
  }
  if (isa<arith::SelectOp>(op)) {
    Value none = zero(ctx.b, ctx.loc, dy.getType());
    Value cond = ctx.operands[0];
    // A vector select with a scalar condition picks whole vectors.
    ctx.operandAdjoints[1] = m.select(cond, dy, none);
    ctx.operandAdjoints[2] = m.select(cond, none, dy);
    return success();
  }
  if (isa<arith::ExtFOp>(op)) {
    ctx.operandAdjoints[0] = arith::TruncFOp::create(
        ctx.b, ctx.loc, ctx.operands[0].getType(), dy);
    return success();
  }
  if (isa<arith::TruncFOp>(op)) {
    ctx.operandAdjoints[0] = arith::ExtFOp::create(
        ctx.b, ctx.loc, ctx.operands[0].getType(), dy);
    return success();
  }
  // randf(s, lo, hi) = (hi - lo) * r + lo with r = randf(s), the same draw.
  if (auto rand = dyn_cast<RandFOp>(op)) {
    if (!dy || ctx.operands.size() != 3)
      return success();
    Value r = RandFOp::create(ctx.b, ctx.loc, dy.getType(),
                              ctx.b.getI32Type(), ctx.operands[0], ValueRange())
                  .getValue();
    ctx.operandAdjoints[1] = m.mul(dy, m.sub(m.c(1), r));
    ctx.operandAdjoints[2] = m.mul(dy, r);
    return success();
  }
  // math.fpowi: x^n with an integer n.
  if (auto powi = dyn_cast<math::FPowIOp>(op)) {
    Value n = arith::SIToFPOp::create(ctx.b, ctx.loc, dy.getType(),
                                      ctx.operands[1]);
    Value lower = math::FPowIOp::create(
        ctx.b, ctx.loc, ctx.operands[0],
        arith::SubIOp::create(
            ctx.b, ctx.loc, ctx.operands[1],
            arith::ConstantOp::create(
                ctx.b, ctx.loc,
                ctx.b.getIntegerAttr(ctx.operands[1].getType(), 1))));
    ctx.operandAdjoints[0] = m.mul(dy, m.mul(n, lower));
    return success();
  }
  if (ctx.op->getDialect()->getNamespace() == "vector")
    return applyShuffleRule(ctx);
  return applyLinearAlgebraRule(ctx);
}
