//===- GradientTest.cpp - Tests of ksc-run's gradient modes ------------===//
//
// Part of ksc. The kernels are C++ functions here: `square` computes
// y[i] = x[i] * x[i] * s, and its adjoint and tangent kernels are written
// by hand, right and wrong.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Gradient.h"
#include "ksc/Runner/Tangent.h"
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

/// square_jvp(x, s, y, n, tan_x, tan_s, tan_y): tan_s a float by value.
TangentSignature squareTangent() {
  TangentSignature tangent;
  tangent.primalKernel = "square";
  tangent.signature.kernel = "square_jvp";
  tangent.signature.params = {
      array("x", Scalar::F32, true),     scalar("s", Scalar::F32),
      array("y", Scalar::F32),           scalar("n", Scalar::I32),
      array("tan_x", Scalar::F32, true), scalar("tan_s", Scalar::F32),
      array("tan_y", Scalar::F32)};
  tangent.numPrimal = 4;
  tangent.primalOf = {0, 1, 2};
  return tangent;
}

/// How the hand-written adjoint or tangent goes wrong.
enum class Bug { None, MissingFactor2, KeepsOutputAdjoint, TangentFactor3 };

/// Runs `square`, `square_adj` or `square_jvp` (with `bug`) on `threads`
/// threads.
Error launchSquare(StringRef kernel, std::vector<Argument> &args, Bug bug,
                   int threads) {
  float s = get(args[1], 0);
  for (int i = 0; i < threads; ++i) {
    float x = get(args[0], i);
    set(args[2], i, x * x * s);
    if (kernel == "square")
      continue;
    if (kernel == "square_jvp") {
      float factor = bug == Bug::TangentFactor3 ? 3.0f : 2.0f;
      set(args[6], i, factor * x * s * get(args[4], i) + x * x * get(args[5], 0));
      continue;
    }
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

/// The reverse check with `adjointBug`, then the forward check with
/// `tangentBug`.
TangentCheckReport checkForward(Bug adjointBug, Bug tangentBug,
                                GradCheckOptions options = {}) {
  AdjointSignature adjoint = squareAdjoint();
  TangentSignature tangent = squareTangent();
  std::vector<Argument> inputs = squareInputs(adjoint);
  Bug bug = adjointBug;
  auto launch = [&](StringRef kernel, std::vector<Argument> &args) {
    return launchSquare(kernel, args, bug, 3);
  };
  Expected<GradCheckReport> reverse =
      checkGradient(adjoint, inputs, launch, options);
  EXPECT_TRUE(bool(reverse)) << toString(reverse.takeError());
  if (!reverse)
    return TangentCheckReport();
  bug = tangentBug;
  Expected<TangentCheckReport> report =
      checkTangent(tangent, adjoint, inputs, *reverse, launch, options);
  EXPECT_TRUE(bool(report)) << toString(report.takeError());
  return report ? std::move(*report) : TangentCheckReport();
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

//===----------------------------------------------------------------------===//
// Forward mode
//===----------------------------------------------------------------------===//

TEST(TangentTest, ARightTangentPasses) {
  TangentCheckReport report = checkForward(Bug::None, Bug::None);
  const GradCheckReport &table = report.directional;
  EXPECT_TRUE(table.forward);
  EXPECT_EQ(table.kernel, "square_jvp");
  // A row per argument with a tangent array; the scalar s has none.
  ASSERT_EQ(table.results.size(), 2u);
  EXPECT_EQ(table.results[0].name, "x");
  EXPECT_EQ(table.results[1].name, "y");
  EXPECT_EQ(table.results[1].numChecked, 3);
  EXPECT_EQ(table.worstFailure(), nullptr);
  // x is an input: its output tangent is its input, its difference but for
  // the rounding of v to float.
  EXPECT_LT(table.results[0].maxRelError, 1e-7);
  EXPECT_TRUE(report.dot.passed());
  EXPECT_EQ(report.dot.tol, 1e-4);
  EXPECT_NE(report.dot.forward, 0);
  EXPECT_LT(report.dot.relativeDifference(), 1e-5);
}

TEST(TangentTest, AWrongTangentFailsTheTableAndTheDotProduct) {
  TangentCheckReport report = checkForward(Bug::None, Bug::TangentFactor3);
  const GradCheckResult *worst = report.directional.worstFailure();
  ASSERT_NE(worst, nullptr);
  EXPECT_EQ(worst->name, "y");
  EXPECT_FALSE(report.dot.passed());
}

TEST(TangentTest, AWrongAdjointFailsTheDotProduct) {
  // Loose tolerances let the reverse table pass; the dot product does not.
  GradCheckOptions options;
  options.atol = 100;
  TangentCheckReport report =
      checkForward(Bug::MissingFactor2, Bug::None, options);
  EXPECT_EQ(report.directional.worstFailure(), nullptr);
  EXPECT_FALSE(report.dot.passed());
  EXPECT_GT(report.dot.relativeDifference(), 1e-2);
}

TEST(TangentTest, OnlyTheArgumentsAskedMove) {
  GradCheckOptions options;
  options.only = {"s"};
  TangentCheckReport report = checkForward(Bug::None, Bug::None, options);
  // v is zero but for s: x's tangent stays zero, y's is x^2 v_s.
  ASSERT_EQ(report.directional.results.size(), 2u);
  EXPECT_EQ(report.directional.results[0].worstAD, 0);
  EXPECT_EQ(report.directional.worstFailure(), nullptr);
  EXPECT_TRUE(report.dot.passed());
}

/// The tangents of `width` directions read from `text`, or the error.
std::string parseTan(const char *text, unsigned width,
                     std::vector<Argument> *out = nullptr) {
  TangentSignature tangent = squareTangent();
  tangent.width = width;
  std::vector<Argument> inputs = squareInputs(squareAdjoint());
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return "bad test JSON: " + toString(value.takeError());
  if (width > 1) {
    tangent.signature.params[4].rank = 2;
    tangent.signature.params[5] = array("tan_s", Scalar::F32, true);
    tangent.signature.params[6].rank = 2;
  }
  Expected<std::vector<Argument>> tangents =
      parseTangents(tangent, inputs, *value);
  if (!tangents)
    return toString(tangents.takeError());
  if (out)
    *out = std::move(*tangents);
  return "";
}

TEST(TangentTest, ReadsTangentsByPrimalName) {
  std::vector<Argument> tangents;
  ASSERT_EQ(parseTan(R"({"x": [1, 0, 2], "s": 0.5})", 1, &tangents), "");
  ASSERT_EQ(tangents.size(), 3u);
  EXPECT_EQ(tangents[0].param.name, "x");
  EXPECT_EQ(get(tangents[0], 2), 2.0f);
  // A scalar's tangent is a scalar.
  EXPECT_FALSE(tangents[1].param.isArray);
  EXPECT_EQ(get(tangents[1], 0), 0.5f);
  EXPECT_EQ(tangents[2].shape, std::vector<int64_t>{3});
  EXPECT_EQ(get(tangents[2], 1), 0.0f); // missing: zero

  // Two directions: a first dimension of 2, a list of 2 for the scalar.
  ASSERT_EQ(parseTan(R"({"x": [[1, 0, 2], [0, 1, 3]], "s": [0.5, 4]})", 2,
                     &tangents),
            "");
  EXPECT_EQ(tangents[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(get(tangents[0], 5), 3.0f);
  EXPECT_EQ(tangents[1].shape, std::vector<int64_t>{2});
  EXPECT_EQ(get(tangents[1], 1), 4.0f);
  EXPECT_EQ(tangents[2].shape, (std::vector<int64_t>{2, 3}));
}

TEST(TangentTest, TangentErrorsNameTheArgument) {
  EXPECT_EQ(parseTan(R"({"y": [1, 2]})", 1),
            "the tangent of 'y' has shape [2]; it needs [3], the shape of "
            "'y'");
  EXPECT_EQ(parseTan(R"({"n": 1})", 1),
            "argument 'n' has no tangent; the arguments of 'square' with "
            "tangents are x, s, y");
  EXPECT_EQ(parseTan(R"({"tan_x": [1, 1, 1]})", 1),
            "unknown argument 'tan_x'; the arguments of 'square' with "
            "tangents are x, s, y");
  EXPECT_EQ(parseTan(R"({"s": [1, 2, 3]})", 2),
            "the tangent of 's' has shape [3]; it needs [2]: a list of 2 "
            "float values, one per tangent direction (--width=2), for the "
            "float argument 's'");
  EXPECT_EQ(parseTan(R"({"y": [[1, 2, 3], [1, 2, 3], [1, 2, 3]]})", 2),
            "the tangent of 'y' has shape [3, 3]; it needs [2, 3]: a first "
            "dimension of 2, one per tangent direction (--width=2), then the "
            "shape of 'y'");
}

TEST(TangentTest, RunsTheTangentKernel) {
  TangentSignature tangent = squareTangent();
  std::vector<Argument> args = squareInputs(squareAdjoint());
  std::vector<Argument> tangents;
  ASSERT_EQ(parseTan(R"({"x": [1, 0, 0.5], "s": 2})", 1, &tangents), "");
  auto launch = [&](StringRef kernel, std::vector<Argument> &values) {
    return launchSquare(kernel, values, Bug::None, 3);
  };
  ASSERT_FALSE(bool(runTangent(tangent, args, tangents, launch)));
  // tan_y = 2 x s tan_x + x^2 tan_s = [1 + 2, 8, -1.5 + 18]; y = x^2 s.
  EXPECT_EQ(get(tangents[2], 0), 3.0f);
  EXPECT_EQ(get(tangents[2], 1), 8.0f);
  EXPECT_EQ(get(tangents[2], 2), 16.5f);
  EXPECT_EQ(get(args[2], 2), 4.5f);
  std::string text;
  raw_string_ostream os(text);
  writeTangents(os, args, tangents);
  EXPECT_EQ(text, "{\n  \"x\": [1, 2, -3],\n  \"y\": [0.5, 2, 4.5],\n"
                  "  \"tan_x\": [1, 0, 0.5],\n  \"tan_y\": [3, 8, 16.5]\n}\n");
}

TEST(TangentTest, HessianVectorProductsAreNamedAfterThePrimal) {
  // K_hvp of square_adj: tangents of x (K_adj's argument 0) and of adj_x,
  // adj_s (K_adj's arguments 4 and 5).
  AdjointSignature adjoint = squareAdjoint();
  TangentSignature hvp;
  hvp.numPrimal = 7;
  hvp.primalOf = {0, 4, 5};
  std::vector<Argument> tangents(3);
  for (Argument &arg : tangents)
    arg.param = array("t", Scalar::F32);
  std::vector<Argument> products =
      getHessianVectorProducts(adjoint, hvp, tangents);
  ASSERT_EQ(products.size(), 2u);
  EXPECT_EQ(products[0].param.name, "x");
  EXPECT_EQ(products[1].param.name, "s");
}
