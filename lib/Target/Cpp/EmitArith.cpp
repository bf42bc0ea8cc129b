//===- EmitArith.cpp - Types, literals, arith and math as C++ ---------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <charconv>

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

//===----------------------------------------------------------------------===//
// Types and literals
//===----------------------------------------------------------------------===//

FailureOr<std::string> Emitter::typeName(Type type, Location loc) {
  if (type.isF32())
    return std::string("float");
  if (type.isF64())
    return std::string("double");
  if (type.isSignlessInteger(1))
    return std::string("bool");
  if (type.isSignlessInteger(32))
    return std::string("int");
  // The C++ type of uint32_t variables, and array<uint32_t>'s elements.
  if (type.isUnsignedInteger(32))
    return std::string("uint32_t");
  if (auto intType = dyn_cast<IntegerType>(type);
      intType && intType.isSignless() &&
      llvm::is_contained({8u, 16u, 64u}, intType.getWidth()))
    return "int" + std::to_string(intType.getWidth()) + "_t";
  if (isa<ks::GridType>(type))
    return std::string("ksc::grid");
  if (isa<ks::TapeType>(type))
    return std::string("ksc::device_tape");
  // Component indices (`v[i]`).
  if (isa<IndexType>(type))
    return std::string("int64_t");
  if (auto vector = dyn_cast<VectorType>(type))
    if (std::optional<std::string> name = vectorTypeName(vector))
      return *name;
  if (auto structType = dyn_cast<ks::StructType>(type))
    return structName(structType);
  if (auto array = dyn_cast<ks::ArrayType>(type)) {
    FailureOr<std::string> element = typeName(array.getElementType(), loc);
    if (failed(element))
      return failure();
    std::string name = "ksc::array<";
    if (array.getIsConst())
      name += "const ";
    name += *element;
    if (array.getRank() != 1)
      name += ", " + std::to_string(array.getRank());
    return name + ">";
  }
  return emitError(loc) << "type " << type
                        << " is not supported by the C++ emitter";
}

/// The unsigned C++ type of the same width as integer type `type`.
static std::string unsignedName(Type type) {
  unsigned width = cast<IntegerType>(type).getWidth();
  return width == 1 ? "bool" : "uint" + std::to_string(width) + "_t";
}

/// The shortest decimal text that reads back as `value`, as a C++ literal.
/// CUDA device code cannot call std::numeric_limits (constexpr host
/// functions): NaN and infinity are then the C macros, as `typeName`.
template <typename T>
static std::string floatLiteral(T value, StringRef typeName, StringRef suffix,
                                bool cuda) {
  if (cuda && (std::isnan(value) || std::isinf(value))) {
    std::string macro = std::isnan(value) ? "NAN" : "INFINITY";
    if (typeName != "float")
      macro = typeName.str() + "(" + macro + ")";
    return (value < 0 && !std::isnan(value) ? "-" : "") + macro;
  }
  if (std::isnan(value))
    return "std::numeric_limits<" + typeName.str() + ">::quiet_NaN()";
  if (std::isinf(value))
    return std::string(value < 0 ? "-" : "") + "std::numeric_limits<" +
           typeName.str() + ">::infinity()";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  (void)ec;
  std::string text(buffer, end);
  // 1e-06 -> 1e-6, 1e+30 -> 1e30.
  if (size_t e = text.find('e'); e != std::string::npos) {
    std::string mantissa = text.substr(0, e), exponent = text.substr(e + 1);
    bool negative = exponent[0] == '-';
    size_t digits = exponent.find_first_not_of("+-0");
    text = mantissa + "e" + (negative ? "-" : "") +
           (digits == std::string::npos ? "0" : exponent.substr(digits));
  } else if (text.find('.') == std::string::npos) {
    text += ".0";
  }
  return text + suffix.str();
}

