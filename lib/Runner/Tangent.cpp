//===- Tangent.cpp - Run and check tangent kernels --------------------===//
//
// Part of ksc. The tangent kernel `K_jvp` of `K` (found in the IR by
// TangentKernel.cpp) takes, per argument of `K` with a tangent, the
// tangent; with W > 1 tangent directions an array's tangent has a first
// dimension of W, the direction (docs/autodiff.md). This file makes and
// reads its tangents, launches it, and checks it: its output tangents Jv
// against central directional differences of `K`, and <Jv, w> against
// <v, J^T w> from the adjoint kernel (the dot-product test). The
// Hessian-vector kernel `K_hvp` is the tangent kernel of `K_adj`.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Tangent.h"
#include "Derivative.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::derivatives;

//===----------------------------------------------------------------------===//
// Tangent arguments and the launch of K_jvp
//===----------------------------------------------------------------------===//

std::vector<Argument> runner::makeTangents(const TangentSignature &tangent,
                                           ArrayRef<Argument> primal) {
  return makeDerivatives(tangent, primal, [&](unsigned j) {
    const Argument &of = primal[tangent.primalOf[j]];
    std::vector<int64_t> shape;
    if (tangent.width > 1)
      shape.push_back(tangent.width);
    if (of.param.isArray)
      shape.insert(shape.end(), of.shape.begin(), of.shape.end());
    return shape;
  });
}

Expected<std::vector<Argument>>
runner::parseTangents(const TangentSignature &tangent,
                      ArrayRef<Argument> primal, const json::Value &value,
                      unsigned numKeyed) {
  std::vector<Argument> tangents = makeTangents(tangent, primal);
  unsigned width = tangent.width;
  auto hint = [&](unsigned j) -> std::string {
    const Param &of = tangent.primalParam(j);
    std::string directions =
        "one per tangent direction (--width=" + std::to_string(width) + ")";
    if (of.isArray)
      return width > 1 ? ": a first dimension of " + std::to_string(width) +
                             ", " + directions + ", then the shape of '" +
                             of.name + "'"
                       : ", the shape of '" + of.name + "'";
    return ": a list of " + std::to_string(width) + " " + of.describe() +
           " values, " + directions + ", for the " + of.describe() +
           " argument '" + of.name + "'";
  };
  if (Error error = readDerivatives(value, "tangent", "tangents", tangent,
                                    primal,
                                    std::min<unsigned>(numKeyed,
                                                       tangent.numPrimal),
                                    hint, tangents))
    return std::move(error);
  return tangents;
}

Error runner::runTangent(const TangentSignature &tangent,
                         std::vector<Argument> &primal,
                         std::vector<Argument> &tangents, Launcher launch) {
  return launchDerivative(tangent, primal, tangents, launch);
}

void runner::writeTangents(raw_ostream &os, ArrayRef<Argument> primal,
                           ArrayRef<Argument> tangents) {
  std::vector<Argument> all(primal.begin(), primal.end());
  for (const Argument &tan : tangents) {
    if (!llvm::any_of(primal, [&](const Argument &arg) {
          return arg.param.isArray && arg.param.name == tan.param.name;
        }))
      continue;
    // A key no argument has: an array named tan_x beside x makes x's
    // tangent tan_x_1 (the name of its parameter in the emitted C++).
    std::string name = "tan_" + tan.param.name;
    auto taken = [&](StringRef key) {
      return llvm::any_of(all, [&](const Argument &arg) {
        return arg.param.name == key;
      });
    };
    for (unsigned n = 1; taken(name); ++n)
      name = "tan_" + tan.param.name + "_" + std::to_string(n);
    all.push_back(tan);
    all.back().param.name = name;
  }
  writeArrays(os, all);
}

