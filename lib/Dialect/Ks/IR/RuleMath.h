//===- RuleMath.h - Writing derivative rules as formulas -----*- C++ -*-===//
//
// Part of ksc. A small builder of float expressions, shared by the
// derivative rules of the ks (KsDerivatives.cpp), arith and math
// (ArithDerivatives.cpp) and vector (VectorDerivatives.cpp) operations.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_RULEMATH_H
#define KSC_DIALECT_KS_IR_RULEMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ksc::ks::ad {

/// The external models of ArithDerivatives.cpp and VectorDerivatives.cpp.
void registerArithDerivativeModels(mlir::DialectRegistry &registry);
void registerVectorDerivativeModels(mlir::DialectRegistry &registry);

/// Float expressions of the type of one value (a scalar, vector or matrix),
/// for writing derivative rules as they read.
struct Math {
  using Value = mlir::Value;
  using Pred = mlir::arith::CmpFPredicate;
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type type;

  Value c(double v) {
    if (auto vector = mlir::dyn_cast<mlir::VectorType>(type))
      return mlir::arith::ConstantOp::create(
          b, loc,
          mlir::DenseElementsAttr::get(
              vector, b.getFloatAttr(vector.getElementType(), v)));
    return mlir::arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
  }
  template <typename Op, typename... Args> Value op(Args... args) {
    return Op::create(b, loc, args...);
  }
  Value add(Value x, Value y) { return op<mlir::arith::AddFOp>(x, y); }
  Value sub(Value x, Value y) { return op<mlir::arith::SubFOp>(x, y); }
  Value mul(Value x, Value y) { return op<mlir::arith::MulFOp>(x, y); }
  Value div(Value x, Value y) { return op<mlir::arith::DivFOp>(x, y); }
  Value neg(Value x) { return op<mlir::arith::NegFOp>(x); }
  Value sq(Value x) { return mul(x, x); }
  Value sqrt(Value x) { return op<mlir::math::SqrtOp>(x); }
  Value exp(Value x) { return op<mlir::math::ExpOp>(x); }
  Value log(Value x) { return op<mlir::math::LogOp>(x); }
  Value sin(Value x) { return op<mlir::math::SinOp>(x); }
  Value cos(Value x) { return op<mlir::math::CosOp>(x); }
  Value sinh(Value x) { return op<mlir::math::SinhOp>(x); }
  Value cosh(Value x) { return op<mlir::math::CoshOp>(x); }
  Value pow(Value x, Value y) { return op<mlir::math::PowFOp>(x, y); }
  Value trunc(Value x) { return op<mlir::math::TruncOp>(x); }
  Value cmp(Pred p, Value x, Value y) {
    return op<mlir::arith::CmpFOp>(p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return op<mlir::arith::SelectOp>(cond, x, y);
  }
  Value orI(Value x, Value y) { return op<mlir::arith::OrIOp>(x, y); }
};

/// `a + b` where a null value is a zero.
inline mlir::Value sumOf(Math &m, mlir::Value a, mlir::Value b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return m.add(a, b);
}

/// `op` again on `operands`, with its attributes and result types.
inline mlir::Value recreate(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Operation *op, mlir::ValueRange operands) {
  mlir::OperationState state(loc, op->getName());
  state.addOperands(operands);
  state.addTypes(op->getResultTypes());
  state.addAttributes(op->getAttrs());
  return b.create(state)->getResult(0);
}

} // namespace ksc::ks::ad

#endif // KSC_DIALECT_KS_IR_RULEMATH_H