FailureOr<Expr> Emitter::literal(Attribute value, Location loc,
                                 bool asUnsigned) {
  if (auto intAttr = dyn_cast<IntegerAttr>(value)) {
    // Component indices (`index`) are int64_t.
    if (isa<IndexType>(intAttr.getType()))
      return Expr("int64_t(" + std::to_string(intAttr.getInt()) + ")",
                  kPostfix);
    auto type = dyn_cast<IntegerType>(intAttr.getType());
    if (!type)
      return emitError(loc) << "cannot emit constant " << value << " as C++";
    if (type.getWidth() == 1)
      return Expr(intAttr.getValue().isZero() ? "false" : "true", kPrimary);
    APInt v = intAttr.getValue();
    if (asUnsigned && type.getWidth() == 32) {
      Expr result(std::to_string(v.getZExtValue()) + "u", kPrimary);
      result.isUnsigned = true;
      return result;
    }
    // The most negative value has no literal: -2147483648 is -(2147483648),
    // which does not fit.
    bool noLiteral = v.isMinSignedValue() && type.getWidth() > 8;
    std::string text = noLiteral ? std::to_string(v.getSExtValue() + 1) + " - 1"
                                 : std::to_string(v.getSExtValue());
    if (type.getWidth() != 32)
      return Expr("int" + std::to_string(type.getWidth()) + "_t(" + text + ")",
                  kPostfix);
    if (noLiteral)
      return Expr("(" + text + ")", kPrimary);
    return Expr(text, text[0] == '-' ? kUnary : kPrimary);
  }
  if (auto floatAttr = dyn_cast<FloatAttr>(value)) {
    std::string text;
    if (floatAttr.getType().isF32())
      text = floatLiteral(static_cast<float>(floatAttr.getValueAsDouble()),
                          "float", "f", isCuda());
    else if (floatAttr.getType().isF64())
      text = floatLiteral(floatAttr.getValueAsDouble(), "double", "",
                          isCuda());
    else
      return emitError(loc) << "cannot emit constant " << value << " as C++";
    return Expr(text, text[0] == '-' ? kUnary : kPrimary);
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value);
      dense && isa<VectorType>(dense.getType()))
    return vectorLiteral(dense, loc);
  return emitError(loc) << "cannot emit constant " << value << " as C++";
}

//===----------------------------------------------------------------------===//
// arith
//===----------------------------------------------------------------------===//

static bool isConstantInt(Value value, int64_t expected) {
  APInt v;
  if (!matchPattern(value, m_ConstantInt(&v)))
    return false;
  return v.getBitWidth() == 1 ? (expected != 0) == !v.isZero()
                              : v.getSExtValue() == expected;
}

std::pair<Expr, Expr> Emitter::comparisonOperands(Operation *op) {
  auto cmp = cast<arith::CmpIOp>(op);
  using P = arith::CmpIPredicate;
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  P predicate = cmp.getPredicate();
  bool unsignedPredicate = llvm::is_contained({P::ult, P::ule, P::ugt, P::uge},
                                              predicate);
  if (lhs.getType().isSignlessInteger(32)) {
    // Equality holds in either type: in uint32_t if an operand is one.
    bool u = unsignedPredicate;
    if (predicate == P::eq || predicate == P::ne)
      u = llvm::any_of(ValueRange{lhs, rhs}, [&](Value v) {
        return !matchPattern(v, m_Constant()) && valueExpr(v).isUnsigned;
      });
    return {operandAs(lhs, u), operandAs(rhs, u)};
  }
  if (unsignedPredicate && !lhs.getType().isSignlessInteger(1)) {
    std::string utype = unsignedName(lhs.getType());
    return {castTo(utype, valueExpr(lhs)), castTo(utype, valueExpr(rhs))};
  }
  return {valueExpr(lhs), valueExpr(rhs)};
}

