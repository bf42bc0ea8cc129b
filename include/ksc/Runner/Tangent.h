//===- Tangent.h - Run and check tangent kernels ------------*- C++ -*-===//
//
// Part of ksc. What `ksc-run --grad=forward`, `--grad=hvp` and
// `--check-grad` do with the tangent kernel `K_jvp` of a kernel `K` and the
// Hessian-vector kernel `K_hvp` (the tangent kernel of `K_adj`;
// docs/autodiff.md): find them and check their signatures, read tangents
// from JSON, launch them, and check forward mode against central
// directional differences and against reverse mode (the dot-product test).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_TANGENT_H
#define KSC_RUNNER_TANGENT_H

#include "ksc/Runner/Gradient.h"

namespace ksc::runner {

/// The signature of a tangent kernel `K_jvp` of a kernel `K`: `K`'s
/// parameters, then one tangent parameter per parameter of `K` that has
/// one (`ks.tangent_args`). With one direction a tangent has its primal
/// parameter's type; with `width` W > 1 an array's tangent has one more,
/// first dimension of W (`tan_x[k]`, shaped like `x`, is direction k) and a
/// scalar's is an `array<const T>` of W elements.
struct TangentSignature : DerivativeSignature {
  unsigned width = 1;
  size_t numTangents() const { return numDerivatives(); }
};

/// Whether `kernel` is the tangent kernel of another (`ks.tangent_of`).
bool isTangentKernel(ks::KernelOp kernel);
/// Whether `tangent` is the tangent kernel of `kernel`.
bool isTangentOf(ks::KernelOp tangent, ks::KernelOp kernel);

/// Finds the tangent kernel of `kernel` in its module (the kernel whose
/// `ks.tangent_of` names it) and checks that its signature is the one
/// docs/autodiff.md describes for `primal`, the signature of `kernel`, with
/// `width` tangent directions (`ks.tangent_width`, absent for one).
llvm::Expected<TangentSignature> getTangentSignature(ks::KernelOp kernel,
                                                     const Signature &primal,
                                                     unsigned width = 1);

/// Zeroed tangents, one per tangent parameter, each named after its primal
/// argument: for an array its shape (after a first dimension of W with
/// width W > 1), for a scalar a scalar (a list of W with width W > 1).
std::vector<Argument> makeTangents(const TangentSignature &tangent,
                                   llvm::ArrayRef<Argument> primal);

/// Reads tangents from a JSON object keyed by the names of the first
/// `numKeyed` primal arguments (all of them by default), each shaped like
/// makeTangents makes it; a missing one is zero.
llvm::Expected<std::vector<Argument>>
parseTangents(const TangentSignature &tangent, llvm::ArrayRef<Argument> primal,
              const llvm::json::Value &value, unsigned numKeyed = ~0u);

/// Launches the tangent kernel on `primal` (the values `K` is launched
/// with; they receive the values after the launch) and `tangents` (the
/// tangents before the launch; they receive those after it).
llvm::Error runTangent(const TangentSignature &tangent,
                       std::vector<Argument> &primal,
                       std::vector<Argument> &tangents, Launcher launch);

/// Writes `{"y": [...], "tan_y": [...]}`: the contents of every array of
/// `primal`, then the tangent of every array with one, as `tan_<name>`
/// (`tan_<name>_1`, `_2`, ... where an argument has that name).
void writeTangents(llvm::raw_ostream &os, llvm::ArrayRef<Argument> primal,
                   llvm::ArrayRef<Argument> tangents);

/// The Hessian-vector products `K_hvp` left in the tangents of the adjoint
/// arrays of `K_adj` (`tan_adj_x`), each named after its argument of `K`.
/// `adjoint` is `K_adj`'s signature, `hvp` `K_hvp`'s.
std::vector<Argument> getHessianVectorProducts(const AdjointSignature &adjoint,
                                               const TangentSignature &hvp,
                                               llvm::ArrayRef<Argument> tangents);

/// The dot-product test of forward against reverse mode: <Jv, w>, from the
/// output tangents of `K_jvp` (the tangent itself for a scalar, which a
/// launch does not change), against <v, J^T w>, from the input adjoints of
/// `K_adj`. It passes when |forward - reverse| <= tol * scale, where scale
/// is the sum of the absolute values of the terms of both sums.
struct DotProductTest {
  double forward = 0, reverse = 0, scale = 0, tol = 0;
  /// |forward - reverse| / scale (0 when both are exactly zero).
  double relativeDifference() const;
  bool passed() const;
};

/// The forward-mode part of `--check-grad`.
struct TangentCheckReport {
  /// The output tangents of `K_jvp` against central directional
  /// differences, one row per argument with a tangent array.
  GradCheckReport directional;
  DotProductTest dot;
};

/// The tolerance of the dot-product test: 1e-4 when a number involved is a
/// `float`, else 1e-10.
double getDotProductTolerance(bool singlePrecision);

/// Checks `K_jvp` on `inputs`. With a random tangent v (drawn from
/// SplitMix64 seeded with the bitwise complement of `options.seed`; zero
/// for the arguments `options.only` leaves out), the output tangents Jv
/// must match (F(x + hv) - F(x - hv)) / 2h number by number (the
/// tolerances of the reverse check), and <Jv, w> must match <v, J^T w>,
/// with w and J^T w from `reverse`, the reverse check of `K_adj`, whose
/// signature is `adjoint`.
llvm::Expected<TangentCheckReport>
checkTangent(const TangentSignature &tangent, const AdjointSignature &adjoint,
             llvm::ArrayRef<Argument> inputs, const GradCheckReport &reverse,
             Launcher launch, const GradCheckOptions &options);

/// Prints the directional table (as writeGradCheckReport does) and the
/// dot-product line.
void writeTangentCheckReport(llvm::raw_ostream &os,
                             const TangentCheckReport &report);

} // namespace ksc::runner

#endif // KSC_RUNNER_TANGENT_H
