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

namespace {
/// Prints one arith operation as a C++ expression, with a method per op
/// family. i32 values live in int or uint32_t variables (Signedness.cpp):
/// each printer converts its operands to the type the operation needs.
class ArithPrinter {
public:
  ArithPrinter(Emitter &e, Operation &op)
      : e(e), op(op), loc(op.getLoc()), result0(op.getResult(0)),
        resultType(result0.getType()) {}

  FailureOr<Expr> print();

private:
  FailureOr<std::string> typeOf(Type type) { return e.typeName(type, loc); }
  /// The type to convert an i32 result to (`int` or `uint32_t`).
  FailureOr<std::string> resultTypeName() {
    return typeOf(e.cppType(result0));
  }
  static bool isBool(Value v) { return v.getType().isSignlessInteger(1); }
  static bool isI32(Value v) { return v.getType().isSignlessInteger(32); }
  static Expr withUnsigned(Expr expr, bool isUnsigned) {
    expr.isUnsigned = isUnsigned;
    return expr;
  }
  /// An i32 operation done in uint32_t (`u`) or int: the operands
  /// converted, the result of that type.
  Expr i32Binary(StringRef cppOp, int prec, Value lhs, Value rhs, bool u) {
    return withUnsigned(
        e.binary(cppOp, prec, e.operandAs(lhs, u), e.operandAs(rhs, u)), u);
  }
  FailureOr<Expr> unsignedBinary(StringRef cppOp, int prec, Value lhs,
                                 Value rhs);
  FailureOr<Expr> wrapping(Operation *o, StringRef cppOp);
  /// Bitwise operations and shifts left work on either type: on uint32_t
  /// if the result is declared one or an operand is one.
  bool bitwiseIsUnsigned(ValueRange operands) {
    return e.isUnsigned(result0) ||
           llvm::any_of(operands, [&](Value v) {
             return !matchPattern(v, m_Constant()) &&
                    e.valueExpr(v).isUnsigned;
           });
  }

  FailureOr<Expr> printMul(Value lhs, Value rhs);
  FailureOr<Expr> printDivRem(Value lhs, Value rhs);
  FailureOr<Expr> printAndOr(Value lhs, Value rhs);
  FailureOr<Expr> printXOr(arith::XOrIOp o);
  FailureOr<Expr> printShift(Operation *o);
  FailureOr<Expr> printCmpI(arith::CmpIOp o);
  FailureOr<Expr> printCmpF(arith::CmpFOp o);
  FailureOr<Expr> printSelect(arith::SelectOp o);
  FailureOr<Expr> printIntMinMax(Value lhs, Value rhs);
  FailureOr<Expr> printIntCast(Operation *o);
  FailureOr<Expr> printFloatCast(Operation *o);

  Emitter &e;
  Operation &op;
  Location loc;
  Value result0;
  Type resultType;
};
} // namespace

FailureOr<Expr> Emitter::buildArithExpr(Operation &op) {
  return ArithPrinter(*this, op).print();
}

