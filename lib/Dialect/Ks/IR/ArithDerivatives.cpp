//===- ArithDerivatives.cpp - Derivative rules of arith and math --------===//
//
// Part of ksc. The DerivativeOpInterface (KsInterfaces.td) of the arith and
// math operations kernels use, as external models. Pointwise operations
// are one row each of a table, for both modes: the reverse rule as a
// formula (the adjoints of the operands from the operands x, the result y
// and its adjoint dy, for scalars and vectors alike); their forward rule
// is the sum of the reverse rule applied to each operand's tangent (the
// interface's default), unless the row gives a cheaper one.
//
// Subgradients where a function has none: abs gets the adjoint's sign of x
// with abs'(0) = 1 (as Warp); min and max give the whole adjoint to the
// first argument at a tie, and to the other argument when one is NaN (the
// one they return).
//
//===----------------------------------------------------------------------===//

#include "RuleMath.h"
#include "ksc/Dialect/Ks/IR/DerivativeOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace ksc::ks;
using ad::Math;
using ad::RuleContext;
using ad::TangentContext;

static constexpr double kLn2 = 0.69314718055994530942;
static constexpr double kLn10 = 2.30258509299404568402;
static constexpr double k2OverSqrtPi = 1.12837916709551257390;

namespace {
/// Which operands a reverse rule reads.
enum class Reads {
  All,
  /// None: a linear operation, or a rule written with the result only
  /// (exp's is dy * y).
  None,
  /// The second: x1 / x2 has dy / x2 and -(dy / x2) * y.
  Divisor,
  /// Each factor for the other's adjoint, when the other is active.
  OtherFactor,
};
/// dx of y = f(x), from x, y and dy.
using UnaryRule = Value (*)(Math &m, Value x, Value y, Value dy);
/// (dx1, dx2) of y = f(x1, x2).
using BinaryRule = std::pair<Value, Value> (*)(Math &m, Value x1, Value x2,
                                               Value y, Value dy);
/// A cheaper tangent than the sum of the reverse rules: sets
/// `ctx.resultTangents[0]` and returns true, or returns false for the sum.
using TangentRule = bool (*)(Math &m, TangentContext &ctx);

/// The derivative rules of a pointwise operation.
struct PointwiseRule {
  llvm::StringLiteral name;
  /// Attaches the model to the operation.
  void (*attach)(MLIRContext *context);
  /// Whether the reverse rule reads the result y (then the reverse sweep
  /// needs y: it is kept or recomputed).
  bool usesResult;
  Reads reads;
  UnaryRule unary;
  BinaryRule binary;
  TangentRule tangent;
};

const PointwiseRule &findRule(llvm::StringRef name);
llvm::ArrayRef<PointwiseRule> arithRules();
llvm::ArrayRef<PointwiseRule> mathRules();

/// The model of a pointwise operation: its row of the table.
template <typename OpTy>
struct PointwiseModel
    : DerivativeOpInterface::ExternalModel<PointwiseModel<OpTy>, OpTy> {
  static const PointwiseRule &rule() {
    static const PointwiseRule &row = findRule(OpTy::getOperationName());
    return row;
  }
  LogicalResult buildAdjoint(Operation *op, RuleContext &ctx) const {
    Math m{ctx.b, ctx.loc, op->getResult(0).getType()};
    Value dy = ctx.resultAdjoints[0];
    if (UnaryRule unary = rule().unary) {
      ctx.operandAdjoints[0] = unary(m, ctx.operands[0], ctx.results[0], dy);
      return success();
    }
    auto [d1, d2] = rule().binary(m, ctx.operands[0], ctx.operands[1],
                                  ctx.results[0], dy);
    ctx.operandAdjoints[0] = d1;
    ctx.operandAdjoints[1] = d2;
    return success();
  }
  LogicalResult buildTangent(Operation *op, TangentContext &ctx) const {
    Math m{ctx.b, ctx.loc, ctx.results[0].getType()};
    if (TangentRule tangent = rule().tangent; tangent && tangent(m, ctx))
      return success();
    return ad::pointwiseTangent(ctx);
  }
  bool adjointUsesResult(Operation *) const { return rule().usesResult; }
  bool adjointReadsOperand(Operation *op, unsigned index,
                           llvm::function_ref<bool(Value)> isActive) const {
    switch (rule().reads) {
    case Reads::All:
      return true;
    case Reads::None:
      return false;
    case Reads::Divisor:
      return index == 1;
    case Reads::OtherFactor:
      return op->getNumOperands() == 2 && isActive(op->getOperand(1 - index));
    }
    llvm_unreachable("unknown Reads");
  }
};

template <typename OpTy> void attach(MLIRContext *context) {
  OpTy::template attachInterface<PointwiseModel<OpTy>>(*context);
}

/// The row of a unary operation.
template <typename OpTy>
constexpr PointwiseRule unary(bool usesResult, Reads reads, UnaryRule rule,
                              TangentRule tangent = nullptr) {
  return {OpTy::getOperationName(), &attach<OpTy>, usesResult, reads, rule,
          nullptr, tangent};
}
/// The row of a binary operation.
template <typename OpTy>
constexpr PointwiseRule binary(bool usesResult, Reads reads, BinaryRule rule,
                               TangentRule tangent = nullptr) {
  return {OpTy::getOperationName(), &attach<OpTy>, usesResult, reads, nullptr,
          rule, tangent};
}
} // namespace

