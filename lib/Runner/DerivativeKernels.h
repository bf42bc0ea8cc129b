//===- DerivativeKernels.h - Find derivative kernels in the IR -*- C++ -*-===//
//
// Part of ksc. Internal to the runner library: what Adjoint.cpp and
// TangentKernel.cpp share to find the adjoint or tangent kernel of a kernel
// in its module and to read and check its signature. Unlike the rest of
// the runner's derivative code (Derivative.h), this needs the ks dialect.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_RUNNER_DERIVATIVEKERNELS_H
#define KSC_LIB_RUNNER_DERIVATIVEKERNELS_H

#include "Derivative.h"

#include "mlir/IR/Types.h"

namespace ksc::runner::derivatives {

//===----------------------------------------------------------------------===//
// Derivative kernels
//===----------------------------------------------------------------------===//

/// What a kind of derivative kernel is called and how it is marked.
struct DerivativeKind {
  /// "adjoint" or "tangent".
  llvm::StringRef name;
  /// ks.adjoint_of / ks.tangent_of, ks.adjoint_args / ks.tangent_args.
  llvm::StringRef ofAttr, argsAttr;
};

/// Whether `derivative` is marked as the `kind` kernel of `kernel`.
bool isDerivativeOf(const DerivativeKind &kind, ks::KernelOp derivative,
                    ks::KernelOp kernel);

/// The one kernel of `kernel`'s module marked as its `kind` kernel; when
/// there is none, the error `none` makes.
llvm::Expected<ks::KernelOp>
findDerivativeKernel(const DerivativeKind &kind, ks::KernelOp kernel,
                     llvm::function_ref<llvm::Error()> none);

/// The type `type` prints as in ks IR.
std::string print(mlir::Type type);

/// Reads the signature of `derivative`, the `kind` kernel of `kernel`
/// (whose signature is `primal`), into `out` and checks it: `kernel`'s
/// arguments, then one derivative argument per index its `kind.argsAttr`
/// lists, in increasing order, each of a differentiable argument and of
/// the type `typeOf` gives for it.
llvm::Error readDerivativeSignature(
    const DerivativeKind &kind, ks::KernelOp kernel, ks::KernelOp derivative,
    const Signature &primal,
    llvm::function_ref<llvm::Expected<mlir::Type>(unsigned index)> typeOf,
    DerivativeSignature &out);

} // namespace ksc::runner::derivatives

#endif // KSC_LIB_RUNNER_DERIVATIVEKERNELS_H
