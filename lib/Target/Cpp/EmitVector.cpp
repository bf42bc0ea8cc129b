//===- EmitVector.cpp - Vectors and matrices as C++ -------------------===//
//
// Part of ksc. `vector<3xf32>` is the runtime's `ksc::vec3`, `vector<3x3xf32>`
// its `ksc::mat33`. Components read as `v.x`, `v[i]`, `m[i]` and `m[i][j]`;
// `vector.insert` is an assignment to a component of a variable (which takes
// over the variable of the value it updates when that value dies there);
// the linear algebra of the ks dialect calls the runtime's functions of the
// same names, and `ks.matmul` is `*`. Component-wise arithmetic is printed
// with the arith operations (EmitArith.cpp), using `scalarOperand` to print
// `v * s` for a product with a broadcast scalar.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

std::optional<std::string> ksc::cpp::vectorTypeName(VectorType type) {
  Type element = type.getElementType();
  std::string suffix = element.isF32()                   ? ""
                       : element.isF64()                 ? "d"
                       : element.isSignlessInteger(32)   ? "i"
                                                         : "?";
  if (suffix == "?" || type.isScalable())
    return std::nullopt;
  int64_t n = type.getDimSize(0);
  if (n < 2 || n > 4)
    return std::nullopt;
  if (type.getRank() == 1)
    return "ksc::vec" + std::to_string(n) + suffix;
  if (type.getRank() == 2 && type.getDimSize(1) == n && suffix != "i")
    return "ksc::mat" + std::to_string(n) + std::to_string(n) + suffix;
  return std::nullopt;
}

/// The name of component `position` of a vector: x, y, z, w.
static std::string componentName(int64_t position) {
  return std::string(1, "xyzw"[position]);
}

/// `base` followed by the component at `positions`: `.x`, `[i]`, `[i][j]`.
static Expr componentOf(Emitter &emitter, const Expr &base,
                        ArrayRef<OpFoldResult> positions, bool isVector) {
  Expr result;
  result.merge(base);
  std::string text = Emitter::operand(base, kPostfix);
  for (OpFoldResult position : positions) {
    if (auto attr = dyn_cast<Attribute>(position)) {
      int64_t index = cast<IntegerAttr>(attr).getInt();
      // A vector's components by name; a matrix's rows and elements by
      // index.
      text += isVector ? "." + componentName(index)
                       : "[" + std::to_string(index) + "]";
      continue;
    }
    Expr index = emitter.valueExpr(cast<Value>(position));
    text += "[" + Emitter::operand(index, kAssign) + "]";
    result.merge(index);
  }
  result.text = std::move(text);
  result.prec = kPostfix;
  return result;
}

FailureOr<Expr> Emitter::vectorLiteral(DenseElementsAttr value,
                                       Location loc) {
  std::optional<std::string> type =
      vectorTypeName(cast<VectorType>(value.getType()));
  if (!type)
    return emitError(loc) << "cannot emit constant " << value << " as C++";
  std::string text = *type + "(";
  llvm::ListSeparator sep;
  // A splat has every component the same: `ksc::vec3(0.0f)`.
  auto elements = value.isSplat()
                      ? SmallVector<Attribute>{value.getSplatValue<Attribute>()}
                      : llvm::to_vector(value.getValues<Attribute>());
  for (Attribute element : elements) {
    FailureOr<Expr> literalText = literal(element, loc);
    if (failed(literalText))
      return failure();
    text += std::string(StringRef(sep)) + operand(*literalText, kAssign);
  }
  return Expr(text + ")", kPostfix);
}

std::optional<Expr> Emitter::scalarOperand(Value value) {
  // A splat constant: its scalar literal.
  DenseElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant)) && constant.isSplat()) {
    FailureOr<Expr> scalar =
        literal(constant.getSplatValue<Attribute>(), value.getLoc());
    if (succeeded(scalar))
      return *scalar;
    return std::nullopt;
  }
  auto broadcast = value.getDefiningOp<vector::BroadcastOp>();
  // Only a broadcast printed at this use: the scalar is read here.
  if (!broadcast || !isInlined(broadcast) ||
      isa<VectorType>(broadcast.getSource().getType()))
    return std::nullopt;
  return valueExpr(broadcast.getSource());
}