/// The adjoint of the operand that min/max returns: the first at a tie,
/// the other when one is NaN.
static std::pair<Value, Value> pickRule(Math &m, Value x1, Value x2, Value dy,
                                        arith::CmpFPredicate firstWins) {
  Value nan = m.cmp(arith::CmpFPredicate::UNO, x2, x2);
  Value wins = m.cmp(firstWins, x1, x2);
  Value first = m.orI(wins, nan);
  Value none = m.c(0);
  return {m.select(first, dy, none), m.select(first, none, dy)};
}

/// The tangent of the operand min/max returns: the first at a tie, the
/// other when one is NaN.
static bool pickTangent(Math &m, TangentContext &ctx,
                        arith::CmpFPredicate firstWins) {
  ValueRange x = ctx.operands;
  ArrayRef<Value> dx = ctx.operandTangents;
  auto orZero = [&](unsigned i) {
    return dx[i] ? dx[i] : ad::zero(m.b, m.loc, x[i].getType());
  };
  Value nan = m.cmp(arith::CmpFPredicate::UNO, x[1], x[1]);
  Value wins = m.cmp(firstWins, x[0], x[1]);
  Value first = m.orI(wins, nan);
  Value second = orZero(1);
  Value firstTangent = orZero(0);
  ctx.resultTangents[0] = m.select(first, firstTangent, second);
  return true;
}

using Pred = arith::CmpFPredicate;

namespace {
// clang-format off
llvm::ArrayRef<PointwiseRule> arithRules() {
  static const PointwiseRule rules[] = {
    // Linear operations.
    unary<arith::NegFOp>(false, Reads::None,
        [](Math &m, Value, Value, Value dy) { return m.neg(dy); }),
    binary<arith::AddFOp>(false, Reads::None,
        [](Math &, Value, Value, Value, Value dy) { return std::pair(dy, dy); },
        [](Math &m, TangentContext &ctx) {
          ArrayRef<Value> dx = ctx.operandTangents;
          ctx.resultTangents[0] = ad::sumOf(m, dx[0], dx[1]);
          return true;
        }),
    binary<arith::SubFOp>(false, Reads::None,
        [](Math &m, Value, Value, Value, Value dy) {
          return std::pair(dy, m.neg(dy));
        },
        [](Math &m, TangentContext &ctx) {
          ArrayRef<Value> dx = ctx.operandTangents;
          ctx.resultTangents[0] = !dx[1]  ? dx[0]
                                  : dx[0] ? m.sub(dx[0], dx[1])
                                          : m.neg(dx[1]);
          return true;
        }),
    unary<arith::ExtFOp>(false, Reads::None,
        [](Math &m, Value x, Value, Value dy) -> Value {
          return arith::TruncFOp::create(m.b, m.loc, x.getType(), dy);
        },
        [](Math &m, TangentContext &ctx) {
          ctx.resultTangents[0] =
              ad::recreate(m.b, m.loc, ctx.op, ctx.operandTangents[0]);
          return true;
        }),
    unary<arith::TruncFOp>(false, Reads::None,
        [](Math &m, Value x, Value, Value dy) -> Value {
          return arith::ExtFOp::create(m.b, m.loc, x.getType(), dy);
        },
        [](Math &m, TangentContext &ctx) {
          ctx.resultTangents[0] =
              ad::recreate(m.b, m.loc, ctx.op, ctx.operandTangents[0]);
          return true;
        }),
    // Products and quotients.
    binary<arith::MulFOp>(false, Reads::OtherFactor,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          Value dx2 = m.mul(dy, x1);
          return std::pair(m.mul(dy, x2), dx2);
        },
        [](Math &m, TangentContext &ctx) {
          // x * x: 2 x dx, one product.
          if (ctx.operands[0] != ctx.operands[1])
            return false;
          Value once = m.mul(ctx.operandTangents[0], ctx.operands[0]);
          ctx.resultTangents[0] = m.add(once, once);
          return true;
        }),
    binary<arith::DivFOp>(true, Reads::Divisor,
        [](Math &m, Value, Value x2, Value y, Value dy) {
          Value d1 = m.div(dy, x2);
          return std::pair(d1, m.neg(m.mul(d1, y)));
        },
        [](Math &m, TangentContext &ctx) {
          // y = x1 / x2: dy = (dx1 - y dx2) / x2, one division.
          ArrayRef<Value> dx = ctx.operandTangents;
          Value numerator = dx[0];
          if (dx[1]) {
            Value scaled = m.mul(ctx.results[0], dx[1]);
            numerator = numerator ? m.sub(numerator, scaled) : m.neg(scaled);
          }
          ctx.resultTangents[0] = m.div(numerator, ctx.operands[1]);
          return true;
        }),
    // fmod: x1 - trunc(x1 / x2) * x2.
    binary<arith::RemFOp>(false, Reads::All,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          return std::pair(dy, m.neg(m.mul(dy, m.trunc(m.div(x1, x2)))));
        }),
    // Minima and maxima.
    binary<arith::MinNumFOp>(false, Reads::All,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          return pickRule(m, x1, x2, dy, Pred::OLE);
        },
        [](Math &m, TangentContext &ctx) {
          return pickTangent(m, ctx, Pred::OLE);
        }),
    binary<arith::MaxNumFOp>(false, Reads::All,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          return pickRule(m, x1, x2, dy, Pred::OGE);
        },
        [](Math &m, TangentContext &ctx) {
          return pickTangent(m, ctx, Pred::OGE);
        }),
    binary<arith::MinimumFOp>(false, Reads::All,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          return pickRule(m, x1, x2, dy, Pred::OLE);
        },
        [](Math &m, TangentContext &ctx) {
          return pickTangent(m, ctx, Pred::OLE);
        }),
    binary<arith::MaximumFOp>(false, Reads::All,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          return pickRule(m, x1, x2, dy, Pred::OGE);
        },
        [](Math &m, TangentContext &ctx) {
          return pickTangent(m, ctx, Pred::OGE);
        }),
  };
  return rules;
}

