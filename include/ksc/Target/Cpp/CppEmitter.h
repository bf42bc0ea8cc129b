//===- CppEmitter.h - Emit ks IR as readable C++ ------------*- C++ -*-===//
//
// Part of ksc. Prints a module lowered by `convert-ks-to-cpu` or
// `convert-ks-to-cuda` (func, scf, arith, math, the ks array operations and
// the gpu thread indices) as C++17 or CUDA C++ source that compiles with
// ksc's runtime header.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_TARGET_CPP_CPPEMITTER_H
#define KSC_TARGET_CPP_CPPEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ksc {

/// What the C++ is for.
enum class CppTarget {
  /// C++17 for the host (`convert-ks-to-cpu`): launchers run the threads
  /// of a launch in turn, with C entry points for ksc-run.
  Cpu,
  /// CUDA C++ (`convert-ks-to-cuda`): the same bodies as `__device__`
  /// functions, a `__global__` function per kernel and a host launch
  /// function `K_launch(dim, stream, args...)`.
  Cuda,
};

struct CppEmitterOptions {
  CppTarget target = CppTarget::Cpu;
  /// CUDA: the threads per block of the launch functions, with
  /// `__launch_bounds__` on the kernels; 0 for the default of 256 without
  /// launch bounds.
  unsigned blockSize = 0;
  /// Copy the runtime header into the output instead of `#include`-ing it,
  /// so the file compiles on its own.
  bool standalone = false;
  /// The source file named in the banner comment ("" for none).
  std::string sourceName;
  /// CUDA: also a C entry point per kernel taking its arguments as the
  /// CPU's `ksc_launch_K` does, `ksc_cuda_launch_K(dim, stream, args,
  /// error, error_size)`, for Python modules (--emit=python).
  bool cudaEntryPoints = false;
  /// The C++ namespace (`a::b`) of everything the output defines, empty
  /// for the global one; the `extern "C"` symbols then start with its
  /// components and `__` (`a__b__ksc_launch_k`). Must satisfy
  /// checkCppNamespace.
  std::string cppNamespace;
};

/// Why `name` cannot be the namespace of emitted code (`--namespace`): not
/// `::`-separated C++ identifiers, a keyword, an identifier C++ reserves
/// (`__` in it, `_` and an uppercase letter first) or a name the emitted
/// code uses (`ksc`, `std`, ...). Empty when it can.
std::string checkCppNamespace(llvm::StringRef name);

/// The threads per block of CUDA launches without `--block-size`.
inline constexpr unsigned kDefaultCudaBlockSize = 256;

/// Prints `module` as C++, and when `header` is given the header that
/// declares for other translation units what that C++ defines: the typed
/// launchers and C entry points (CPU), the host launch functions and, for
/// CUDA translation units, the `__global__` kernels (CUDA), and the structs
/// their parameters use. The module must have gone through
/// `convert-ks-to-cpu` (`convert-ks-to-cuda` for CppTarget::Cuda). Reports
/// unsupported operations as errors on the operation and fails without
/// printing a partial file.
mlir::LogicalResult translateToCpp(mlir::ModuleOp module, llvm::raw_ostream &os,
                                   const CppEmitterOptions &options = {},
                                   llvm::raw_ostream *header = nullptr);

/// The C++ name of the function `symbol` (of a kernel's thread body, and
/// in CUDA C++ of its `__global__` function): the symbol, with a trailing
/// underscore when it is a macro of the headers the C++ includes.
std::string getCppFunctionName(llvm::StringRef symbol);

/// The text of ksc's CPU runtime header (what `--standalone` inlines).
llvm::StringRef getCpuRuntimeHeader();

} // namespace ksc

#endif // KSC_TARGET_CPP_CPPEMITTER_H
