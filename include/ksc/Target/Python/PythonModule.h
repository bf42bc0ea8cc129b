//===- PythonModule.h - Kernels as a Python extension module --*- C++ -*-===//
//
// Part of ksc. The bindings of `ksc --emit=python` (docs/python.md): for a
// module of ks kernels, the nanobind code that makes each kernel (and each
// derivative kernel) a Python function taking arrays from NumPy, PyTorch,
// JAX or CuPy. The bindings follow the kernels' C++ in one file; the
// runtime header ksc_python.h holds what they share.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_TARGET_PYTHON_PYTHONMODULE_H
#define KSC_TARGET_PYTHON_PYTHONMODULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ksc {

struct PythonModuleOptions {
  /// The module's name (what `import` names), a Python identifier.
  std::string moduleName;
  /// The C++ namespace the kernels' C++ was emitted into (--namespace),
  /// empty for the global one.
  std::string cppNamespace;
  /// When not empty, the bindings are a function of this name adding the
  /// kernels to a module (`void F(nanobind::module_ &)`), for a module
  /// made of several kernel files, instead of the module itself
  /// (`NB_MODULE`).
  std::string initFunction;
  /// The kernels' C++ is CUDA C++ with C entry points `ksc_cuda_launch_K`
  /// (--target=cuda): the functions take CUDA arrays and a stream.
  bool cuda = false;
  /// The tangent directions of the tangent kernels (--width).
  unsigned width = 1;
};

/// Why `name` cannot name a Python extension module: not an ASCII
/// identifier, or a Python keyword. Empty when it can.
std::string checkPythonModuleName(llvm::StringRef name);

/// Prints the bindings of the kernels of `module` (ks IR after the
/// derivative passes, before lowering): a table describing every kernel's
/// parameters and `NB_MODULE`, which defines a function per kernel calling
/// its C entry point (`ksc_launch_K`, or `ksc_cuda_launch_K`). Fails with an
/// error on a kernel whose parameters Python cannot pass (structs).
mlir::LogicalResult
translateToPythonBindings(mlir::ModuleOp module, llvm::raw_ostream &os,
                          const PythonModuleOptions &options);

} // namespace ksc

#endif // KSC_TARGET_PYTHON_PYTHONMODULE_H