std::vector<Argument>
runner::getHessianVectorProducts(const AdjointSignature &adjoint,
                                 const TangentSignature &hvp,
                                 ArrayRef<Argument> tangents) {
  std::vector<Argument> products;
  for (unsigned j = 0; j < hvp.numTangents(); ++j) {
    if (hvp.primalOf[j] < adjoint.numPrimal)
      continue;
    products.push_back(tangents[j]);
    products.back().param.name =
        adjoint.primalParam(hvp.primalOf[j] - adjoint.numPrimal).name;
  }
  return products;
}

//===----------------------------------------------------------------------===//
// The forward-mode check
//===----------------------------------------------------------------------===//

double runner::getDotProductTolerance(bool singlePrecision) {
  return singlePrecision ? 1e-4 : 1e-10;
}

double DotProductTest::relativeDifference() const {
  double difference = std::abs(forward - reverse);
  return difference == 0 ? 0 : difference / scale;
}

bool DotProductTest::passed() const {
  return relativeDifference() <= tol; // false for a NaN
}

/// The adjoint argument of `adjoint` of primal argument `index`.
static std::optional<unsigned> findAdjointOf(const AdjointSignature &adjoint,
                                             unsigned index) {
  for (unsigned a = 0; a < adjoint.numAdjoints(); ++a)
    if (adjoint.primalOf[a] == index)
      return a;
  return std::nullopt;
}

/// Fails unless `K_jvp` and `K_adj` differentiate the same arguments.
static Error checkSameArguments(const TangentSignature &tangent,
                                const AdjointSignature &adjoint) {
  if (tangent.primalOf == adjoint.primalOf)
    return Error::success();
  return fail("tangent kernel '" + tangent.signature.kernel +
              "' has tangents of " + listDerivatives(tangent) +
              " but adjoint kernel '" + adjoint.signature.kernel +
              "' has adjoints of " + listDerivatives(adjoint) +
              "; the dot-product test needs the same arguments");
}

namespace {
/// One launch of K_jvp on a random tangent v, against central differences
/// along v and against the reverse check's launch of K_adj.
class TangentChecker {
public:
  TangentChecker(const TangentSignature &tangent, ArrayRef<Argument> inputs,
                 Launcher launch)
      : tangent(tangent), inputs(inputs), launch(launch) {}

  /// Draws v and the points x +- hv, launches K twice and K_jvp once.
  Error run(const GradCheckOptions &options, GradCheckReport &report);
  /// Compares the output tangent j (an array) with the differences.
  GradCheckResult checkArgument(unsigned j) const;
  /// <Jv, w> against <v, J^T w>.
  DotProductTest dotProduct(const AdjointSignature &adjoint,
                            const GradCheckReport &reverse) const;

private:
  const TangentSignature &tangent;
  ArrayRef<Argument> inputs;
  Launcher launch;
  bool single = false;
  double step = 0, atol = 0, rtol = 0;
  /// The input tangent v, the output tangent Jv, and the values of the
  /// arguments after launches of K at x + hv and at x - hv.
  std::vector<Argument> v, jv, high, low;
};
} // namespace

Error TangentChecker::run(const GradCheckOptions &options,
                          GradCheckReport &report) {
  v = makeTangents(tangent, inputs);
  for (const Argument &arg : v)
    single |= hasFloats(arg.param.type);
  step = startCheck(tangent.signature.kernel, single, options, report);
  atol = report.atol;
  rtol = report.rtol;
  report.forward = true;

  // Number k of an argument moves by h_k u_k, with u_k uniform in [-1, 1]
  // and h_k = step * max(1, |x_k|) as in the reverse check: the tangent is
  // v_k = (x_k+ - x_k-) / 2 step, as rounded, and the difference of the
  // launches divided by 2 step approximates Jv.
  SplitMix64 rng(~options.seed);
  high.assign(inputs.begin(), inputs.end());
  low.assign(inputs.begin(), inputs.end());
  for (unsigned j = 0; j < tangent.numTangents(); ++j) {
    unsigned index = tangent.primalOf[j];
    const Argument &input = inputs[index];
    if (!options.only.empty() &&
        !llvm::is_contained(options.only, input.param.name))
      continue;
    for (size_t k = 0, e = numScalars(input); k < e; ++k) {
      double x = getScalar(input, k);
      double h = step * std::max(1.0, std::abs(x)) * (2 * rng.uniform() - 1);
      double up = roundTo(input, k, x + h), down = roundTo(input, k, x - h);
      setScalar(high[index], k, up);
      setScalar(low[index], k, down);
      setScalar(v[j], k, (up - down) / (2 * step));
    }
  }
  if (Error error = launch(tangent.primalKernel, high))
    return error;
  if (Error error = launch(tangent.primalKernel, low))
    return error;
  std::vector<Argument> primal(inputs.begin(), inputs.end());
  jv = v;
  return runTangent(tangent, primal, jv, launch);
}

