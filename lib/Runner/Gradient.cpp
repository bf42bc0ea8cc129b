//===- Gradient.cpp - Run and check adjoint kernels -------------------===//
//
// Part of ksc. Adjoint arrays for `K_adj` (zeros, or read from JSON), its
// launch, and the gradient check: the vector-Jacobian product `K_adj`
// computes for random output adjoints w, against central finite
// differences of <w, F>, where F maps the values of `K`'s arguments before
// a launch to the values of those with adjoints after it.
//
//===----------------------------------------------------------------------===//

#include "Derivative.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::derivatives;

//===----------------------------------------------------------------------===//
// Adjoint arrays and the launch of K_adj
//===----------------------------------------------------------------------===//

std::vector<Argument> runner::makeAdjoints(const AdjointSignature &adjoint,
                                           ArrayRef<Argument> primal) {
  return makeDerivatives(adjoint, primal, [&](unsigned j) {
    const Argument &of = primal[adjoint.primalOf[j]];
    return of.param.isArray ? of.shape : std::vector<int64_t>{1};
  });
}

Expected<std::vector<Argument>>
runner::parseAdjoints(const AdjointSignature &adjoint,
                      ArrayRef<Argument> primal, const json::Value &value) {
  std::vector<Argument> adjoints = makeAdjoints(adjoint, primal);
  auto hint = [&](unsigned j) -> std::string {
    const Param &of = adjoint.primalParam(j);
    if (of.isArray)
      return ", the shape of '" + of.name + "'";
    return ": a list of one " + of.describe() + " for the " + of.describe() +
           " argument '" + of.name + "'";
  };
  if (Error error =
          readDerivatives(value, "adjoint", "output adjoints", adjoint, primal,
                          adjoint.numPrimal, hint, adjoints))
    return std::move(error);
  return adjoints;
}

Error runner::runAdjoint(const AdjointSignature &adjoint,
                         ArrayRef<Argument> primal,
                         std::vector<Argument> &adjoints, Launcher launch) {
  std::vector<Argument> args(primal.begin(), primal.end());
  return launchDerivative(adjoint, args, adjoints, launch);
}

//===----------------------------------------------------------------------===//
// The gradient check
//===----------------------------------------------------------------------===//

std::pair<double, double> runner::getDefaultTolerance(bool singlePrecision) {
  return singlePrecision ? std::make_pair(1e-3, 1e-2)
                         : std::make_pair(1e-7, 1e-6);
}

void GradCheckResult::record(double ad, double fd, double atol, double rtol,
                             function_ref<std::string()> where) {
  double error = std::abs(ad - fd);
  double ratio = error == 0 ? 0 : error / (atol + rtol * std::abs(fd));
  if (std::isnan(ratio))
    ratio = std::numeric_limits<double>::infinity();
  ++numChecked;
  maxAbsError = std::max(maxAbsError, error);
  if (fd != 0)
    maxRelError = std::max(maxRelError, error / std::abs(fd));
  if (worst.empty() || ratio > worstRatio) {
    worst = where();
    worstAD = ad;
    worstFD = fd;
    worstRatio = ratio;
  }
}

const GradCheckResult *GradCheckReport::worstFailure() const {
  const GradCheckResult *worst = nullptr;
  for (const GradCheckResult &result : results)
    if (!result.passed() && (!worst || result.worstRatio > worst->worstRatio))
      worst = &result;
  return worst;
}

namespace {
/// Compares the input adjoints of one launch of K_adj with central finite
/// differences of launches of K.
class GradChecker {
public:
  GradChecker(const AdjointSignature &adjoint, ArrayRef<Argument> inputs,
              Launcher launch)
      : adjoint(adjoint), inputs(inputs), launch(launch) {}

  /// Draws the output adjoints w, launches K_adj once, and picks the step
  /// and tolerances.
  Error prepare(const GradCheckOptions &options, GradCheckReport &report);
  /// Compares the input adjoint of adjoint argument j.
  Expected<GradCheckResult> checkArgument(unsigned j);

private:
  Expected<double> finiteDifference(unsigned index, size_t k);
  Expected<std::vector<Argument>> launchPrimal(unsigned index, size_t k,
                                               double value);

  const AdjointSignature &adjoint;
  ArrayRef<Argument> inputs;
  Launcher launch;
  /// The output adjoints, and the input adjoints K_adj computes from them.
  std::vector<Argument> w, gradients;
  double step = 0, atol = 0, rtol = 0;
};
} // namespace

Error GradChecker::prepare(const GradCheckOptions &options,
                           GradCheckReport &report) {
  w = makeAdjoints(adjoint, inputs);
  SplitMix64 rng(options.seed);
  bool single = false;
  for (Argument &arg : w) {
    single |= hasFloats(arg.param.type);
    for (size_t k = 0, e = numScalars(arg); k < e; ++k)
      setScalar(arg, k, 2 * rng.uniform() - 1);
  }
  step = startCheck(adjoint.signature.kernel, single, options, report);
  atol = report.atol;
  rtol = report.rtol;
  gradients = w;
  if (Error error = runAdjoint(adjoint, inputs, gradients, launch))
    return error;
  report.outputAdjoints = w;
  report.inputAdjoints = gradients;
  return Error::success();
}

