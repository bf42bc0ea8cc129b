//===- GradientTest.cpp - Tests of ksc-run's gradient modes ------------===//
//
// Part of ksc. The kernels are C++ functions here: `square` computes
// y[i] = x[i] * x[i] * s, and its adjoints are written by hand, right and
// wrong.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Gradient.h"
#include "Params.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace ksc::runner;
using namespace ksc::runner::test;

namespace {

/// square(array<const float> x, float s, array<float> y, int n) and
/// square_adj(x, s, y, n, adj_x, adj_s, adj_y).
AdjointSignature squareAdjoint() {
  AdjointSignature adjoint;
  adjoint.primalKernel = "square";
  adjoint.signature.kernel = "square_adj";
  adjoint.signature.params = {
      array("x", Scalar::F32, true), scalar("s", Scalar::F32),
      array("y", Scalar::F32),       scalar("n", Scalar::I32),
      array("adj_x", Scalar::F32),   array("adj_s", Scalar::F32),
      array("adj_y", Scalar::F32)};
  adjoint.numPrimal = 4;
  adjoint.primalOf = {0, 1, 2};
  return adjoint;
}

float get(const Argument &arg, size_t i) {
  float value;
  std::memcpy(&value, arg.bytes.data() + i * sizeof(float), sizeof(float));
  return value;
}

void set(Argument &arg, size_t i, float value) {
  std::memcpy(arg.bytes.data() + i * sizeof(float), &value, sizeof(float));
}

/// How the hand-written adjoint goes wrong.
enum class Bug { None, MissingFactor2, KeepsOutputAdjoint };

/// Runs `square` or `square_adj` (with `bug`) on `threads` threads.
Error launchSquare(StringRef kernel, std::vector<Argument> &args, Bug bug,
                   int threads) {
  float s = get(args[1], 0);
  for (int i = 0; i < threads; ++i) {
    float x = get(args[0], i);
    set(args[2], i, x * x * s);
    if (kernel == "square")
      continue;
    float dy = get(args[6], i);
    set(args[6], i, bug == Bug::KeepsOutputAdjoint ? dy : 0.0f);
    float factor = bug == Bug::MissingFactor2 ? 1.0f : 2.0f;
    set(args[4], i, get(args[4], i) + factor * x * s * dy);
    set(args[5], 0, get(args[5], 0) + x * x * dy);
  }
  return Error::success();
}

std::vector<Argument> squareInputs(const AdjointSignature &adjoint) {
  Expected<json::Value> value =
      json::parse(R"({"x": [1, 2, -3], "s": 0.5, "y": [0, 0, 0], "n": 3})");
  EXPECT_TRUE(bool(value));
  Signature primal;
  primal.kernel = adjoint.primalKernel;
  primal.params.assign(adjoint.signature.params.begin(),
                       adjoint.signature.params.begin() + adjoint.numPrimal);
  Expected<std::vector<Argument>> args = parseArguments(primal, *value);
  EXPECT_TRUE(bool(args));
  return args ? std::move(*args) : std::vector<Argument>();
}

GradCheckReport check(Bug bug, GradCheckOptions options = {}) {
  AdjointSignature adjoint = squareAdjoint();
  std::vector<Argument> inputs = squareInputs(adjoint);
  auto launch = [&](StringRef kernel, std::vector<Argument> &args) {
    return launchSquare(kernel, args, bug, 3);
  };
  Expected<GradCheckReport> report =
      checkGradient(adjoint, inputs, launch, options);
  EXPECT_TRUE(bool(report)) << toString(report.takeError());
  return report ? std::move(*report) : GradCheckReport();
}

/// The adjoints read from `text`, or the error message.
std::string parse(const char *text, std::vector<Argument> *out = nullptr) {
  AdjointSignature adjoint = squareAdjoint();
  std::vector<Argument> inputs = squareInputs(adjoint);
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return "bad test JSON: " + toString(value.takeError());
  Expected<std::vector<Argument>> adjoints =
      parseAdjoints(adjoint, inputs, *value);
  if (!adjoints)
    return toString(adjoints.takeError());
  if (out)
    *out = std::move(*adjoints);
  return "";
}
} // namespace

TEST(GradientTest, ARightAdjointPasses) {
  GradCheckReport report = check(Bug::None);
  ASSERT_EQ(report.results.size(), 3u);
  EXPECT_EQ(report.worstFailure(), nullptr);
  EXPECT_EQ(report.results[0].name, "x");
  EXPECT_EQ(report.results[0].numChecked, 3);
  EXPECT_EQ(report.results[1].name, "s");
  EXPECT_EQ(report.results[1].numChecked, 1);
  // float: the default tolerances are atol 1e-3, rtol 1e-2.
  EXPECT_EQ(report.atol, 1e-3);
  EXPECT_EQ(report.rtol, 1e-2);
  for (const GradCheckResult &result : report.results)
    EXPECT_LT(result.maxAbsError, 1e-3) << result.name;
}

TEST(GradientTest, AWrongDerivativeFailsAtTheWorstElement) {
  GradCheckReport report = check(Bug::MissingFactor2);
  const GradCheckResult *worst = report.worstFailure();
  ASSERT_NE(worst, nullptr);
  // FD - AD is x s w_y: the numbers of x fail, those of s and y pass.
  EXPECT_EQ(worst->name, "x");
  EXPECT_EQ(StringRef(worst->worst).take_front(2), "x[");
  EXPECT_GT(worst->worstRatio, 10);
  EXPECT_TRUE(report.results[1].passed());
  EXPECT_TRUE(report.results[2].passed());
}

