//===- Builtins.cpp - The builtin functions of the kernel language ----===//
//
// Part of ksc. Maps the functions the prelude (include/ksc/dsl.h) declares
// to IR. To add a builtin: declare it in dsl.h, add a row to the table
// below, and a test in test/Frontend/builtins.kdsl and test/Run.
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
      {"sin", build<math::SinOp>},
      {"cos", build<math::CosOp>},
      {"exp", build<math::ExpOp>},
      {"log", build<math::LogOp>},
      {"sqrt", build<math::SqrtOp>},
      {"abs", build<math::AbsFOp, math::AbsIOp>},
      {"min", build<arith::MinNumFOp, arith::MinSIOp>},
      {"max", build<arith::MaxNumFOp, arith::MaxSIOp>},
  };
  return table;
}
} // namespace

bool frontend::isBuiltin(llvm::StringRef name) {
  return builtinTable().count(name);
}

FailureOr<Value> frontend::buildBuiltin(llvm::StringRef name, OpBuilder &b,
                                        Location loc, ValueRange args) {
  auto it = builtinTable().find(name);
  if (it == builtinTable().end())
    return failure();
  return it->second(b, loc, args);
}