FailureOr<Expr> Emitter::buildArithExpr(Operation &op) {
  Location loc = op.getLoc();
  Value result0 = op.getResult(0);
  Type resultType = result0.getType();
  auto typeOf = [&](Type type) -> FailureOr<std::string> {
    return typeName(type, loc);
  };
  auto isBool = [&](Value v) { return v.getType().isSignlessInteger(1); };
  auto isI32 = [&](Value v) { return v.getType().isSignlessInteger(32); };
  auto withUnsigned = [](Expr expr, bool isUnsigned) {
    expr.isUnsigned = isUnsigned;
    return expr;
  };
  // An i32 operation done in uint32_t (`u`) or int: the operands converted,
  // the result of that type.
  auto i32Binary = [&](StringRef cppOp, int prec, Value lhs, Value rhs,
                       bool u) {
    return withUnsigned(binary(cppOp, prec, operandAs(lhs, u),
                               operandAs(rhs, u)),
                        u);
  };
  // An operation of another width on the unsigned view of its operands
  // (`uint64_t(a) / uint64_t(b)`), converted back to the signed result
  // type.
  auto unsignedBinary = [&](StringRef cppOp, int prec, Value lhs,
                            Value rhs) -> FailureOr<Expr> {
    std::string utype = unsignedName(lhs.getType());
    Expr result = binary(cppOp, prec, castTo(utype, valueExpr(lhs)),
                         castTo(utype, valueExpr(rhs)));
    if (resultType.isSignlessInteger(1))
      return result;
    FailureOr<std::string> type = typeOf(resultType);
    if (failed(type))
      return failure();
    return castTo(*type, result);
  };
  // +, - and *: signed without overflow (nsw), or wrapping, which C++ only
  // has for unsigned types.
  auto wrapping = [&](Operation *o, StringRef cppOp) -> FailureOr<Expr> {
    Value lhs = o->getOperand(0), rhs = o->getOperand(1);
    bool nsw =
        cast<arith::ArithIntegerOverflowFlagsInterface>(o).hasNoSignedWrap();
    bool negation = isa<arith::SubIOp>(o) && isConstantInt(lhs, 0);
    // Vectors of ints: the runtime's component-wise operators.
    if (isa<VectorType>(lhs.getType()))
      return negation ? unary("-", rhs) : binary(cppOp, cppOp == "*" ? kMul : kAdd, lhs, rhs);
    if (isI32(lhs)) {
      if (negation)
        return withUnsigned(unary("-", operandAs(rhs, !nsw)), !nsw);
      return i32Binary(cppOp, cppOp == "*" ? kMul : kAdd, lhs, rhs, !nsw);
    }
    if (nsw) {
      if (negation)
        return unary("-", rhs);
      return binary(cppOp, cppOp == "*" ? kMul : kAdd, lhs, rhs);
    }
    if (negation) {
      FailureOr<std::string> type = typeOf(resultType);
      if (failed(type))
        return failure();
      return castTo(*type,
                    unary("-", castTo(unsignedName(resultType),
                                      valueExpr(rhs))));
    }
    return unsignedBinary(cppOp, cppOp == "*" ? kMul : kAdd, lhs, rhs);
  };
  // Bitwise operations and shifts left work on either type: on uint32_t if
  // the result is declared one or an operand is one.
  auto bitwiseIsUnsigned = [&](ValueRange operands) {
    return isUnsigned(result0) ||
           llvm::any_of(operands, [&](Value v) {
             return !matchPattern(v, m_Constant()) && valueExpr(v).isUnsigned;
           });
  };
  // The type to convert an i32 result to (`int` or `uint32_t`).
  auto resultTypeName = [&]() { return typeOf(cppType(result0)); };

  return llvm::TypeSwitch<Operation *, FailureOr<Expr>>(&op)
      .Case([&](arith::ConstantOp c) {
        return literal(c.getValue(), loc, isUnsigned(result0));
      })
      .Case([&](arith::AddFOp o) {
        return binary("+", kAdd, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::AddIOp o) -> FailureOr<Expr> {
        if (isBool(o.getLhs()))
          return binary("!=", kEq, o.getLhs(), o.getRhs());
        return wrapping(o, "+");
      })
      .Case<arith::SubFOp>(
          [&](auto o) { return binary("-", kAdd, o.getLhs(), o.getRhs()); })
      .Case([&](arith::SubIOp o) -> FailureOr<Expr> {
        if (isBool(o.getLhs()))
          return binary("!=", kEq, o.getLhs(), o.getRhs());
        return wrapping(o, "-");
      })
      .Case<arith::MulFOp, arith::MulIOp>([&](auto o) -> FailureOr<Expr> {
        if (isBool(o.getLhs()))
          return binary("&&", kLogAnd, o.getLhs(), o.getRhs());
        // Vectors and matrices: scaled by a scalar, or component-wise.
        if (isa<VectorType>(resultType)) {
          if (std::optional<Expr> s = scalarOperand(o.getRhs()))
            return binary("*", kMul, valueExpr(o.getLhs()), *s);
          if (std::optional<Expr> s = scalarOperand(o.getLhs()))
            return binary("*", kMul, *s, valueExpr(o.getRhs()));
          return call("ksc::cw_mul", {o.getLhs(), o.getRhs()});
        }
        if (isa<arith::MulIOp>(op))
          return wrapping(&op, "*");
        return binary("*", kMul, o.getLhs(), o.getRhs());
      })
      .Case<arith::DivFOp, arith::DivSIOp, arith::RemSIOp>(
          [&](auto o) -> FailureOr<Expr> {
        StringRef cppOp = isa<arith::RemSIOp>(op) ? "%" : "/";
        // Vectors and matrices: divided by a scalar, or component-wise.
        if (isa<VectorType>(resultType) && cppOp == "/") {
          if (std::optional<Expr> s = scalarOperand(o.getRhs()))
            return binary("/", kMul, valueExpr(o.getLhs()), *s);
          return call("ksc::cw_div", {o.getLhs(), o.getRhs()});
        }
        if (isI32(o.getLhs()))
          return i32Binary(cppOp, kMul, o.getLhs(), o.getRhs(), false);
        return binary(cppOp, kMul, o.getLhs(), o.getRhs());
      })
      .Case<arith::DivUIOp, arith::RemUIOp>([&](auto o) -> FailureOr<Expr> {
        StringRef cppOp = isa<arith::DivUIOp>(op) ? "/" : "%";
        if (isI32(o.getLhs()))
          return i32Binary(cppOp, kMul, o.getLhs(), o.getRhs(), true);
        return unsignedBinary(cppOp, kMul, o.getLhs(), o.getRhs());
      })
      // A component index is used as the int it was.
      .Case([&](arith::IndexCastOp o) { return valueExpr(o.getIn()); })
      .Case([&](arith::RemFOp o) {
        return call("std::fmod", {o.getLhs(), o.getRhs()});
      })
      .Case([&](arith::NegFOp o) { return unary("-", o.getOperand()); })
      .Case<arith::AndIOp, arith::OrIOp>([&](auto o) -> FailureOr<Expr> {
        bool isAnd = isa<arith::AndIOp>(op);
        if (isBool(o.getLhs()))
          return isAnd ? binary("&&", kLogAnd, o.getLhs(), o.getRhs())
                       : binary("||", kLogOr, o.getLhs(), o.getRhs());
        StringRef cppOp = isAnd ? "&" : "|";
        int prec = isAnd ? kBitAnd : kBitOr;
        if (isI32(o.getLhs()))
          return i32Binary(cppOp, prec, o.getLhs(), o.getRhs(),
                           bitwiseIsUnsigned(o->getOperands()));
        return binary(cppOp, prec, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::XOrIOp o) -> FailureOr<Expr> {
        bool u = isI32(o.getLhs()) && bitwiseIsUnsigned(o->getOperands());
        for (auto [a, b] : {std::pair(o.getLhs(), o.getRhs()),
                            std::pair(o.getRhs(), o.getLhs())})
          if (isConstantInt(b, -1) || (isBool(a) && isConstantInt(b, 1))) {
            if (isBool(a))
              return unary("!", a);
            return withUnsigned(unary("~", operandAs(a, u)), u);
          }
        if (isBool(o.getLhs()))
          return binary("!=", kEq, o.getLhs(), o.getRhs());
        if (isI32(o.getLhs()))
          return i32Binary("^", kBitXor, o.getLhs(), o.getRhs(), u);
        return binary("^", kBitXor, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::ShLIOp o) -> FailureOr<Expr> {
        // The shift amount keeps its type, as in C++.
        if (isI32(o.getLhs())) {
          bool u = bitwiseIsUnsigned(o.getLhs());
          return withUnsigned(binary("<<", kShift, operandAs(o.getLhs(), u),
                                     valueExpr(o.getRhs())),
                              u);
        }
        return binary("<<", kShift, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::ShRSIOp o) -> FailureOr<Expr> {
        if (isI32(o.getLhs()))
          return binary(">>", kShift, operandAs(o.getLhs(), false),
                        valueExpr(o.getRhs()));
        return binary(">>", kShift, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::ShRUIOp o) -> FailureOr<Expr> {
        // A logical shift: >> of an unsigned type.
        if (isI32(o.getLhs()))
          return withUnsigned(binary(">>", kShift, operandAs(o.getLhs(), true),
                                     valueExpr(o.getRhs())),
                              true);
        return unsignedBinary(">>", kShift, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::CmpIOp o) -> FailureOr<Expr> {
        using P = arith::CmpIPredicate;
        // A signed i1 is -1 or 0; C++ promotes bool to 1 or 0.
        if (isBool(o.getLhs()) &&
            llvm::is_contained({P::slt, P::sle, P::sgt, P::sge},
                               o.getPredicate())) {
          StringRef op = o.getPredicate() == P::slt   ? "<"
                         : o.getPredicate() == P::sle ? "<="
                         : o.getPredicate() == P::sgt ? ">"
                                                      : ">=";
          return binary(op, kRel, unary("-", o.getLhs()),
                        unary("-", o.getRhs()));
        }
        auto [lhs, rhs] = comparisonOperands(o);
        switch (o.getPredicate()) {
        case P::eq:
          return binary("==", kEq, lhs, rhs);
        case P::ne:
          return binary("!=", kEq, lhs, rhs);
        case P::slt:
        case P::ult:
          return binary("<", kRel, lhs, rhs);
        case P::sle:
        case P::ule:
          return binary("<=", kRel, lhs, rhs);
        case P::sgt:
        case P::ugt:
          return binary(">", kRel, lhs, rhs);
        case P::sge:
        case P::uge:
          return binary(">=", kRel, lhs, rhs);
        }
        llvm_unreachable("unknown cmpi predicate");
      })
      .Case([&](arith::CmpFOp o) -> FailureOr<Expr> {
        using P = arith::CmpFPredicate;
        Value a = o.getLhs(), b = o.getRhs();
        // Unordered predicates are the negations of ordered ones.
        auto negated = [&](StringRef cppOp, int prec) {
          Expr inner = binary(cppOp, prec, a, b);
          Expr result("!(" + inner.text + ")", kUnary);
          result.merge(inner);
          return result;
        };
        switch (o.getPredicate()) {
        case P::AlwaysFalse:
          return Expr("false", kPrimary);
        case P::AlwaysTrue:
          return Expr("true", kPrimary);
        case P::OEQ:
          return binary("==", kEq, a, b);
        case P::OGT:
          return binary(">", kRel, a, b);
        case P::OGE:
          return binary(">=", kRel, a, b);
        case P::OLT:
          return binary("<", kRel, a, b);
        case P::OLE:
          return binary("<=", kRel, a, b);
        case P::UNE:
          return binary("!=", kEq, a, b);
        case P::UGT:
          return negated("<=", kRel);
        case P::UGE:
          return negated("<", kRel);
        case P::ULT:
          return negated(">=", kRel);
        case P::ULE:
          return negated(">", kRel);
        case P::ONE:
          return call("ksc::ordered_not_equal", {a, b});
        case P::UEQ:
          return call("ksc::unordered_or_equal", {a, b});
        case P::ORD:
          return call("ksc::ordered", {a, b});
        case P::UNO:
          return call("ksc::unordered", {a, b});
        }
        llvm_unreachable("unknown cmpf predicate");
      })
      .Case([&](arith::SelectOp o) -> FailureOr<Expr> {
        Value c = o.getCondition(), t = o.getTrueValue(), f = o.getFalseValue();
        // Selects between booleans read better as logic.
        if (isBool(t)) {
          if (isConstantInt(t, 1))
            return binary("||", kLogOr, c, f);
          if (isConstantInt(f, 0))
            return binary("&&", kLogAnd, c, t);
          if (isConstantInt(t, 0))
            return binary("&&", kLogAnd, negate(c), valueExpr(f));
          if (isConstantInt(f, 1))
            return binary("||", kLogOr, negate(c), valueExpr(t));
        }
        if (isI32(t)) {
          // Both operands of the type of the result.
          bool u = isUnsigned(result0);
          return withUnsigned(
              ternary(valueExpr(c), operandAs(t, u), operandAs(f, u)), u);
        }
        return ternary(valueExpr(c), valueExpr(t), valueExpr(f));
      })
      .Case<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(
          [&](auto o) -> FailureOr<Expr> {
            // CUDA's ::min and ::max are the device overloads (std::min
            // is a constexpr host function there).
            bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(op);
            StringRef callee = isCuda() ? (isMin ? "::min" : "::max")
                                        : (isMin ? "std::min" : "std::max");
            bool u = isa<arith::MinUIOp, arith::MaxUIOp>(op);
            if (isI32(o.getLhs()))
              return withUnsigned(call(callee, {operandAs(o.getLhs(), u),
                                                operandAs(o.getRhs(), u)}),
                                  u);
            if (!u)
              return call(callee, {o.getLhs(), o.getRhs()});
            std::string utype = unsignedName(resultType);
            FailureOr<std::string> type = typeOf(resultType);
            if (failed(type))
              return failure();
            return castTo(*type, call(callee, {castTo(utype, valueExpr(o.getLhs())),
                                               castTo(utype, valueExpr(o.getRhs()))}));
          })
      .Case<arith::MinNumFOp, arith::MaxNumFOp>([&](auto o) {
        return call(isa<arith::MinNumFOp>(op) ? "std::fmin" : "std::fmax",
                    {o.getLhs(), o.getRhs()});
      })
      .Case<arith::MinimumFOp, arith::MaximumFOp>([&](auto o) {
        return call(isa<arith::MinimumFOp>(op) ? "ksc::minimum"
                                               : "ksc::maximum",
                    {o.getLhs(), o.getRhs()});
      })
      .Case([&](arith::ExtSIOp o) -> FailureOr<Expr> {
        FailureOr<std::string> type = resultTypeName();
        if (failed(type))
          return failure();
        if (isBool(o.getIn())) {
          // Sign-extending a bool gives -1 for true.
          Expr in = valueExpr(o.getIn());
          Expr result("-" + castTo(*type, in).text, kUnary);
          result.merge(in);
          return withUnsigned(result, isUnsigned(result0));
        }
        return castTo(*type, operandAs(o.getIn(), false));
      })
      .Case<arith::ExtUIOp, arith::UIToFPOp>([&](auto o) -> FailureOr<Expr> {
        FailureOr<std::string> type = resultTypeName();
        if (failed(type))
          return failure();
        Expr in = valueExpr(o.getIn());
        if (isI32(o.getIn()))
          in = operandAs(o.getIn(), true);
        else if (!isBool(o.getIn()))
          in = castTo(unsignedName(o.getIn().getType()), in);
        return withUnsigned(castTo(*type, in), isUnsigned(result0));
      })
      .Case([&](arith::FPToUIOp o) -> FailureOr<Expr> {
        if (isI32(result0))
          return withUnsigned(castTo("uint32_t", valueExpr(o.getIn())), true);
        FailureOr<std::string> type = typeOf(resultType);
        if (failed(type))
          return failure();
        return castTo(*type,
                      castTo(unsignedName(resultType), valueExpr(o.getIn())));
      })
      .Case([&](arith::TruncIOp o) -> FailureOr<Expr> {
        if (resultType.isSignlessInteger(1)) {
          Expr in = valueExpr(o.getIn());
          Expr result("(" + operand(in, kBitAnd + 1) + " & 1) != 0", kEq);
          result.merge(in);
          return result;
        }
        FailureOr<std::string> type = resultTypeName();
        if (failed(type))
          return failure();
        return withUnsigned(castTo(*type, valueExpr(o.getIn())),
                            isUnsigned(result0));
      })
      .Case<arith::SIToFPOp>([&](auto o) -> FailureOr<Expr> {
        FailureOr<std::string> type = typeOf(resultType);
        if (failed(type))
          return failure();
        return castTo(*type, operandAs(o.getIn(), false));
      })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::FPToSIOp>(
          [&](auto o) -> FailureOr<Expr> {
            FailureOr<std::string> type = typeOf(resultType);
            if (failed(type))
              return failure();
            return castTo(*type, valueExpr(o.getIn()));
          })
      .Case([&](arith::BitcastOp o) -> FailureOr<Expr> {
        FailureOr<std::string> type = typeOf(resultType);
        if (failed(type))
          return failure();
        Expr in = valueExpr(o.getIn());
        Expr result("ksc::bit_cast<" + *type + ">(" + in.text + ")", kPostfix);
        result.merge(in);
        return result;
      })
      .Default([&](Operation *) -> FailureOr<Expr> {
        return op.emitError("cannot emit '")
               << op.getName() << "' as C++ (not supported by the C++ "
               << "emitter)";
      });
}

//===----------------------------------------------------------------------===//
// math
//===----------------------------------------------------------------------===//

FailureOr<Expr> Emitter::buildMathExpr(Operation &op) {
  StringRef name = op.getName().stripDialect();
  // Operations that are one C++ library call of the same arity.
  StringRef callee = llvm::StringSwitch<StringRef>(name)
                         .Case("absf", "std::fabs")
                         .Case("absi", "std::abs")
                         .Case("acos", "std::acos")
                         .Case("acosh", "std::acosh")
                         .Case("asin", "std::asin")
                         .Case("asinh", "std::asinh")
                         .Case("atan", "std::atan")
                         .Case("atan2", "std::atan2")
                         .Case("atanh", "std::atanh")
                         .Case("cbrt", "std::cbrt")
                         .Case("ceil", "std::ceil")
                         .Case("copysign", "std::copysign")
                         .Case("cos", "std::cos")
                         .Case("cosh", "std::cosh")
                         .Case("erf", "std::erf")
                         .Case("erfc", "std::erfc")
                         .Case("exp", "std::exp")
                         .Case("exp2", "std::exp2")
                         .Case("expm1", "std::expm1")
                         .Case("floor", "std::floor")
                         .Case("fma", "std::fma")
                         .Case("isfinite", "std::isfinite")
                         .Case("isinf", "std::isinf")
                         .Case("isnan", "std::isnan")
                         .Case("log", "std::log")
                         .Case("log10", "std::log10")
                         .Case("log1p", "std::log1p")
                         .Case("log2", "std::log2")
                         .Case("powf", "std::pow")
                         .Case("round", "std::round")
                         .Case("roundeven", "std::nearbyint")
                         .Case("sin", "std::sin")
                         .Case("sinh", "std::sinh")
                         .Case("sqrt", "std::sqrt")
                         .Case("tan", "std::tan")
                         .Case("tanh", "std::tanh")
                         .Case("trunc", "std::trunc")
                         .Default("");
  // The integer operands of math operations (absi, fpowi) are signed.
  SmallVector<Expr> args;
  for (Value operand : op.getOperands())
    args.push_back(operandAs(operand, false));
  if (!callee.empty())
    return call(callee, args);
  if (name == "fpowi") {
    // std::pow with an integer argument computes in double; an f32 result
    // must be rounded back to float before it is used.
    Expr power = call("std::pow", args);
    if (op.getResult(0).getType().isF32())
      return castTo("float", power);
    return power;
  }
  if (name == "rsqrt") {
    Expr root = call("std::sqrt", op.getOperands());
    std::string one = op.getResult(0).getType().isF32() ? "1.0f" : "1.0";
    Expr result(one + " / " + root.text, kMul);
    result.merge(root);
    return result;
  }
  return op.emitError("cannot emit '")
         << op.getName() << "' as C++ (not supported by the C++ emitter)";
}
