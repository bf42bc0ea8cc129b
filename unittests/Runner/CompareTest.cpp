//===- CompareTest.cpp - Tests of CompareExecutor ---------------------===//
//
// Part of ksc. Two executors that write given numbers into the arrays
// stand for the GPU and the CPU.
//
//===----------------------------------------------------------------------===//

#include "Params.h"
#include "ksc/Runner/Executor.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace ksc::runner;
using namespace ksc::runner::test;

namespace {

/// Writes `values` into every writable array (as its element type).
class WritingExecutor : public Executor {
public:
  explicit WritingExecutor(std::vector<double> values)
      : values(std::move(values)) {}
  Error launch(StringRef, std::vector<Argument> &args) override {
    for (Argument &arg : args) {
      if (!arg.param.isArray || arg.param.isConst)
        continue;
      for (size_t i = 0; i < values.size(); ++i) {
        if (arg.param.type.scalar == Scalar::F32) {
          float v = values[i];
          std::memcpy(arg.bytes.data() + 4 * i, &v, 4);
        } else if (arg.param.type.scalar == Scalar::F64) {
          std::memcpy(arg.bytes.data() + 8 * i, &values[i], 8);
        } else {
          int32_t v = values[i];
          std::memcpy(arg.bytes.data() + 4 * i, &v, 4);
        }
      }
    }
    return Error::success();
  }
  std::string describe() const override { return "writer"; }

private:
  std::vector<double> values;
};

Argument makeArray(Param param, size_t n) {
  Argument arg;
  arg.param = std::move(param);
  arg.shape = {int64_t(n)};
  arg.bytes.assign(n * arg.param.type.size(), 0);
  return arg;
}

/// The comparison of one array of `scalar` after `tested` and `reference`
/// wrote their values into it.
ArrayComparison compare(Scalar scalar, std::vector<double> tested,
                        std::vector<double> reference) {
  WritingExecutor gpu(tested), cpu(reference);
  CompareExecutor executor(gpu, cpu, CompareOptions());
  std::vector<Argument> args = {makeArray(array("x", scalar, true), 3),
                                makeArray(array("y", scalar), 3)};
  EXPECT_FALSE(errorToBool(executor.launch("k", args)));
  EXPECT_EQ(executor.getResults().size(), 1u); // y only: x is const
  return executor.getResults().front();
}

TEST(CompareTest, KeepsTheTestedResults) {
  WritingExecutor gpu({1.5, 2.5, 3.5}), cpu({1, 2, 3});
  CompareExecutor executor(gpu, cpu, CompareOptions());
  std::vector<Argument> args = {makeArray(array("y", Scalar::F64), 3)};
  ASSERT_FALSE(errorToBool(executor.launch("k", args)));
  double y1;
  std::memcpy(&y1, args[0].bytes.data() + 8, 8);
  EXPECT_EQ(y1, 2.5);
  EXPECT_EQ(executor.describe(), "writer against writer");
  EXPECT_EQ(executor.worstFailure(), &executor.getResults().front());
}

TEST(CompareTest, FloatsWithinTolerancePass) {
  ArrayComparison result =
      compare(Scalar::F32, {1.0, 2.0, 1000.0}, {1.0, 2.0, 1000.05});
  EXPECT_EQ(result.kernel, "k");
  EXPECT_EQ(result.name, "y");
  EXPECT_EQ(result.numCompared, 3);
  EXPECT_TRUE(result.passed());
  EXPECT_EQ(result.worst, "y[2]");
  EXPECT_NEAR(result.maxAbsDiff, 0.05, 1e-3);
}

TEST(CompareTest, FloatsBeyondToleranceFail) {
  ArrayComparison result =
      compare(Scalar::F32, {1.0, 2.5, 3.0}, {1.0, 2.0, 3.0});
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.worst, "y[1]");
  EXPECT_EQ(result.worstTested, 2.5);
  EXPECT_EQ(result.worstReference, 2.0);
}

TEST(CompareTest, DoublesHaveTighterTolerances) {
  EXPECT_TRUE(
      compare(Scalar::F64, {1.0, 2.0, 3.0}, {1.0, 2.0, 3.0 + 1e-11}).passed());
  EXPECT_FALSE(
      compare(Scalar::F64, {1.0, 2.0, 3.0}, {1.0, 2.0, 3.0 + 1e-8}).passed());
}

TEST(CompareTest, NaNsAndInfinities) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(
      compare(Scalar::F32, {nan, inf, -inf}, {nan, inf, -inf}).passed());
  ArrayComparison result = compare(Scalar::F32, {nan, 1, 1}, {1, 1, 1});
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.worst, "y[0]");
  EXPECT_FALSE(compare(Scalar::F32, {inf, 1, 1}, {-inf, 1, 1}).passed());
}

TEST(CompareTest, IntegersMustBeEqual) {
  EXPECT_TRUE(compare(Scalar::I32, {1, 2, 3}, {1, 2, 3}).passed());
  EXPECT_FALSE(compare(Scalar::I32, {1, 2, 4}, {1, 2, 3}).passed());
}

} // namespace
