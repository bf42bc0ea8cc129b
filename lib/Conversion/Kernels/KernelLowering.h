//===- KernelLowering.h - What the CPU and CUDA lowerings share -*- C++ -*-===//
//
// Part of ksc. Internal to lib/Conversion/Kernels: convert-ks-to-cpu and
// convert-ks-to-cuda both turn every kernel into a one-thread function
// (shared here) and differ in the launcher that runs its threads.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_CONVERSION_KERNELS_KERNELLOWERING_H
#define KSC_LIB_CONVERSION_KERNELS_KERNELLOWERING_H

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <string>

namespace ksc::conversion {

using ks::kLaunchOfAttr;

/// The name of the public function that launches kernel `kernel`.
std::string launcherName(llvm::StringRef kernel);

/// The thread indices a kernel reads: `tid()` (kFlat) and the coordinates
/// `tid(0)`, `tid(1)`, `tid(2)`.
inline constexpr int kFlat = -1;

/// A kernel's one-thread function and what its launcher needs to call it.
struct ThreadFunction {
  mlir::func::FuncOp func;
  /// The thread indices it receives as leading `i32` arguments, in the
  /// order flat, x, y, z (those the kernel reads).
  llvm::SmallVector<int> kinds;
  /// The source name of each index, flat first: for the launcher's
  /// variables.
  std::string nameOf[4];
};

/// Replaces `kernel`'s body by a private `func.func` with its name that runs
/// one thread (see convert-ks-to-cpu) and returns it; `kernel` itself stays
/// (empty) for the caller to erase after it has built the launcher.
ThreadFunction createThreadFunction(mlir::ConversionPatternRewriter &rewriter,
                                    ks::KernelOp kernel);

/// The launcher `func.func @launch_k(%dim: !ks.grid, <k's arguments>)`,
/// empty, with `ks.launch_of` and the argument names and attributes of
/// `kernel`.
mlir::func::FuncOp createLauncher(mlir::ConversionPatternRewriter &rewriter,
                                  ks::KernelOp kernel);

/// The coordinates (x, y, z) of flat thread index `flat` (i32 or i64) in
/// grid `grid`, row-major: flat = (x * Y + y) * Z + z. `nameOf` (as in
/// ThreadFunction, or null) names them.
llvm::SmallVector<mlir::Value, 3> gridCoordinates(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  mlir::Value grid,
                                                  mlir::Value flat,
                                                  const std::string *nameOf);

/// `ks.func`, `ks.return` and `ks.call` as their `func` counterparts.
void populateFunctionLoweringPatterns(mlir::RewritePatternSet &patterns);

/// The ks operations both lowerings leave as they are.
void addLegalKsOps(mlir::ConversionTarget &target);

/// Reports kernels whose launcher name is taken; fails if any is.
mlir::LogicalResult checkLauncherNames(mlir::ModuleOp module);

} // namespace ksc::conversion

#endif // KSC_LIB_CONVERSION_KERNELS_KERNELLOWERING_H
