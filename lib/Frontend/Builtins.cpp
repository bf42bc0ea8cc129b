//===- Builtins.cpp - The builtin functions of the kernel language ----===//
//
// Part of ksc. Maps the functions the prelude (include/ksc/dsl.h) declares
// to IR. To add a builtin: declare it in dsl.h, add a row to the table
// below, a row to the Builtins table of docs/language.md, and tests in
// test/Frontend/builtins.kdsl, test/Target/Cpp/math.kdsl and test/Run.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
  if (isa<FloatType>(args[0].getType()))
    return FloatOp::create(b, loc, args).getResult();
  if constexpr (!std::is_void_v<IntOp>)
    return IntOp::create(b, loc, args).getResult();
  llvm_unreachable("the prelude declares this builtin for floats only");
}

const llvm::StringMap<Handler> &builtinTable() {
  static const llvm::StringMap<Handler> table = {
      // Trigonometric and hyperbolic.
      {"sin", build<math::SinOp>},
      {"cos", build<math::CosOp>},
      {"tan", build<math::TanOp>},
      {"atan", build<math::AtanOp>},
      {"atan2", build<math::Atan2Op>},
      {"sinh", build<math::SinhOp>},
      {"cosh", build<math::CoshOp>},
      {"tanh", build<math::TanhOp>},
      // Exponentials, logarithms, powers and roots.
      {"exp", build<math::ExpOp>},
      {"exp2", build<math::Exp2Op>},
      {"log", build<math::LogOp>},
      {"log2", build<math::Log2Op>},
      {"log10", build<math::Log10Op>},
      {"pow", build<math::PowFOp>},
      {"sqrt", build<math::SqrtOp>},
      {"cbrt", build<math::CbrtOp>},
      {"erf", build<math::ErfOp>},
      // Rounding and remainder.
      {"floor", build<math::FloorOp>},
      {"ceil", build<math::CeilOp>},
      {"round", build<math::RoundOp>},
      {"trunc", build<math::TruncOp>},
      {"fmod", build<arith::RemFOp>},
      // Classification.
      {"isfinite", build<math::IsFiniteOp>},
      {"isnan", build<math::IsNaNOp>},
      {"isinf", build<math::IsInfOp>},
      // Absolute value and comparisons.
      {"abs", build<math::AbsFOp, math::AbsIOp>},
      {"min", build<arith::MinNumFOp, arith::MinSIOp>},
      {"max", build<arith::MaxNumFOp, arith::MaxSIOp>},
  };
  return table;
}
} // namespace

bool frontend::isBuiltin(llvm::StringRef name) {
  return name == "tid" || builtinTable().count(name);
}

FailureOr<Value> frontend::buildBuiltin(llvm::StringRef name, OpBuilder &b,
                                        Location loc, ValueRange args) {
  if (name == "tid")
    return ks::TidOp::create(b, loc, b.getI32Type()).getResult();
  auto it = builtinTable().find(name);
  if (it == builtinTable().end())
    return failure();
  return it->second(b, loc, args);
}