TEST(GradientTest, AnOverwrittenArrayHasNoInputAdjoint) {
  // y is overwritten: its input adjoint is 0, not the output adjoint.
  GradCheckReport report = check(Bug::KeepsOutputAdjoint);
  const GradCheckResult *worst = report.worstFailure();
  ASSERT_NE(worst, nullptr);
  EXPECT_EQ(worst->name, "y");
  EXPECT_EQ(worst->worstFD, 0);
}

TEST(GradientTest, ChecksOnlyTheArgumentsAsked) {
  GradCheckOptions options;
  options.only = {"s", "y"};
  GradCheckReport report = check(Bug::MissingFactor2, options);
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.worstFailure(), nullptr);

  AdjointSignature adjoint = squareAdjoint();
  std::vector<Argument> inputs = squareInputs(adjoint);
  options.only = {"n"};
  auto launch = [&](StringRef kernel, std::vector<Argument> &args) {
    return launchSquare(kernel, args, Bug::None, 3);
  };
  Expected<GradCheckReport> bad =
      checkGradient(adjoint, inputs, launch, options);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(toString(bad.takeError()),
            "'n' is not an argument of 'square' with an adjoint (x, s, y)");
}

TEST(GradientTest, TolerancesCanBeSet) {
  GradCheckOptions options;
  options.atol = 10;
  options.rtol = 0;
  GradCheckReport report = check(Bug::MissingFactor2, options);
  EXPECT_EQ(report.worstFailure(), nullptr);
  EXPECT_EQ(report.atol, 10);
  EXPECT_EQ(getDefaultTolerance(false), std::make_pair(1e-7, 1e-6));
}

TEST(GradientTest, ReadsAdjointsByPrimalName) {
  std::vector<Argument> adjoints;
  ASSERT_EQ(parse(R"({"y": [1, 1, 2], "s": [0.5]})", &adjoints), "");
  ASSERT_EQ(adjoints.size(), 3u);
  EXPECT_EQ(adjoints[0].param.name, "x");
  EXPECT_EQ(adjoints[0].shape, std::vector<int64_t>{3});
  EXPECT_EQ(get(adjoints[0], 2), 0.0f); // missing: zero
  EXPECT_EQ(adjoints[1].shape, std::vector<int64_t>{1});
  EXPECT_EQ(get(adjoints[1], 0), 0.5f);
  EXPECT_EQ(get(adjoints[2], 2), 2.0f);
}

TEST(GradientTest, RunsTheAdjointKernel) {
  AdjointSignature adjoint = squareAdjoint();
  std::vector<Argument> inputs = squareInputs(adjoint);
  std::vector<Argument> adjoints;
  ASSERT_EQ(parse(R"({"x": [0.5, 0, 0], "y": [1, 1, 2], "s": [1]})", &adjoints),
            "");
  auto launch = [&](StringRef kernel, std::vector<Argument> &args) {
    return launchSquare(kernel, args, Bug::None, 3);
  };
  ASSERT_FALSE(bool(runAdjoint(adjoint, inputs, adjoints, launch)));
  // adj_x = w_x + 2 x s w_y = w_x + x w_y; adj_s = w_s + sum x^2 w_y;
  // adj_y = 0 (y is overwritten). The inputs are unchanged.
  EXPECT_EQ(get(adjoints[0], 0), 1.5f);
  EXPECT_EQ(get(adjoints[0], 1), 2.0f);
  EXPECT_EQ(get(adjoints[0], 2), -6.0f);
  EXPECT_EQ(get(adjoints[1], 0), 24.0f);
  EXPECT_EQ(get(adjoints[2], 1), 0.0f);
  EXPECT_EQ(get(inputs[2], 0), 0.0f);
}

TEST(GradientTest, AdjointErrorsNameTheArgument) {
  EXPECT_EQ(parse(R"({"y": [1, 2]})"),
            "the adjoint of 'y' has shape [2]; it needs [3], the shape of "
            "'y'");
  EXPECT_EQ(parse(R"({"s": [1, 2]})"),
            "the adjoint of 's' has shape [2]; it needs [1]: a list of one "
            "float for the float argument 's'");
  EXPECT_EQ(parse(R"({"n": [1]})"),
            "argument 'n' has no adjoint; the arguments of 'square' with "
            "adjoints are x, s, y");
  EXPECT_EQ(parse(R"({"z": [1]})"),
            "unknown argument 'z'; the arguments of 'square' with adjoints "
            "are x, s, y");
  EXPECT_EQ(parse(R"([1])"),
            "the adjoints must be a JSON object mapping arguments of "
            "'square' to their output adjoints (x, s, y)");
  EXPECT_EQ(parse(R"({"x": [1, "a", 3]})"),
            "argument 'adj_x' (array<float>): element [1]: expected a "
            "number, got a string");
}

TEST(GradientTest, RefusesStridedViews) {
  AdjointSignature adjoint = squareAdjoint();
  std::vector<Argument> inputs = squareInputs(adjoint);
  inputs[0].strides = {1};
  EXPECT_EQ(toString(checkContiguous(adjoint, inputs)),
            "argument 'x': computing gradients needs a contiguous array "
            "(nested lists or a random generator), not a strided view");
}
