//===- CppEmitter.h - Emit ks IR as readable C++ ------------*- C++ -*-===//
//
// Part of ksc. Prints a module lowered by `convert-ks-to-cpu` (func, scf,
// arith, math and the ks array operations) as C++17 source that compiles
// with ksc's runtime header.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_TARGET_CPP_CPPEMITTER_H
#define KSC_TARGET_CPP_CPPEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ksc {

struct CppEmitterOptions {
  /// Copy the runtime header into the output instead of `#include`-ing it,
  /// so the file compiles on its own.
  bool standalone = false;
  /// The source file named in the banner comment ("" for none).
  std::string sourceName;
};

/// Prints `module` as C++. The module must have gone through
/// `convert-ks-to-cpu`. Reports unsupported operations as errors on the
/// operation and fails without printing a partial file.
mlir::LogicalResult translateToCpp(mlir::ModuleOp module, llvm::raw_ostream &os,
                                   const CppEmitterOptions &options = {});

/// The text of ksc's CPU runtime header (what `--standalone` inlines).
llvm::StringRef getCpuRuntimeHeader();

} // namespace ksc

#endif // KSC_TARGET_CPP_CPPEMITTER_H