FailureOr<Expr> ArithPrinter::print() {
  return llvm::TypeSwitch<Operation *, FailureOr<Expr>>(&op)
      .Case([&](arith::ConstantOp c) {
        return e.literal(c.getValue(), loc, e.isUnsigned(result0));
      })
      .Case([&](arith::AddFOp o) {
        return e.binary("+", kAdd, o.getLhs(), o.getRhs());
      })
      .Case([&](arith::AddIOp o) -> FailureOr<Expr> {
        if (isBool(o.getLhs()))
          return e.binary("!=", kEq, o.getLhs(), o.getRhs());
        return wrapping(o, "+");
      })
      .Case<arith::SubFOp>(
          [&](auto o) { return e.binary("-", kAdd, o.getLhs(), o.getRhs()); })
      .Case([&](arith::SubIOp o) -> FailureOr<Expr> {
        if (isBool(o.getLhs()))
          return e.binary("!=", kEq, o.getLhs(), o.getRhs());
        return wrapping(o, "-");
      })
      .Case<arith::MulFOp, arith::MulIOp>(
          [&](auto o) { return printMul(o.getLhs(), o.getRhs()); })
      .Case<arith::DivFOp, arith::DivSIOp, arith::RemSIOp, arith::DivUIOp,
            arith::RemUIOp>(
          [&](auto o) { return printDivRem(o.getLhs(), o.getRhs()); })
      // A component index is used as the int it was.
      .Case([&](arith::IndexCastOp o) { return e.valueExpr(o.getIn()); })
      .Case([&](arith::RemFOp o) {
        return e.call("std::fmod", {o.getLhs(), o.getRhs()});
      })
      .Case([&](arith::NegFOp o) { return e.unary("-", o.getOperand()); })
      .Case<arith::AndIOp, arith::OrIOp>(
          [&](auto o) { return printAndOr(o.getLhs(), o.getRhs()); })
      .Case([&](arith::XOrIOp o) { return printXOr(o); })
      .Case<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(
          [&](auto o) { return printShift(o); })
      .Case([&](arith::CmpIOp o) { return printCmpI(o); })
      .Case([&](arith::CmpFOp o) { return printCmpF(o); })
      .Case([&](arith::SelectOp o) { return printSelect(o); })
      .Case<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(
          [&](auto o) { return printIntMinMax(o.getLhs(), o.getRhs()); })
      .Case<arith::MinNumFOp, arith::MaxNumFOp>([&](auto o) {
        return e.call(isa<arith::MinNumFOp>(op) ? "std::fmin" : "std::fmax",
                      {o.getLhs(), o.getRhs()});
      })
      .Case<arith::MinimumFOp, arith::MaximumFOp>([&](auto o) {
        return e.call(isa<arith::MinimumFOp>(op) ? "ksc::minimum"
                                                 : "ksc::maximum",
                      {o.getLhs(), o.getRhs()});
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::UIToFPOp, arith::FPToUIOp,
            arith::TruncIOp>([&](auto o) { return printIntCast(o); })
      .Case<arith::SIToFPOp, arith::ExtFOp, arith::TruncFOp, arith::FPToSIOp,
            arith::BitcastOp>([&](auto o) { return printFloatCast(o); })
      .Default([&](Operation *) -> FailureOr<Expr> {
        return op.emitError("cannot emit '")
               << op.getName() << "' as C++ (not supported by the C++ "
               << "emitter)";
      });
}

/// An operation of another width on the unsigned view of its operands
/// (`uint64_t(a) / uint64_t(b)`), converted back to the signed result type.
FailureOr<Expr> ArithPrinter::unsignedBinary(StringRef cppOp, int prec,
                                             Value lhs, Value rhs) {
  std::string utype = unsignedName(lhs.getType());
  Expr result = e.binary(cppOp, prec, Emitter::castTo(utype, e.valueExpr(lhs)),
                         Emitter::castTo(utype, e.valueExpr(rhs)));
  if (resultType.isSignlessInteger(1))
    return result;
  FailureOr<std::string> type = typeOf(resultType);
  if (failed(type))
    return failure();
  return Emitter::castTo(*type, result);
}

/// +, - and *: signed without overflow (nsw), or wrapping, which C++ only
/// has for unsigned types.
FailureOr<Expr> ArithPrinter::wrapping(Operation *o, StringRef cppOp) {
  Value lhs = o->getOperand(0), rhs = o->getOperand(1);
  bool nsw =
      cast<arith::ArithIntegerOverflowFlagsInterface>(o).hasNoSignedWrap();
  bool negation = isa<arith::SubIOp>(o) && isConstantInt(lhs, 0);
  int prec = cppOp == "*" ? kMul : kAdd;
  // Vectors of ints: the runtime's component-wise operators.
  if (isa<VectorType>(lhs.getType()))
    return negation ? e.unary("-", rhs) : e.binary(cppOp, prec, lhs, rhs);
  if (isI32(lhs)) {
    if (negation)
      return withUnsigned(e.unary("-", e.operandAs(rhs, !nsw)), !nsw);
    return i32Binary(cppOp, prec, lhs, rhs, !nsw);
  }
  if (nsw) {
    if (negation)
      return e.unary("-", rhs);
    return e.binary(cppOp, prec, lhs, rhs);
  }
  if (negation) {
    FailureOr<std::string> type = typeOf(resultType);
    if (failed(type))
      return failure();
    return Emitter::castTo(
        *type, e.unary("-", Emitter::castTo(unsignedName(resultType),
                                            e.valueExpr(rhs))));
  }
  return unsignedBinary(cppOp, prec, lhs, rhs);
}

FailureOr<Expr> ArithPrinter::printMul(Value lhs, Value rhs) {
  if (isBool(lhs))
    return e.binary("&&", kLogAnd, lhs, rhs);
  // Vectors and matrices: scaled by a scalar, or component-wise.
  if (isa<VectorType>(resultType)) {
    if (std::optional<Expr> s = e.scalarOperand(rhs))
      return e.binary("*", kMul, e.valueExpr(lhs), *s);
    if (std::optional<Expr> s = e.scalarOperand(lhs))
      return e.binary("*", kMul, *s, e.valueExpr(rhs));
    return e.call("ksc::cw_mul", {lhs, rhs});
  }
  if (isa<arith::MulIOp>(op))
    return wrapping(&op, "*");
  return e.binary("*", kMul, lhs, rhs);
}

FailureOr<Expr> ArithPrinter::printDivRem(Value lhs, Value rhs) {
  if (isa<arith::DivUIOp, arith::RemUIOp>(op)) {
    StringRef cppOp = isa<arith::DivUIOp>(op) ? "/" : "%";
    if (isI32(lhs))
      return i32Binary(cppOp, kMul, lhs, rhs, true);
    return unsignedBinary(cppOp, kMul, lhs, rhs);
  }
  StringRef cppOp = isa<arith::RemSIOp>(op) ? "%" : "/";
  // Vectors and matrices: divided by a scalar, or component-wise.
  if (isa<VectorType>(resultType) && cppOp == "/") {
    if (std::optional<Expr> s = e.scalarOperand(rhs))
      return e.binary("/", kMul, e.valueExpr(lhs), *s);
    return e.call("ksc::cw_div", {lhs, rhs});
  }
  if (isI32(lhs))
    return i32Binary(cppOp, kMul, lhs, rhs, false);
  return e.binary(cppOp, kMul, lhs, rhs);
}

FailureOr<Expr> ArithPrinter::printAndOr(Value lhs, Value rhs) {
  bool isAnd = isa<arith::AndIOp>(op);
  if (isBool(lhs))
    return isAnd ? e.binary("&&", kLogAnd, lhs, rhs)
                 : e.binary("||", kLogOr, lhs, rhs);
  StringRef cppOp = isAnd ? "&" : "|";
  int prec = isAnd ? kBitAnd : kBitOr;
  if (isI32(lhs))
    return i32Binary(cppOp, prec, lhs, rhs,
                     bitwiseIsUnsigned(op.getOperands()));
  return e.binary(cppOp, prec, lhs, rhs);
}

FailureOr<Expr> ArithPrinter::printXOr(arith::XOrIOp o) {
  bool u = isI32(o.getLhs()) && bitwiseIsUnsigned(o->getOperands());
  for (auto [a, b] : {std::pair(o.getLhs(), o.getRhs()),
                      std::pair(o.getRhs(), o.getLhs())})
    if (isConstantInt(b, -1) || (isBool(a) && isConstantInt(b, 1))) {
      if (isBool(a))
        return e.unary("!", a);
      return withUnsigned(e.unary("~", e.operandAs(a, u)), u);
    }
  if (isBool(o.getLhs()))
    return e.binary("!=", kEq, o.getLhs(), o.getRhs());
  if (isI32(o.getLhs()))
    return i32Binary("^", kBitXor, o.getLhs(), o.getRhs(), u);
  return e.binary("^", kBitXor, o.getLhs(), o.getRhs());
}

/// The shift amount keeps its type, as in C++.
FailureOr<Expr> ArithPrinter::printShift(Operation *o) {
  Value lhs = o->getOperand(0), rhs = o->getOperand(1);
  if (isa<arith::ShLIOp>(o)) {
    if (isI32(lhs)) {
      bool u = bitwiseIsUnsigned(lhs);
      return withUnsigned(e.binary("<<", kShift, e.operandAs(lhs, u),
                                   e.valueExpr(rhs)),
                          u);
    }
    return e.binary("<<", kShift, lhs, rhs);
  }
  if (isa<arith::ShRSIOp>(o)) {
    if (isI32(lhs))
      return e.binary(">>", kShift, e.operandAs(lhs, false), e.valueExpr(rhs));
    return e.binary(">>", kShift, lhs, rhs);
  }
  // A logical shift: >> of an unsigned type.
  if (isI32(lhs))
    return withUnsigned(
        e.binary(">>", kShift, e.operandAs(lhs, true), e.valueExpr(rhs)),
        true);
  return unsignedBinary(">>", kShift, lhs, rhs);
}

FailureOr<Expr> ArithPrinter::printCmpI(arith::CmpIOp o) {
  using P = arith::CmpIPredicate;
  // A signed i1 is -1 or 0; C++ promotes bool to 1 or 0.
  if (isBool(o.getLhs()) &&
      llvm::is_contained({P::slt, P::sle, P::sgt, P::sge}, o.getPredicate())) {
    StringRef cppOp = o.getPredicate() == P::slt   ? "<"
                      : o.getPredicate() == P::sle ? "<="
                      : o.getPredicate() == P::sgt ? ">"
                                                   : ">=";
    return e.binary(cppOp, kRel, e.unary("-", o.getLhs()),
                    e.unary("-", o.getRhs()));
  }
  auto [lhs, rhs] = e.comparisonOperands(o);
  switch (o.getPredicate()) {
  case P::eq:
    return e.binary("==", kEq, lhs, rhs);
  case P::ne:
    return e.binary("!=", kEq, lhs, rhs);
  case P::slt:
  case P::ult:
    return e.binary("<", kRel, lhs, rhs);
  case P::sle:
  case P::ule:
    return e.binary("<=", kRel, lhs, rhs);
  case P::sgt:
  case P::ugt:
    return e.binary(">", kRel, lhs, rhs);
  case P::sge:
  case P::uge:
    return e.binary(">=", kRel, lhs, rhs);
  }
  llvm_unreachable("unknown cmpi predicate");
}

FailureOr<Expr> ArithPrinter::printCmpF(arith::CmpFOp o) {
  using P = arith::CmpFPredicate;
  Value a = o.getLhs(), b = o.getRhs();
  // Unordered predicates are the negations of ordered ones.
  auto negated = [&](StringRef cppOp, int prec) {
    Expr inner = e.binary(cppOp, prec, a, b);
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
    return e.binary("==", kEq, a, b);
  case P::OGT:
    return e.binary(">", kRel, a, b);
  case P::OGE:
    return e.binary(">=", kRel, a, b);
  case P::OLT:
    return e.binary("<", kRel, a, b);
  case P::OLE:
    return e.binary("<=", kRel, a, b);
  case P::UNE:
    return e.binary("!=", kEq, a, b);
  case P::UGT:
    return negated("<=", kRel);
  case P::UGE:
    return negated("<", kRel);
  case P::ULT:
    return negated(">=", kRel);
  case P::ULE:
    return negated(">", kRel);
  case P::ONE:
    return e.call("ksc::ordered_not_equal", {a, b});
  case P::UEQ:
    return e.call("ksc::unordered_or_equal", {a, b});
  case P::ORD:
    return e.call("ksc::ordered", {a, b});
  case P::UNO:
    return e.call("ksc::unordered", {a, b});
  }
  llvm_unreachable("unknown cmpf predicate");
}

FailureOr<Expr> ArithPrinter::printSelect(arith::SelectOp o) {
  Value c = o.getCondition(), t = o.getTrueValue(), f = o.getFalseValue();
  // Selects between booleans read better as logic.
  if (isBool(t)) {
    if (isConstantInt(t, 1))
      return e.binary("||", kLogOr, c, f);
    if (isConstantInt(f, 0))
      return e.binary("&&", kLogAnd, c, t);
    if (isConstantInt(t, 0))
      return e.binary("&&", kLogAnd, e.negate(c), e.valueExpr(f));
    if (isConstantInt(f, 1))
      return e.binary("||", kLogOr, e.negate(c), e.valueExpr(t));
  }
  if (isI32(t)) {
    // Both operands of the type of the result.
    bool u = e.isUnsigned(result0);
    return withUnsigned(
        e.ternary(e.valueExpr(c), e.operandAs(t, u), e.operandAs(f, u)), u);
  }
  return e.ternary(e.valueExpr(c), e.valueExpr(t), e.valueExpr(f));
}

FailureOr<Expr> ArithPrinter::printIntMinMax(Value lhs, Value rhs) {
  // CUDA's ::min and ::max are the device overloads (std::min is a
  // constexpr host function there).
  bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(op);
  StringRef callee = e.isCuda() ? (isMin ? "::min" : "::max")
                                : (isMin ? "std::min" : "std::max");
  bool u = isa<arith::MinUIOp, arith::MaxUIOp>(op);
  if (isI32(lhs))
    return withUnsigned(
        e.call(callee, {e.operandAs(lhs, u), e.operandAs(rhs, u)}), u);
  if (!u)
    return e.call(callee, {lhs, rhs});
  std::string utype = unsignedName(resultType);
  FailureOr<std::string> type = typeOf(resultType);
  if (failed(type))
    return failure();
  return Emitter::castTo(
      *type, e.call(callee, {Emitter::castTo(utype, e.valueExpr(lhs)),
                             Emitter::castTo(utype, e.valueExpr(rhs))}));
}

/// Conversions from and to integers whose signedness matters.
FailureOr<Expr> ArithPrinter::printIntCast(Operation *o) {
  Value in = o->getOperand(0);
  if (isa<arith::FPToUIOp>(o)) {
    if (isI32(result0))
      return withUnsigned(Emitter::castTo("uint32_t", e.valueExpr(in)), true);
    FailureOr<std::string> type = typeOf(resultType);
    if (failed(type))
      return failure();
    return Emitter::castTo(
        *type, Emitter::castTo(unsignedName(resultType), e.valueExpr(in)));
  }
  if (isa<arith::TruncIOp>(o) && resultType.isSignlessInteger(1)) {
    Expr value = e.valueExpr(in);
    Expr result("(" + Emitter::operand(value, kBitAnd + 1) + " & 1) != 0",
                kEq);
    result.merge(value);
    return result;
  }
  FailureOr<std::string> type = resultTypeName();
  if (failed(type))
    return failure();
  if (isa<arith::TruncIOp>(o))
    return withUnsigned(Emitter::castTo(*type, e.valueExpr(in)),
                        e.isUnsigned(result0));
  if (isa<arith::ExtSIOp>(o)) {
    if (isBool(in)) {
      // Sign-extending a bool gives -1 for true.
      Expr value = e.valueExpr(in);
      Expr result("-" + Emitter::castTo(*type, value).text, kUnary);
      result.merge(value);
      return withUnsigned(result, e.isUnsigned(result0));
    }
    return Emitter::castTo(*type, e.operandAs(in, false));
  }
  // extui, uitofp.
  Expr value = e.valueExpr(in);
  if (isI32(in))
    value = e.operandAs(in, true);
  else if (!isBool(in))
    value = Emitter::castTo(unsignedName(in.getType()), value);
  return withUnsigned(Emitter::castTo(*type, value), e.isUnsigned(result0));
}

/// Conversions to and between floats, and bit casts.
FailureOr<Expr> ArithPrinter::printFloatCast(Operation *o) {
  Value in = o->getOperand(0);
  FailureOr<std::string> type = typeOf(resultType);
  if (failed(type))
    return failure();
  if (isa<arith::SIToFPOp>(o))
    return Emitter::castTo(*type, e.operandAs(in, false));
  if (isa<arith::BitcastOp>(o)) {
    Expr value = e.valueExpr(in);
    Expr result("ksc::bit_cast<" + *type + ">(" + value.text + ")", kPostfix);
    result.merge(value);
    return result;
  }
  return Emitter::castTo(*type, e.valueExpr(in));
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
