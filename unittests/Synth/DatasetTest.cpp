//===- DatasetTest.cpp - Seeds, shards and source normalization -------===//

#include "ksc/Synth/Dataset.h"

#include "gtest/gtest.h"

using namespace ksc::synth;

TEST(DatasetTest, SeedsCarryTheirCategory) {
  for (Category category : allCategories())
    for (uint64_t id : {0ull, 1ull, 12345ull, 99999999ull}) {
      uint64_t seed = recordSeed(7, id, category);
      EXPECT_LT(seed, uint64_t(1) << 52);
      EXPECT_EQ(categoryOfSeed(seed), category);
    }
  EXPECT_EQ(categoryOfSeed(15), std::nullopt);
  EXPECT_EQ(categoryOfSeed(uint64_t(1) << 60), std::nullopt);
  // Different ids and dataset seeds give different record seeds.
  EXPECT_NE(recordSeed(7, 1, Category::Loop), recordSeed(7, 2, Category::Loop));
  EXPECT_NE(recordSeed(7, 1, Category::Loop), recordSeed(8, 1, Category::Loop));
}

TEST(DatasetTest, ShardsPartitionTheIds) {
  for (uint64_t total : {0ull, 1ull, 7ull, 50ull, 100000ull})
    for (unsigned count : {1u, 2u, 3u, 8u, 64u}) {
      uint64_t next = 0;
      for (unsigned index = 0; index < count; ++index) {
        auto [begin, end] = shardRange(total, index, count);
        EXPECT_EQ(begin, next);
        EXPECT_LE(end - begin, total / count + 1);
        next = end;
      }
      EXPECT_EQ(next, total);
    }
}

TEST(DatasetTest, NormalizationRenamesLocalNamesOnly) {
  SourceNormalizer normalizer;
  ASSERT_TRUE(normalizer.valid());
  std::string a = normalizer.normalize(
      "KSC_KERNEL void f(array<float> x) {\n  int i = tid();\n"
      "  vec3 v = vec3(x[i], 0.0f, 1e-3f);\n  x[i] = sin(v.x) + length(v);\n}\n");
  EXPECT_EQ(a, "KSC_KERNEL void v0 ( array < float > v1 ) { int v2 = tid ( ) ; "
               "vec3 v3 = vec3 ( v1 [ v2 ] , 0.0f , 1e-3f ) ; v1 [ v2 ] = sin "
               "( v3 . x ) + length ( v3 ) ; }");
  // Layout, comments and names do not matter; builtins and constants do.
  std::string b = normalizer.normalize(
      "// A comment.\n#include \"ksc/dsl.h\"\nKSC_KERNEL void g(array<float> "
      "y) { int j = tid(); vec3 w = vec3(y[j], 0.0f, 1e-3f); /* c */ y[j] = "
      "sin(w.x) + length(w); }");
  EXPECT_EQ(a, b);
  EXPECT_EQ(normalizer.fingerprint(
                "KSC_KERNEL void f(array<float> x) { x[tid()] = sin(1.0f); }"),
            normalizer.fingerprint(
                "KSC_KERNEL void h(array<float> q) { q[tid()] = sin(1.0f); }"));
  EXPECT_FALSE(normalizer.fingerprint(
                   "KSC_KERNEL void f(array<float> x) { x[tid()] = sin(1.0f); }") ==
               normalizer.fingerprint(
                   "KSC_KERNEL void f(array<float> x) { x[tid()] = cos(1.0f); }"));
  EXPECT_NE(normalizer.normalize("float a = randf(s);"),
            normalizer.normalize("float a = randn(s);"));
}

TEST(DatasetTest, StatsAddUpStageTimesThroughJSON) {
  Stats shard;
  shard.records = 3;
  shard.wallSeconds = 2.0;
  shard.stageSeconds["frontend"] = 1.5;
  shard.stageSeconds["cpp"] = 0.25;
  Stats read;
  ASSERT_TRUE(Stats::fromJSON(llvm::json::Value(shard.toJSON({})), read));
  EXPECT_EQ(read.stageSeconds, shard.stageSeconds);

  Stats merged = read;
  Stats other;
  other.wallSeconds = 3.0;
  other.stageSeconds["frontend"] = 0.5;
  other.stageSeconds["reverse_ad"] = 1.0;
  merged.merge(other);
  EXPECT_EQ(merged.stageSeconds.at("frontend"), 2.0);
  EXPECT_EQ(merged.stageSeconds.at("cpp"), 0.25);
  EXPECT_EQ(merged.stageSeconds.at("reverse_ad"), 1.0);
  EXPECT_EQ(merged.wallSeconds, 3.0);
}
