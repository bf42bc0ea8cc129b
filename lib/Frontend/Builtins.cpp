//===- Builtins.cpp - The builtin functions of the kernel language ----===//
//
// Part of ksc. Builds the calls of the builtins that include/ksc/Frontend/
// Builtins.def, the table of the builtins, builds with an operation
// (KSC_BUILTIN_OP) or with a function of this file (KSC_BUILTIN_FN). tid,
// identity, the atomics and the random-number builtins, which write their
// state argument, are built in CodeGenCall.cpp.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Frontend/Builtins.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::frontend;

namespace {
/// Builds a builtin from its arguments, which have the types of the prelude
/// overload Clang chose.
using Handler = Value (*)(OpBuilder &, Location, ValueRange);

/// One operation for floating-point operands, another for integers.
template <typename FloatOp, typename IntOp = void>
Value build(OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(getElementTypeOrSelf(args[0].getType())))
    return FloatOp::create(b, loc, args).getResult();
  if constexpr (!std::is_void_v<IntOp>)
    return IntOp::create(b, loc, args).getResult();
  llvm_unreachable("the prelude declares this builtin for floats only");
}

// Builtins with no single upstream operation are built from arith and math
// operations, in the order the documented formula reads, so that the emitted
// C++ reads like it.

/// `value` as a constant of `type` (a float or integer type).
Value constant(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

/// min(max(x, lo), hi), with the min and max builtins.
Value buildClamp(OpBuilder &b, Location loc, Value x, Value lo, Value hi) {
  Value low = build<arith::MaxNumFOp, arith::MaxSIOp>(b, loc, {x, lo});
  return build<arith::MinNumFOp, arith::MinSIOp>(b, loc, {low, hi});
}

Value clampBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  return buildClamp(b, loc, args[0], args[1], args[2]);
}

/// clamp for uint32_t: min(max(x, lo), hi), unsigned.
Value clampUnsignedBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Value low = arith::MaxUIOp::create(b, loc, args[0], args[1]);
  return arith::MinUIOp::create(b, loc, low, args[2]);
}

/// x < 0, signed for integers (ordered for floats: false for NaN).
Value isNegative(OpBuilder &b, Location loc, Value x) {
  Value zero = constant(b, loc, x.getType(), 0);
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
}

/// Warp's sign: x < 0 ? -1 : 1.
Value signBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Type type = args[0].getType();
  Value negative = isNegative(b, loc, args[0]);
  Value plus = constant(b, loc, type, 1);
  Value minus = constant(b, loc, type, -1);
  return arith::SelectOp::create(b, loc, negative, minus, plus);
}

/// Warp's step: x < 0 ? 1 : 0.
Value stepBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Type type = args[0].getType();
  Value negative = isNegative(b, loc, args[0]);
  Value zero = constant(b, loc, type, 0);
  Value one = constant(b, loc, type, 1);
  return arith::SelectOp::create(b, loc, negative, one, zero);
}

/// a * (1 - t) + b * t.
Value lerpBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Value a = args[0], end = args[1], t = args[2];
  Value one = constant(b, loc, t.getType(), 1);
  Value rest = arith::SubFOp::create(b, loc, one, t);
  Value left = arith::MulFOp::create(b, loc, a, rest);
  Value right = arith::MulFOp::create(b, loc, end, t);
  return arith::AddFOp::create(b, loc, left, right);
}

/// t * t * (3 - 2 * t) with t = clamp((x - edge0) / (edge1 - edge0), 0, 1).
Value smoothstepBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Value edge0 = args[0], edge1 = args[1], x = args[2];
  Type type = x.getType();
  Value offset = arith::SubFOp::create(b, loc, x, edge0);
  Value width = arith::SubFOp::create(b, loc, edge1, edge0);
  Value ratio = arith::DivFOp::create(b, loc, offset, width);
  Value one = constant(b, loc, type, 1);
  Value zero = constant(b, loc, type, 0);
  Value t = buildClamp(b, loc, ratio, zero, one);
  Value square = arith::MulFOp::create(b, loc, t, t);
  Value twice = arith::MulFOp::create(b, loc, constant(b, loc, type, 2), t);
  Value slope =
      arith::SubFOp::create(b, loc, constant(b, loc, type, 3), twice);
  return arith::MulFOp::create(b, loc, square, slope);
}

/// Warp's asin and acos: the operation on x clamped to [-1, 1].
template <typename Op>
Value clampedToUnit(OpBuilder &b, Location loc, ValueRange args) {
  Type type = args[0].getType();
  Value one = constant(b, loc, type, 1);
  Value minusOne = constant(b, loc, type, -1);
  Value x = buildClamp(b, loc, args[0], minusOne, one);
  return Op::create(b, loc, x);
}

// Vectors and matrices.

template <typename Op>
Value buildBinary(OpBuilder &b, Location loc, ValueRange args) {
  return Op::create(b, loc, args[0], args[1]);
}

template <typename Op> Value buildUnary(OpBuilder &b, Location loc,
                                        ValueRange args) {
  return Op::create(b, loc, args[0]);
}

/// dot(v, v).
Value lengthSqBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  return ks::DotOp::create(b, loc, args[0], args[0]);
}

/// sqrt(dot(v, v)), with a zero derivative at the zero vector.
Value lengthBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  return ks::LengthOp::create(b, loc, args[0]);
}

/// Warp's normalize: l = length(v); l > 0 ? v / l : zero.
Value normalizeBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  return ks::NormalizeOp::create(b, loc, args[0]);
}