llvm::ArrayRef<PointwiseRule> mathRules() {
  static const PointwiseRule rules[] = {
    binary<math::PowFOp>(true, Reads::All,
        [](Math &m, Value x1, Value x2, Value y, Value dy) {
          Value d1 = m.mul(dy, m.mul(x2, m.pow(x1, m.sub(x2, m.c(1)))));
          return std::pair(d1, m.mul(dy, m.mul(y, m.log(x1))));
        }),
    // x^n with an integer n.
    binary<math::FPowIOp>(false, Reads::All,
        [](Math &m, Value x, Value n, Value, Value dy) {
          Value real = arith::SIToFPOp::create(m.b, m.loc, dy.getType(), n);
          Value lower = math::FPowIOp::create(
              m.b, m.loc, x,
              arith::SubIOp::create(
                  m.b, m.loc, n,
                  arith::ConstantOp::create(
                      m.b, m.loc, m.b.getIntegerAttr(n.getType(), 1))));
          return std::pair(m.mul(dy, m.mul(real, lower)), Value());
        }),
    unary<math::AbsFOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          Value negated = m.neg(dy);
          return m.select(m.cmp(Pred::OLT, x, m.c(0)), negated, dy);
        }),
    // The math library.
    unary<math::SinOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) { return m.mul(dy, m.cos(x)); }),
    unary<math::CosOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          return m.neg(m.mul(dy, m.sin(x)));
        }),
    unary<math::TanOp>(true, Reads::None,
        [](Math &m, Value, Value y, Value dy) {
          Value y2 = m.sq(y);
          return m.mul(dy, m.add(m.c(1), y2));
        }),
    unary<math::AsinOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          Value x2 = m.sq(x);
          return m.div(dy, m.sqrt(m.sub(m.c(1), x2)));
        }),
    unary<math::AcosOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          Value x2 = m.sq(x);
          return m.neg(m.div(dy, m.sqrt(m.sub(m.c(1), x2))));
        }),
    unary<math::AtanOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          Value x2 = m.sq(x);
          return m.div(dy, m.add(m.c(1), x2));
        }),
    binary<math::Atan2Op>(false, Reads::All,
        [](Math &m, Value x1, Value x2, Value, Value dy) {
          // atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
          Value b2 = m.sq(x2);
          Value scale = m.div(dy, m.add(m.sq(x1), b2));
          Value dx2 = m.neg(m.mul(scale, x1));
          return std::pair(m.mul(scale, x2), dx2);
        }),
    unary<math::SinhOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) { return m.mul(dy, m.cosh(x)); }),
    unary<math::CoshOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) { return m.mul(dy, m.sinh(x)); }),
    unary<math::TanhOp>(true, Reads::None,
        [](Math &m, Value, Value y, Value dy) {
          Value y2 = m.sq(y);
          return m.mul(dy, m.sub(m.c(1), y2));
        }),
    unary<math::ExpOp>(true, Reads::None,
        [](Math &m, Value, Value y, Value dy) { return m.mul(dy, y); }),
    unary<math::Exp2Op>(true, Reads::None,
        [](Math &m, Value, Value y, Value dy) {
          return m.mul(dy, m.mul(y, m.c(kLn2)));
        }),
    unary<math::LogOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) { return m.div(dy, x); }),
    unary<math::Log2Op>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          return m.div(dy, m.mul(x, m.c(kLn2)));
        }),
    unary<math::Log10Op>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          return m.div(dy, m.mul(x, m.c(kLn10)));
        }),
    unary<math::SqrtOp>(true, Reads::None,
        [](Math &m, Value, Value y, Value dy) {
          return m.div(dy, m.mul(m.c(2), y));
        }),
    unary<math::CbrtOp>(true, Reads::None,
        [](Math &m, Value, Value y, Value dy) {
          Value y2 = m.sq(y);
          return m.div(dy, m.mul(m.c(3), y2));
        }),
    unary<math::ErfOp>(false, Reads::All,
        [](Math &m, Value x, Value, Value dy) {
          Value gauss = m.exp(m.neg(m.sq(x)));
          return m.mul(dy, m.mul(m.c(k2OverSqrtPi), gauss));
        }),
  };
  return rules;
}
// clang-format on
} // namespace

