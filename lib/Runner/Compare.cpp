//===- Compare.cpp - Run kernels on two executors and compare ---------===//
//
// Part of ksc. `ksc-run --compare=cpu`: every launch runs on the tested
// executor (the GPU) and on the reference (the CPU), each on its own copy
// of the arguments, and every writable array argument is compared after
// it: floats and doubles within a tolerance of their precision, integers
// and bools exactly.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Executor.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

std::string CompareExecutor::describe() const {
  return tested.describe() + " against " + reference.describe();
}

Error CompareExecutor::launch(StringRef kernel, std::vector<Argument> &args) {
  std::vector<Argument> expected = args;
  if (Error error = reference.launch(kernel, expected))
    return createStringError(inconvertibleErrorCode(),
                             "on the reference (" + reference.describe() +
                                 "): " + toString(std::move(error)));
  if (Error error = tested.launch(kernel, args))
    return error;
  // (A launch does not change the const arrays.)
  for (auto [got, want] : llvm::zip(args, expected))
    if (got.param.isArray && !got.param.isConst)
      compare(kernel, got, want);
  return Error::success();
}

/// Number `k` of a value of type `scalar` at `p`, as a double.
static double load(Scalar scalar, const uint8_t *p) {
  auto get = [&](auto value) {
    std::memcpy(&value, p, sizeof(value));
    return static_cast<double>(value);
  };
  switch (scalar) {
  case Scalar::F32:
    return get(float());
  case Scalar::F64:
    return get(double());
  case Scalar::I1:
    return *p ? 1 : 0;
  case Scalar::I32:
    return get(int32_t());
  case Scalar::U32:
    return get(uint32_t());
  case Scalar::I64:
    return get(int64_t());
  }
  llvm_unreachable("unknown scalar");
}

/// Names element `index` of the buffer of `arg` (`y[1][2]`, or `y.data[7]`
/// for a strided view), and its number `component` when an element has
/// several.
static std::string describeNumber(const Argument &arg, int64_t index,
                                  int component, int numComponents) {
  std::string text = arg.param.name;
  if (!arg.strides.empty()) {
    text += ".data[" + std::to_string(index) + "]";
  } else {
    std::string indices;
    for (int64_t d = static_cast<int64_t>(arg.shape.size()) - 1; d >= 0; --d) {
      int64_t extent = std::max<int64_t>(arg.shape[d], 1);
      indices = "[" + std::to_string(index % extent) + "]" + indices;
      index /= extent;
    }
    text += indices;
  }
  if (numComponents > 1)
    text += " component " + std::to_string(component);
  return text;
}

void CompareExecutor::compare(StringRef kernel, const Argument &got,
                              const Argument &want) {
  auto it = llvm::find_if(results, [&](const ArrayComparison &result) {
    return result.kernel == kernel && result.name == got.param.name;
  });
  if (it == results.end()) {
    results.push_back({kernel.str(), got.param.name});
    it = std::prev(results.end());
  }
  ArrayComparison &result = *it;
  const ValueType &type = got.param.type;
  int numComponents = 0;
  type.forEachScalar([&](Scalar, size_t) { ++numComponents; });
  for (int64_t e = 0, n = got.numStoredElements(); e < n; ++e) {
    int component = 0;
    type.forEachScalar([&](Scalar scalar, size_t offset) {
      size_t at = e * type.size() + offset;
      double a = load(scalar, &got.bytes[at]);
      double b = load(scalar, &want.bytes[at]);
      bool isFloat = scalar == Scalar::F32 || scalar == Scalar::F64;
      double diff = std::abs(a - b), ratio;
      if (a == b || (std::isnan(a) && std::isnan(b))) {
        diff = 0;
        ratio = 0;
      } else if (!isFloat || !std::isfinite(a) || !std::isfinite(b)) {
        ratio = std::numeric_limits<double>::infinity();
      } else {
        const Tolerance &tol =
            scalar == Scalar::F32 ? options.f32 : options.f64;
        ratio = diff / (tol.atol + tol.rtol * std::abs(b));
        if (std::isnan(ratio))
          ratio = std::numeric_limits<double>::infinity();
      }
      ++result.numCompared;
      if (!std::isnan(diff))
        result.maxAbsDiff = std::max(result.maxAbsDiff, diff);
      if (b != 0 && std::isfinite(b) && !std::isnan(diff))
        result.maxRelDiff = std::max(result.maxRelDiff, diff / std::abs(b));
      if (result.worst.empty() || ratio > result.worstRatio) {
        result.worst = describeNumber(got, e, component, numComponents);
        result.worstTested = a;
        result.worstReference = b;
        result.worstRatio = ratio;
      }
      ++component;
    });
  }
}

const ArrayComparison *CompareExecutor::worstFailure() const {
  const ArrayComparison *worst = nullptr;
  for (const ArrayComparison &result : results)
    if (!result.passed() && (!worst || result.worstRatio > worst->worstRatio))
      worst = &result;
  return worst;
}

static std::string formatNumber(double value) {
  std::string text;
  raw_string_ostream(text) << format("%.2e", value);
  return text;
}

void CompareExecutor::writeReport(raw_ostream &os) const {
  os << "comparison of " << tested.describe() << " with "
     << reference.describe() << ": pass if |diff| <= atol + rtol * |"
     << reference.describe() << "| (float: atol "
     << format("%g", options.f32.atol) << ", rtol "
     << format("%g", options.f32.rtol) << "; double: atol "
     << format("%g", options.f64.atol) << ", rtol "
     << format("%g", options.f64.rtol) << "; integers and bools: equal)\n";
  size_t kernelWidth = StringRef("kernel").size();
  size_t nameWidth = StringRef("array").size();
  size_t worstWidth = StringRef("worst").size();
  for (const ArrayComparison &result : results) {
    kernelWidth = std::max(kernelWidth, result.kernel.size());
    nameWidth = std::max(nameWidth, result.name.size());
    worstWidth = std::max(worstWidth, result.worst.size());
  }
  os << left_justify("kernel", kernelWidth) << "  "
     << left_justify("array", nameWidth)
     << "  numbers  max abs diff  max rel diff  "
     << left_justify("worst", worstWidth) << "  diff/tol  result\n";
  for (const ArrayComparison &result : results)
    os << left_justify(result.kernel, kernelWidth) << "  "
       << left_justify(result.name, nameWidth) << "  "
       << right_justify(std::to_string(result.numCompared), 7) << "  "
       << right_justify(formatNumber(result.maxAbsDiff), 12) << "  "
       << right_justify(formatNumber(result.maxRelDiff), 12) << "  "
       << left_justify(result.worst, worstWidth) << "  "
       << right_justify(formatNumber(result.worstRatio), 8) << "  "
       << (result.passed() ? "ok" : "FAIL") << "\n";
}

std::string CompareExecutor::describeFailure(const ArrayComparison &failure) {
  return "array '" + failure.name + "' of kernel '" + failure.kernel +
         "' at " + failure.worst + ": GPU " + formatValue(failure.worstTested) +
         ", CPU " + formatValue(failure.worstReference) + " (|diff| is " +
         formatValue(failure.worstRatio) + " times the tolerance)";
}