GradCheckResult TangentChecker::checkArgument(unsigned j) const {
  unsigned index = tangent.primalOf[j];
  const Argument &input = inputs[index];
  GradCheckResult result;
  result.name = input.param.name;
  for (size_t k = 0, e = numScalars(input); k < e; ++k) {
    double fd = (getScalar(high[index], k) - getScalar(low[index], k)) /
                (2 * step);
    result.record(getScalar(jv[j], k), fd, atol, rtol,
                  [&] { return describeNumber(input, k); });
  }
  return result;
}

DotProductTest
TangentChecker::dotProduct(const AdjointSignature &adjoint,
                           const GradCheckReport &reverse) const {
  DotProductTest test;
  bool singleAdjoint = false;
  for (unsigned j = 0; j < tangent.numTangents(); ++j) {
    unsigned a = *findAdjointOf(adjoint, tangent.primalOf[j]);
    const Argument &w = reverse.outputAdjoints[a];
    const Argument &vjp = reverse.inputAdjoints[a];
    singleAdjoint |= hasFloats(w.param.type);
    // A launch leaves a scalar as it is: its output tangent is v.
    const Argument &out = v[j].param.isArray ? jv[j] : v[j];
    for (size_t k = 0, e = numScalars(v[j]); k < e; ++k) {
      double forward = getScalar(out, k) * getScalar(w, k);
      double reverse = getScalar(v[j], k) * getScalar(vjp, k);
      test.forward += forward;
      test.reverse += reverse;
      test.scale += std::abs(forward) + std::abs(reverse);
    }
  }
  test.tol = getDotProductTolerance(single || singleAdjoint);
  return test;
}

Expected<TangentCheckReport>
runner::checkTangent(const TangentSignature &tangent,
                     const AdjointSignature &adjoint, ArrayRef<Argument> inputs,
                     const GradCheckReport &reverse, Launcher launch,
                     const GradCheckOptions &options) {
  if (tangent.width != 1)
    return fail("the forward-mode check needs a tangent kernel with one "
                "direction; '" +
                tangent.signature.kernel + "' has " + Twine(tangent.width));
  if (Error error = checkContiguous(tangent, inputs))
    return std::move(error);
  if (Error error = checkSameArguments(tangent, adjoint))
    return std::move(error);
  TangentCheckReport report;
  TangentChecker checker(tangent, inputs, launch);
  if (Error error = checker.run(options, report.directional))
    return std::move(error);
  for (unsigned j = 0; j < tangent.numTangents(); ++j)
    if (inputs[tangent.primalOf[j]].param.isArray)
      report.directional.results.push_back(checker.checkArgument(j));
  report.dot = checker.dotProduct(adjoint, reverse);
  return report;
}

void runner::writeTangentCheckReport(raw_ostream &os,
                                     const TangentCheckReport &report) {
  writeGradCheckReport(os, report.directional);
  const DotProductTest &dot = report.dot;
  os << "dot-product test: <Jv, w> = " << format("%.12g", dot.forward)
     << ", <v, J^T w> = " << format("%.12g", dot.reverse)
     << ", |difference| / sum of |terms| = "
     << format("%.2e", dot.relativeDifference()) << " (tolerance "
     << format("%g", dot.tol) << ")  " << (dot.passed() ? "ok" : "FAIL")
     << "\n";
}
