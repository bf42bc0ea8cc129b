//===- Builtins.h - The builtin functions of the kernel language *- C++ -*-===//
//
// Part of ksc. Internal to lib/Frontend.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_FRONTEND_BUILTINS_H
#define KSC_LIB_FRONTEND_BUILTINS_H

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "ksc/Frontend/Frontend.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace ksc::frontend {

/// The update the atomic builtin `name` makes (atomic_add: add, ...), or
/// nothing when `name` is not one of them.
std::optional<ks::AtomicKind> getAtomicBuiltinKind(llvm::StringRef name);

/// Whether the prelude function `name` has an IR lowering.
bool isBuiltin(llvm::StringRef name);

/// Whether `name` is one of the random-number builtins (rand_init, randi,
/// randf, randn), which FunctionBuilder::emitRandom builds: randi, randf and
/// randn write their state argument.
bool isRandomBuiltin(llvm::StringRef name);

/// Builds builtin `name` applied to `args` (already converted to the
/// parameter types Clang chose); fails for unknown names. `isUnsigned`: the
/// overload for uint32_t (min, max, clamp), whose arguments are i32 like
/// int's.
mlir::FailureOr<mlir::Value> buildBuiltin(llvm::StringRef name,
                                          mlir::OpBuilder &b,
                                          mlir::Location loc,
                                          mlir::ValueRange args,
                                          bool isUnsigned = false);

/// Builds Warp's normalize of a quaternion, `args` = {q}: q / length(q),
/// the identity when the length is 0.
mlir::Value buildQuatNormalize(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::ValueRange args);

/// The functions the prelude declares in namespace ksc: name -> the numbers
/// of parameters of its overloads.
using PreludeFunctions = llvm::StringMap<llvm::SmallSet<unsigned, 4>>;

/// Parses the prelude (with `options`' -I and -D) and collects its
/// functions into `functions`; false after errors, reported as
/// `options.diagnostics` says.
bool collectPreludeFunctions(const FrontendOptions &options,
                             PreludeFunctions &functions);

/// The identity quaternion (0, 0, 0, 1) of quaternion type `type`
/// (`vector<4xT>`).
mlir::Value buildQuatIdentity(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::VectorType type);

} // namespace ksc::frontend

#endif // KSC_LIB_FRONTEND_BUILTINS_H
