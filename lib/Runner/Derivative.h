//===- Derivative.h - What adjoint and tangent kernels share -*- C++ -*-===//
//
// Part of ksc. Internal to the runner library: the helpers that the
// reverse-mode side (Adjoint.cpp, Gradient.cpp) and the forward-mode side
// (Tangent.cpp) of `ksc-run --grad` and `--check-grad` have in common:
// reading per-argument derivative values from JSON, and reading and
// writing the float or double numbers of an argument. Finding derivative
// kernels in the IR is DerivativeKernels.h's.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_RUNNER_DERIVATIVE_H
#define KSC_LIB_RUNNER_DERIVATIVE_H

#include "ksc/Runner/Gradient.h"

#include "llvm/ADT/SmallVector.h"

namespace ksc::runner::derivatives {

llvm::Error fail(const llvm::Twine &message);

//===----------------------------------------------------------------------===//
// The numbers of an argument made of floats or doubles
//===----------------------------------------------------------------------===//

/// The number of floats or doubles `arg` holds (contiguous; of a struct,
/// those of its fields, in order, element by element).
size_t numScalars(const Argument &arg);
double getScalar(const Argument &arg, size_t k);
/// `value` as number `k` of `arg` stores it: rounded to float for a float.
double roundTo(const Argument &arg, size_t k, double value);
void setScalar(Argument &arg, size_t k, double value);
/// Names number `k` of `arg`: `x[2]`, `s`, `v[1] component [0]`,
/// `ps[1].pos component [2]`.
std::string describeNumber(const Argument &arg, size_t k);
/// Whether values of `type` hold a float (then derivatives are checked
/// with float tolerances).
bool hasFloats(const ValueType &type);
/// `[2, 3]`.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Whether `param` can have a derivative: it holds floats or doubles (a
/// struct in some field).
bool isDifferentiable(const Param &param);

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
/// `derivatives`; both are updated in place. The arrays of
/// `sig.finalValueArgs` are first replaced by what a launch of the primal
/// kernel on `primal` leaves in them.
llvm::Error launchDerivative(const DerivativeSignature &sig,
                             std::vector<Argument> &primal,
                             std::vector<Argument> &derivatives,
                             Launcher launch);

} // namespace ksc::runner::derivatives

#endif // KSC_LIB_RUNNER_DERIVATIVE_H
