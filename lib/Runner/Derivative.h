//===- Derivative.h - What adjoint and tangent kernels share -*- C++ -*-===//
//
// Part of ksc. Internal to the runner library: the helpers that the
// reverse-mode side (Adjoint.cpp, Gradient.cpp) and the forward-mode side
// (Tangent.cpp) of `ksc-run --grad` and `--check-grad` have in common:
// finding a derivative kernel and checking its signature, reading
// per-argument derivative values from JSON, and reading and writing the
// float or double numbers of an argument.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_RUNNER_DERIVATIVE_H
#define KSC_LIB_RUNNER_DERIVATIVE_H

#include "ksc/Runner/Gradient.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"

namespace ksc::runner::derivatives {

llvm::Error fail(const llvm::Twine &message);

//===----------------------------------------------------------------------===//
// The numbers of an argument made of floats or doubles
//===----------------------------------------------------------------------===//

/// The number of floats or doubles `arg` holds (contiguous, no struct).
size_t numScalars(const Argument &arg);
double getScalar(const Argument &arg, size_t k);
/// `value` as `arg` stores it: rounded to float for a float argument.
double roundTo(const Argument &arg, double value);
void setScalar(Argument &arg, size_t k, double value);
/// Names number `k` of `arg`: `x[2]`, `s`, `v[1] component [0]`.
std::string describeNumber(const Argument &arg, size_t k);
/// `[2, 3]`.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

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

/// Whether `param` can have a derivative: made of floats or doubles, no
/// struct.
bool isDifferentiable(const Param &param);

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

/// "x, s, y": the primal arguments with derivatives.
std::string listDerivatives(const DerivativeSignature &sig);

/// Zeroed derivative arguments, one per derivative parameter, each named
/// after its primal argument; `shapeOf(j)` gives the shape of derivative j.
std::vector<Argument> makeDerivatives(
    const DerivativeSignature &sig, llvm::ArrayRef<Argument> primal,
    llvm::function_ref<std::vector<int64_t>(unsigned j)> shapeOf);

/// Reads derivative values from the JSON object `value`, keyed by the
/// names of the first `numKeyed` primal arguments, over `values` (from
/// makeDerivatives; a missing entry stays zero). `kind` names one value
/// ("adjoint"), `plural` all of them ("output adjoints"); `hint(j)` says
/// which shape derivative j needs (", the shape of 'x'").
llvm::Error readDerivatives(const llvm::json::Value &value, llvm::StringRef kind,
                            llvm::StringRef plural,
                            const DerivativeSignature &sig,
                            llvm::ArrayRef<Argument> primal, unsigned numKeyed,
                            llvm::function_ref<std::string(unsigned j)> hint,
                            std::vector<Argument> &values);

/// Starts the report of a check of the derivative kernel `kernel` whose
/// derivatives are `float`s when `single` (else `double`s): the kernel, the
/// seed and the tolerances (the defaults of the precision, or those of
/// `options`); returns the step of the central differences, cbrt(eps),
/// which balances their truncation error (h^2) with rounding (eps / h).
double startCheck(llvm::StringRef kernel, bool single,
                  const GradCheckOptions &options, GradCheckReport &report);

/// Launches the derivative kernel of `sig` on `primal` followed by
/// `derivatives`; both are updated in place.
llvm::Error launchDerivative(const DerivativeSignature &sig,
                             std::vector<Argument> &primal,
                             std::vector<Argument> &derivatives,
                             Launcher launch);

} // namespace ksc::runner::derivatives

#endif // KSC_LIB_RUNNER_DERIVATIVE_H