namespace {
const PointwiseRule &findRule(llvm::StringRef name) {
  for (auto rules : {arithRules(), mathRules()})
    for (const PointwiseRule &row : rules)
      if (row.name == name)
        return row;
  llvm_unreachable("a pointwise model without a row");
}

/// arith.select: the adjoint goes to the value selected; a vector select
/// with a scalar condition picks whole vectors. Reads the condition only.
struct SelectModel
    : DerivativeOpInterface::ExternalModel<SelectModel, arith::SelectOp> {
  LogicalResult buildAdjoint(Operation *op, RuleContext &ctx) const {
    Value dy = ctx.resultAdjoints[0];
    Math m{ctx.b, ctx.loc, op->getResult(0).getType()};
    Value none = ad::zero(ctx.b, ctx.loc, dy.getType());
    Value cond = ctx.operands[0];
    ctx.operandAdjoints[1] = m.select(cond, dy, none);
    ctx.operandAdjoints[2] = m.select(cond, none, dy);
    return success();
  }
  LogicalResult buildTangent(Operation *, TangentContext &ctx) const {
    Math m{ctx.b, ctx.loc, ctx.results[0].getType()};
    ArrayRef<Value> dx = ctx.operandTangents;
    ValueRange x = ctx.operands;
    auto orZero = [&](unsigned i) {
      return dx[i] ? dx[i] : ad::zero(ctx.b, ctx.loc, x[i].getType());
    };
    Value second = orZero(2);
    Value first = orZero(1);
    ctx.resultTangents[0] = m.select(x[0], first, second);
    return success();
  }
  bool adjointReadsOperand(Operation *, unsigned index,
                           llvm::function_ref<bool(Value)>) const {
    return index == 0;
  }
};

/// Operations whose derivatives are all zero: comparisons, rounding,
/// conversions to integers, classification.
template <typename OpTy>
struct ZeroModel
    : DerivativeOpInterface::ExternalModel<ZeroModel<OpTy>, OpTy> {
  LogicalResult buildAdjoint(Operation *, RuleContext &) const {
    return success();
  }
  LogicalResult buildTangent(Operation *, TangentContext &) const {
    return success();
  }
  bool hasZeroDerivative(Operation *) const { return true; }
};
template <typename... OpTys> void attachZero(MLIRContext *context) {
  (OpTys::template attachInterface<ZeroModel<OpTys>>(*context), ...);
}
} // namespace

static void attachArith(MLIRContext *context) {
  arith::SelectOp::attachInterface<SelectModel>(*context);
  attachZero<arith::CmpFOp, arith::FPToSIOp, arith::FPToUIOp>(context);
}

static void attachMath(MLIRContext *context) {
  attachZero<math::FloorOp, math::CeilOp, math::RoundOp, math::RoundEvenOp,
             math::TruncOp, math::IsNaNOp, math::IsInfOp, math::IsFiniteOp>(
      context);
}

void ksc::ks::ad::registerArithDerivativeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachArith(context);
    for (const PointwiseRule &row : arithRules())
      row.attach(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachMath(context);
    for (const PointwiseRule &row : mathRules())
      row.attach(context);
  });
}