/// The matrix a b^T.
Value outerBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  auto type = cast<VectorType>(args[0].getType());
  int64_t n = type.getDimSize(0);
  return ks::OuterOp::create(
      b, loc, VectorType::get({n, n}, type.getElementType()), args[0],
      args[1]);
}

Value transposeBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  return vector::TransposeOp::create(b, loc, args[0], {1, 0});
}

/// m[0][0] + m[1][1] + ...
Value traceBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  auto type = cast<VectorType>(args[0].getType());
  Value sum;
  for (int64_t i = 0; i < type.getDimSize(0); ++i) {
    Value element = vector::ExtractOp::create(b, loc, args[0],
                                              ArrayRef<int64_t>{i, i});
    sum = sum ? arith::AddFOp::create(b, loc, sum, element).getResult()
              : element;
  }
  return sum;
}

/// The matrix with v on its diagonal.
Value diagBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  auto type = cast<VectorType>(args[0].getType());
  int64_t n = type.getDimSize(0);
  Value zero = constant(b, loc, type.getElementType(), 0);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      elements.push_back(
          i == j ? vector::ExtractOp::create(b, loc, args[0], i).getResult()
                 : zero);
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({n, n}, type.getElementType()), elements);
}

// Quaternions (vector<4xT>), with Warp's formulas.
} // namespace

Value frontend::buildQuatIdentity(OpBuilder &b, Location loc,
                                  VectorType type) {
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < 4; ++i)
    values.push_back(b.getFloatAttr(type.getElementType(), i == 3 ? 1.0 : 0.0));
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

namespace {

/// (axis * sin(angle / 2), cos(angle / 2)), with angle / 2 as angle * 0.5.
Value quatFromAxisAngleBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Value axis = args[0], angle = args[1];
  Type element = angle.getType();
  Value half = arith::MulFOp::create(b, loc, angle, constant(b, loc, element, 0.5));
  Value w = math::CosOp::create(b, loc, half);
  Value sine = math::SinOp::create(b, loc, half);
  Value v = arith::MulFOp::create(
      b, loc, axis,
      vector::BroadcastOp::create(b, loc, axis.getType(), sine));
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 3; ++i)
    elements.push_back(vector::ExtractOp::create(b, loc, v, i));
  elements.push_back(w);
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({4}, element), elements);
}

/// (-x, -y, -z, w).
Value quatInverseBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  Value q = args[0];
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i) {
    Value c = vector::ExtractOp::create(b, loc, q, i);
    elements.push_back(i < 3 ? arith::NegFOp::create(b, loc, c).getResult()
                             : c);
  }
  return vector::FromElementsOp::create(b, loc, q.getType(), elements);
}

/// Warp's normalize of a quaternion: l = length(q); l > 0 ? q * (1 / l) :
/// the identity (0, 0, 0, 1).
} // namespace

Value frontend::buildQuatNormalize(OpBuilder &b, Location loc,
                                   ValueRange args) {
  auto normalize = ks::NormalizeOp::create(b, loc, args[0]);
  normalize.setQuaternion(true);
  return normalize;
}

namespace {

Value quatToMatrixBuiltin(OpBuilder &b, Location loc, ValueRange args) {
  auto type = cast<VectorType>(args[0].getType());
  return ks::QuatToMatrixOp::create(
      b, loc, VectorType::get({3, 3}, type.getElementType()), args[0]);
}

/// The builtins Builtins.def builds with an operation or a function here.
const llvm::StringMap<Handler> &builtinTable() {
  static const llvm::StringMap<Handler> table = {
#define KSC_BUILTIN_OP(NAME, GROUP, ARITY, OPERANDS, DOMAIN, FLOAT_OP, INT_OP) \
  {#NAME, build<FLOAT_OP, INT_OP>},
#define KSC_BUILTIN_FN(NAME, GROUP, ARITY, OPERANDS, DOMAIN, HANDLER)         \
  {#NAME, HANDLER},
#include "ksc/Frontend/Builtins.def"
  };
  return table;
}

/// The overloads for uint32_t of the builtins that have one.
const llvm::StringMap<Handler> &unsignedBuiltinTable() {
  static const llvm::StringMap<Handler> table = {
#define KSC_UNSIGNED_OVERLOAD(NAME, HANDLER) {#NAME, HANDLER},
#include "ksc/Frontend/Builtins.def"
  };
  return table;
}
} // namespace

std::optional<ks::AtomicKind>
frontend::getAtomicBuiltinKind(llvm::StringRef name) {
  if (!name.consume_front("atomic_"))
    return std::nullopt;
  return ks::symbolizeAtomicKind(name);
}

bool frontend::isBuiltin(llvm::StringRef name) {
  return builtinTable().count(name) || isRandomBuiltin(name);
}

bool frontend::isRandomBuiltin(llvm::StringRef name) {
  const BuiltinInfo *info = lookupBuiltin(name);
  return info && info->group == BuiltinGroup::Random;
}

FailureOr<Value> frontend::buildBuiltin(llvm::StringRef name, OpBuilder &b,
                                        Location loc, ValueRange args,
                                        bool isUnsigned) {
  const llvm::StringMap<Handler> &table =
      isUnsigned ? unsignedBuiltinTable() : builtinTable();
  auto it = table.find(name);
  if (it == table.end())
    return failure();
  return it->second(b, loc, args);
}