FailureOr<Expr> Emitter::buildVectorExpr(Operation &op) {
  Location loc = op.getLoc();
  auto resultTypeName = [&]() -> FailureOr<std::string> {
    return typeName(op.getResult(0).getType(), loc);
  };
  return llvm::TypeSwitch<Operation *, FailureOr<Expr>>(&op)
      .Case([&](vector::BroadcastOp o) -> FailureOr<Expr> {
        if (isa<VectorType>(o.getSource().getType()))
          return o.emitError("cannot emit a broadcast of a vector as C++");
        FailureOr<std::string> type = resultTypeName();
        if (failed(type))
          return failure();
        return call(*type, o.getSource());
      })
      .Case([&](vector::FromElementsOp o) -> FailureOr<Expr> {
        FailureOr<std::string> type = resultTypeName();
        if (failed(type))
          return failure();
        return call(*type, o.getElements());
      })
      .Case([&](vector::ExtractOp o) -> FailureOr<Expr> {
        auto source = cast<VectorType>(o.getSource().getType());
        return componentOf(*this, valueExpr(o.getSource()),
                           o.getMixedPosition(), source.getRank() == 1);
      })
      .Case([&](vector::TransposeOp o) -> FailureOr<Expr> {
        return call("ksc::transpose", o.getVector());
      })
      .Case([&](ks::MatmulOp o) {
        return binary("*", kMul, o.getLhs(), o.getRhs());
      })
      .Case([&](ks::DotOp o) {
        return call("ksc::dot", {o.getLhs(), o.getRhs()});
      })
      .Case([&](ks::LengthOp o) { return call("ksc::length", o.getVector()); })
      .Case([&](ks::NormalizeOp o) {
        return call(o.getQuaternion() ? "ksc::quat_normalize"
                                      : "ksc::normalize",
                    o.getVector());
      })
      .Case([&](ks::CrossOp o) {
        return call("ksc::cross", {o.getLhs(), o.getRhs()});
      })
      .Case([&](ks::OuterOp o) {
        return call("ksc::outer", {o.getLhs(), o.getRhs()});
      })
      .Case([&](ks::DeterminantOp o) {
        return call("ksc::determinant", o.getMatrix());
      })
      .Case(
          [&](ks::InverseOp o) { return call("ksc::inverse", o.getMatrix()); })
      // Quaternions are ksc::vec4 in C++ (x, y, z, w).
      .Case([&](ks::QuatMulOp o) {
        return call("ksc::quat_mul", {o.getLhs(), o.getRhs()});
      })
      .Case([&](ks::QuatRotateOp o) {
        return call("ksc::quat_rotate", {o.getQuat(), o.getVector()});
      })
      .Case([&](ks::QuatRotateInvOp o) {
        return call("ksc::quat_rotate_inv", {o.getQuat(), o.getVector()});
      })
      .Case([&](ks::QuatToMatrixOp o) {
        return call("ksc::quat_to_matrix", o.getQuat());
      })
      .Default([&](Operation *) -> FailureOr<Expr> {
        return op.emitError("cannot emit '")
               << op.getName() << "' as C++ (not supported by the C++ "
               << "emitter)";
      });
}

LogicalResult Emitter::emitComponentUpdate(
    Operation *op, Value dest, const Expr &value,
    function_ref<Expr(const Expr &)> component) {
  Value result = op->getResult(0);
  StringRef name = getSourceName(result);
  // Update the variable of `dest` in place when `dest` dies here and the
  // variable stands for the same source variable; else copy it first.
  std::optional<unsigned> var;
  if (auto it = varOf.find(dest); it != varOf.end()) {
    Var &v = vars[it->second];
    if (v.reusable && v.current == dest && !isLiveAfter(dest, op) &&
        (name.empty() || v.baseName == name))
      var = it->second;
  }
  if (!var) {
    Expr whole = valueExpr(dest);
    var = newVar(chooseName(result), result.getType());
    os << declare(*var) << " = " << whole.text << ";\n";
  }
  bindVar(result, *var);
  Expr target = component(Expr(vars[*var].name, kPrimary));
  os << target.text << " = " << operand(value, kAssign) << ";\n";
  return success();
}

LogicalResult Emitter::emitVectorInsert(vector::InsertOp op) {
  return emitComponentUpdate(
      op, op.getDest(), valueExpr(op.getValueToStore()),
      [&](const Expr &whole) {
        return componentOf(*this, whole, op.getMixedPosition(),
                           op.getDestVectorType().getRank() == 1);
      });
}
