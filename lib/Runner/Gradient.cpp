//===- Gradient.cpp - Run and check adjoint kernels -------------------===//
//
// Part of ksc. Adjoint arrays for `K_adj` (zeros, or read from JSON), its
// launch, and the gradient check: the vector-Jacobian product `K_adj`
// computes for random output adjoints w, against central finite
// differences of <w, F>, where F maps the values of `K`'s arguments before
// a launch to the values of those with adjoints after it.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Gradient.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// The numbers of an argument made of floats or doubles
//===----------------------------------------------------------------------===//

/// The number of floats or doubles `arg` holds (contiguous, no struct).
static size_t numScalars(const Argument &arg) {
  return arg.bytes.size() / getScalarSize(arg.param.type.scalar);
}

static double getScalar(const Argument &arg, size_t k) {
  const uint8_t *p =
      arg.bytes.data() + k * getScalarSize(arg.param.type.scalar);
  if (arg.param.type.scalar == Scalar::F32) {
    float value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  double value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

/// `value` as `arg` stores it: rounded to float for a float argument.
static double roundTo(const Argument &arg, double value) {
  if (arg.param.type.scalar == Scalar::F32)
    return static_cast<float>(value);
  return value;
}

static void setScalar(Argument &arg, size_t k, double value) {
  uint8_t *p = arg.bytes.data() + k * getScalarSize(arg.param.type.scalar);
  if (arg.param.type.scalar == Scalar::F32) {
    float rounded = static_cast<float>(value);
    std::memcpy(p, &rounded, sizeof(rounded));
    return;
  }
  std::memcpy(p, &value, sizeof(value));
}

/// Row-major indices of `flat` in `shape`, as `[i][j]`.
static std::string formatIndex(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string text;
  for (int64_t i : index)
    text += "[" + std::to_string(i) + "]";
  return text;
}

/// Names number `k` of `arg`: `x[2]`, `s`, `v[1] component [0]`.
static std::string describeNumber(const Argument &arg, size_t k) {
  const ValueType &type = arg.param.type;
  size_t perElement = type.size() / getScalarSize(type.scalar);
  std::string text = arg.param.name;
  if (arg.param.isArray)
    text += formatIndex(k / perElement, arg.shape);
  if (!type.components.empty())
    text += " component " + formatIndex(k % perElement, type.components);
  return text;
}

//===----------------------------------------------------------------------===//
// Adjoint arrays and the launch of K_adj
//===----------------------------------------------------------------------===//

Error runner::checkContiguous(const AdjointSignature &adjoint,
                              ArrayRef<Argument> primal) {
  for (unsigned j = 0; j < adjoint.numAdjoints(); ++j)
    if (!primal[adjoint.primalOf[j]].strides.empty())
      return fail("argument '" + adjoint.primalParam(j).name +
                  "': computing gradients needs a contiguous array (nested "
                  "lists or a random generator), not a strided view");
  return Error::success();
}

std::vector<Argument> runner::makeAdjoints(const AdjointSignature &adjoint,
                                           ArrayRef<Argument> primal) {
  std::vector<Argument> adjoints;
  for (unsigned j = 0; j < adjoint.numAdjoints(); ++j) {
    const Argument &of = primal[adjoint.primalOf[j]];
    Argument arg;
    arg.param = adjoint.adjointParam(j);
    arg.param.name = of.param.name;
    arg.shape = of.param.isArray ? of.shape : std::vector<int64_t>{1};
    arg.bytes.assign(arg.numElements() * arg.param.type.size(), 0);
    adjoints.push_back(std::move(arg));
  }
  return adjoints;
}

/// "x, s, y": the arguments with adjoints.
static std::string listAdjoints(const AdjointSignature &adjoint) {
  std::string names;
  ListSeparator sep;
  for (unsigned j = 0; j < adjoint.numAdjoints(); ++j)
    names += std::string(StringRef(sep)) + adjoint.primalParam(j).name;
  return names;
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  return "[" +
         join(map_range(shape, [](int64_t n) { return std::to_string(n); }),
              ", ") +
         "]";
}

/// Reads the output adjoint `value` of adjoint argument j over `zeros`,
/// which has the shape it needs.
static Error readAdjoint(const AdjointSignature &adjoint, unsigned j,
                         const json::Value &value, Argument &zeros) {
  Expected<Argument> arg = parseArgument(adjoint.adjointParam(j), value);
  if (!arg)
    return arg.takeError();
  const Param &primal = adjoint.primalParam(j);
  if (!arg->strides.empty())
    return fail("the adjoint of '" + primal.name +
                "' must be nested lists, not a strided view");
  if (arg->shape != zeros.shape)
    return fail("the adjoint of '" + primal.name + "' has shape " +
                formatShape(arg->shape) + "; it needs " +
                formatShape(zeros.shape) +
                (primal.isArray ? ", the shape of '" + primal.name + "'"
                                : ": a list of one " + primal.describe() +
                                      " for the " + primal.describe() +
                                      " argument '" + primal.name + "'"));
  zeros.bytes = std::move(arg->bytes);
  return Error::success();
}

Expected<std::vector<Argument>>
runner::parseAdjoints(const AdjointSignature &adjoint,
                      ArrayRef<Argument> primal, const json::Value &value) {
  std::vector<Argument> adjoints = makeAdjoints(adjoint, primal);
  const json::Object *object = value.getAsObject();
  std::string names = listAdjoints(adjoint);
  if (!object)
    return fail("the adjoints must be a JSON object mapping arguments of '" +
                adjoint.primalKernel + "' to their output adjoints (" + names +
                ")");
  for (const auto &entry : *object) {
    std::string key = entry.first.str();
    if (llvm::any_of(adjoints,
                     [&](const Argument &a) { return a.param.name == key; }))
      continue;
    bool isArgument = llvm::any_of(
        primal, [&](const Argument &a) { return a.param.name == key; });
    return fail((isArgument ? "argument '" + key + "' has no adjoint"
                            : "unknown argument '" + key + "'") +
                "; the arguments of '" + adjoint.primalKernel +
                "' with adjoints are " + names);
  }
  for (unsigned j = 0; j < adjoint.numAdjoints(); ++j)
    if (const json::Value *v = object->get(adjoints[j].param.name))
      if (Error error = readAdjoint(adjoint, j, *v, adjoints[j]))
        return std::move(error);
  return adjoints;
}

Error runner::runAdjoint(const AdjointSignature &adjoint,
                         ArrayRef<Argument> primal,
                         std::vector<Argument> &adjoints, Launcher launch) {
  std::vector<Argument> args(primal.begin(), primal.end());
  args.insert(args.end(), std::make_move_iterator(adjoints.begin()),
              std::make_move_iterator(adjoints.end()));
  Error error = launch(adjoint.signature.kernel, args);
  for (unsigned j = 0; j < adjoints.size(); ++j)
    adjoints[j] = std::move(args[adjoint.numPrimal + j]);
  return error;
}

//===----------------------------------------------------------------------===//
// The gradient check
//===----------------------------------------------------------------------===//

std::pair<double, double> runner::getDefaultTolerance(bool singlePrecision) {
  return singlePrecision ? std::make_pair(1e-3, 1e-2)
                         : std::make_pair(1e-7, 1e-6);
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
    single |= arg.param.type.scalar == Scalar::F32;
    for (size_t k = 0, e = numScalars(arg); k < e; ++k)
      setScalar(arg, k, 2 * rng.uniform() - 1);
  }
  // The step that balances the truncation error of central differences
  // (h^2) with rounding (eps / h), in the coarsest precision involved.
  double eps = single ? std::numeric_limits<float>::epsilon()
                      : std::numeric_limits<double>::epsilon();
  step = std::cbrt(eps);
  std::tie(atol, rtol) = getDefaultTolerance(single);
  atol = options.atol.value_or(atol);
  rtol = options.rtol.value_or(rtol);
  report.adjointKernel = adjoint.signature.kernel;
  report.atol = atol;
  report.rtol = rtol;
  report.seed = options.seed;
  gradients = w;
  return runAdjoint(adjoint, inputs, gradients, launch);
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
  double high = roundTo(input, x + h), low = roundTo(input, x - h);
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
    double ad = getScalar(gradients[j], k);
    double error = std::abs(ad - *fd);
    double ratio = error == 0 ? 0 : error / (atol + rtol * std::abs(*fd));
    if (std::isnan(ratio))
      ratio = std::numeric_limits<double>::infinity();
    ++result.numChecked;
    result.maxAbsError = std::max(result.maxAbsError, error);
    if (*fd != 0)
      result.maxRelError = std::max(result.maxRelError, error / std::abs(*fd));
    if (result.worst.empty() || ratio > result.worstRatio) {
      result.worst = describeNumber(input, k);
      result.worstAD = ad;
      result.worstFD = *fd;
      result.worstRatio = ratio;
    }
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
                  listAdjoints(adjoint) + ")");
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
  os << "gradient check of " << report.adjointKernel
     << " against central differences (seed " << report.seed
     << "): pass if |AD - FD| <= " << format("%g", report.atol) << " + "
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