/// Launches K on the inputs with number k of argument `index` set to
/// `value`.
Expected<std::vector<Argument>>
GradChecker::launchPrimal(unsigned index, size_t k, double value) {
  std::vector<Argument> args(inputs.begin(), inputs.end());
  setScalar(args[index], k, value);
  if (Error error = launch(adjoint.primalKernel, args))
    return std::move(error);
  return args;
}

/// (<w, F(x + h)> - <w, F(x - h)>) / (2h) for number k of argument
/// `index`, summed term by term so that what the step does not change
/// cancels exactly; 2h is the difference of the rounded x + h and x - h.
Expected<double> GradChecker::finiteDifference(unsigned index, size_t k) {
  const Argument &input = inputs[index];
  double x = getScalar(input, k);
  double h = step * std::max(1.0, std::abs(x));
  double high = roundTo(input, k, x + h), low = roundTo(input, k, x - h);
  Expected<std::vector<Argument>> plus = launchPrimal(index, k, high);
  if (!plus)
    return plus.takeError();
  Expected<std::vector<Argument>> minus = launchPrimal(index, k, low);
  if (!minus)
    return minus.takeError();
  double sum = 0;
  for (unsigned j = 0; j < adjoint.numAdjoints(); ++j) {
    const Argument &p = (*plus)[adjoint.primalOf[j]];
    const Argument &m = (*minus)[adjoint.primalOf[j]];
    for (size_t i = 0, e = numScalars(w[j]); i < e; ++i)
      sum += getScalar(w[j], i) * (getScalar(p, i) - getScalar(m, i));
  }
  return sum / (high - low);
}

Expected<GradCheckResult> GradChecker::checkArgument(unsigned j) {
  unsigned index = adjoint.primalOf[j];
  const Argument &input = inputs[index];
  GradCheckResult result;
  result.name = input.param.name;
  for (size_t k = 0, e = numScalars(input); k < e; ++k) {
    Expected<double> fd = finiteDifference(index, k);
    if (!fd)
      return fd.takeError();
    result.record(getScalar(gradients[j], k), *fd, atol, rtol,
                  [&] { return describeNumber(input, k); });
  }
  return result;
}

/// The adjoint arguments `only` names (all when it is empty).
static Expected<std::vector<unsigned>>
selectArguments(const AdjointSignature &adjoint, ArrayRef<std::string> only) {
  std::vector<unsigned> selected;
  for (unsigned j = 0; j < adjoint.numAdjoints(); ++j)
    if (only.empty() || llvm::is_contained(only, adjoint.primalParam(j).name))
      selected.push_back(j);
  for (const std::string &name : only)
    if (llvm::none_of(selected, [&](unsigned j) {
          return adjoint.primalParam(j).name == name;
        }))
      return fail("'" + name + "' is not an argument of '" +
                  adjoint.primalKernel + "' with an adjoint (" +
                  listDerivatives(adjoint) + ")");
  return selected;
}

Expected<GradCheckReport>
runner::checkGradient(const AdjointSignature &adjoint,
                      ArrayRef<Argument> inputs, Launcher launch,
                      const GradCheckOptions &options) {
  if (Error error = checkContiguous(adjoint, inputs))
    return std::move(error);
  Expected<std::vector<unsigned>> selected =
      selectArguments(adjoint, options.only);
  if (!selected)
    return selected.takeError();
  GradCheckReport report;
  GradChecker checker(adjoint, inputs, launch);
  if (Error error = checker.prepare(options, report))
    return std::move(error);
  for (unsigned j : *selected) {
    Expected<GradCheckResult> result = checker.checkArgument(j);
    if (!result)
      return result.takeError();
    report.results.push_back(std::move(*result));
  }
  return report;
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

static std::string formatNumber(double value) {
  std::string text;
  raw_string_ostream(text) << format("%.2e", value);
  return text;
}

void runner::writeGradCheckReport(raw_ostream &os,
                                  const GradCheckReport &report) {
  os << (report.forward ? "tangent check of " : "gradient check of ")
     << report.kernel
     << (report.forward ? " against central directional differences"
                        : " against central differences")
     << " (seed " << report.seed << "): pass if |AD - FD| <= "
     << format("%g", report.atol) << " + "
     << format("%g", report.rtol) << " * |FD|\n";
  size_t nameWidth = StringRef("argument").size();
  size_t worstWidth = StringRef("worst").size();
  for (const GradCheckResult &result : report.results) {
    nameWidth = std::max(nameWidth, result.name.size());
    worstWidth = std::max(worstWidth, result.worst.size());
  }
  os << left_justify("argument", nameWidth) << "  numbers  max abs err"
     << "  max rel err  " << left_justify("worst", worstWidth)
     << "   err/tol  result\n";
  for (const GradCheckResult &result : report.results)
    os << left_justify(result.name, nameWidth) << "  "
       << right_justify(std::to_string(result.numChecked), 7) << "  "
       << right_justify(formatNumber(result.maxAbsError), 11) << "  "
       << right_justify(formatNumber(result.maxRelError), 11) << "  "
       << left_justify(result.worst, worstWidth) << "  "
       << right_justify(formatNumber(result.worstRatio), 8) << "  "
       << (result.passed() ? "ok" : "FAIL") << "\n";
}
