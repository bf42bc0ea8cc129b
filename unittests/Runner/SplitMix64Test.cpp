//===- SplitMix64Test.cpp - Tests of the tools' random numbers --------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/SplitMix64.h"

#include "gtest/gtest.h"

#include <cmath>

using ksc::SplitMix64;

// The first outputs of SplitMix64 from seed 0, as published with the
// algorithm (Vigna's splitmix64.c, and Java's SplittableRandom).
TEST(SplitMix64Test, MatchesTheReferenceSequence) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.next(), 0x06c45d188009454fULL);
}

TEST(SplitMix64Test, UniformIsInTheUnitInterval) {
  SplitMix64 rng(42);
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

TEST(SplitMix64Test, NormalHasUnitVariance) {
  SplitMix64 rng(7);
  double sum = 0, squares = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    double x = rng.normal();
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    squares += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.03);
  EXPECT_NEAR(squares / n, 1.0, 0.05);
}
