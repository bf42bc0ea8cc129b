//===- Gradient.h - Run and check adjoint kernels -----------*- C++ -*-===//
//
// Part of ksc. What `ksc-run --grad` and `ksc-run --check-grad` do with the
// adjoint kernel `K_adj` of a kernel `K` (docs/autodiff.md): find it and
// check its signature, read output adjoints from JSON, launch it, and
// compare its vector-Jacobian product with central finite differences of
// launches of `K`.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_GRADIENT_H
#define KSC_RUNNER_GRADIENT_H

#include "ksc/Runner/Runner.h"

#include <optional>

namespace ksc::runner {

/// The signature of a derivative kernel of a kernel `K` (the adjoint kernel
/// `K_adj`, a tangent kernel `K_jvp`): `K`'s parameters, then one
/// derivative parameter per parameter of `K` that has one.
struct DerivativeSignature {
  /// The name of `K`.
  std::string primalKernel;
  /// The derivative kernel's signature; its first `numPrimal` parameters
  /// are `K`'s.
  Signature signature;
  unsigned numPrimal = 0;
  /// For derivative parameter j (parameter numPrimal + j of the derivative
  /// kernel), the index of its primal parameter in `K` (the attribute
  /// `ks.adjoint_args` or `ks.tangent_args`).
  std::vector<unsigned> primalOf;
  /// The primal arrays the derivative kernel reads as `K` left them, not as
  /// `K` found them (`ks.final_value_args`: arrays updated with atomic_min
  /// or atomic_max): launchDerivative runs `K` first for them.
  std::vector<unsigned> finalValueArgs;
  /// The user's derivative rules the derivative kernel calls, as
  /// "f (KSC_ADJOINT g)", for messages when a check fails.
  std::vector<std::string> customRules;

  size_t numDerivatives() const { return primalOf.size(); }
  const Param &derivativeParam(unsigned j) const {
    return signature.params[numPrimal + j];
  }
  const Param &primalParam(unsigned j) const {
    return signature.params[primalOf[j]];
  }
};

/// The signature of the adjoint kernel `K_adj` of a kernel `K`: `K`'s
/// parameters, then one adjoint array per parameter of `K` that has one.
struct AdjointSignature : DerivativeSignature {
  size_t numAdjoints() const { return numDerivatives(); }
  const Param &adjointParam(unsigned j) const { return derivativeParam(j); }
};

/// Whether `kernel` is the adjoint kernel of another (`ks.adjoint_of`).
bool isAdjointKernel(ks::KernelOp kernel);
/// Whether `adjoint` is the adjoint kernel of `kernel`.
bool isAdjointOf(ks::KernelOp adjoint, ks::KernelOp kernel);

/// Finds the adjoint kernel of `kernel` in its module (the kernel whose
/// `ks.adjoint_of` names it) and checks that its signature is the one
/// docs/autodiff.md describes for `primal`, the signature of `kernel`.
llvm::Expected<AdjointSignature> getAdjointSignature(ks::KernelOp kernel,
                                                     const Signature &primal);

/// Launches the kernel named `kernel` on `args`, updating them in place.
/// ksc-run passes the `launch` of an Executor (Executor.h), so that the
/// same checks run kernels on the CPU, on a GPU, or on both compared.
using Launcher = llvm::function_ref<llvm::Error(llvm::StringRef kernel,
                                                std::vector<Argument> &args)>;

/// Fails unless every argument with a derivative is a contiguous array or a
/// scalar (the gradient modes do not take strided views).
llvm::Error checkContiguous(const DerivativeSignature &sig,
                            llvm::ArrayRef<Argument> primal);

/// Zeroed adjoint arrays, one per adjoint parameter: the shape of the
/// primal argument's array, one element for a scalar. Each is named after
/// its primal argument.
std::vector<Argument> makeAdjoints(const AdjointSignature &adjoint,
                                   llvm::ArrayRef<Argument> primal);

/// Reads output adjoints from a JSON object keyed by the names of the
/// primal arguments (`{"x": [...], "s": [0.5]}`), each shaped like
/// makeAdjoints makes it; a missing one is zero.
llvm::Expected<std::vector<Argument>>
parseAdjoints(const AdjointSignature &adjoint, llvm::ArrayRef<Argument> primal,
              const llvm::json::Value &value);

/// Launches `K_adj` on copies of `primal` (the values `K` was launched with)
/// and on `adjoints`, which hold the output adjoints and receive the input
/// adjoints.
llvm::Error runAdjoint(const AdjointSignature &adjoint,
                       llvm::ArrayRef<Argument> primal,
                       std::vector<Argument> &adjoints, Launcher launch);

struct GradCheckOptions {
  /// Pass when |AD - FD| <= atol + rtol * |FD| for every number checked;
  /// unset: getDefaultTolerance.
  std::optional<double> atol, rtol;
  /// The seed of the random output adjoints (uniform in [-1, 1]).
  uint64_t seed = 1;
  /// The primal arguments to check (empty: every one with an adjoint).
  std::vector<std::string> only;
};

/// The default tolerances: atol 1e-3, rtol 1e-2 when an argument with an
/// adjoint is made of `float`s, else atol 1e-7, rtol 1e-6.
std::pair<double, double> getDefaultTolerance(bool singlePrecision);

/// How the adjoint of one argument compares with finite differences.
struct GradCheckResult {
  std::string name;
  int64_t numChecked = 0;
  double maxAbsError = 0;
  /// max |AD - FD| / |FD| over the numbers whose FD is not zero.
  double maxRelError = 0;
  /// The number with the largest |AD - FD| / (atol + rtol * |FD|) (`ratio`,
  /// infinite for a NaN): `x[2]`, `v[1] component [0]`.
  std::string worst;
  double worstAD = 0, worstFD = 0, worstRatio = 0;
  bool passed() const { return worstRatio <= 1; }
  /// Counts one number, `ad` against `fd`; `where()` names it.
  void record(double ad, double fd, double atol, double rtol,
              llvm::function_ref<std::string()> where);
};

struct GradCheckReport {
  /// The kernel checked: `K_adj` (reverse mode), or `K_jvp` (forward mode,
  /// against directional differences).
  std::string kernel;
  bool forward = false;
  double atol = 0, rtol = 0;
  uint64_t seed = 0;
  std::vector<GradCheckResult> results;
  /// Reverse mode: the random output adjoints w, and the input adjoints
  /// J^T w `K_adj` computed from them (one per adjoint parameter), for the
  /// dot-product test of forward mode.
  std::vector<Argument> outputAdjoints, inputAdjoints;
  /// The failed result with the largest ratio, or null.
  const GradCheckResult *worstFailure() const;
};

/// Checks `K_adj` against central finite differences of launches of `K` on
/// `inputs` (see docs/autodiff.md and the README's ksc-run section): with
/// random output adjoints w, the input adjoint of every number x of every
/// argument checked must match (<w, F(x + h)> - <w, F(x - h)>) / 2h, where
/// F maps the inputs to the arguments with adjoints after a launch and
/// h = cbrt(eps) * max(1, |x|).
llvm::Expected<GradCheckReport> checkGradient(const AdjointSignature &adjoint,
                                              llvm::ArrayRef<Argument> inputs,
                                              Launcher launch,
                                              const GradCheckOptions &options);

/// Prints the report as a table, one row per argument checked.
void writeGradCheckReport(llvm::raw_ostream &os, const GradCheckReport &report);

} // namespace ksc::runner

#endif // KSC_RUNNER_GRADIENT_H
