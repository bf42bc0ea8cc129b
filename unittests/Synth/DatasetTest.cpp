//===- DatasetTest.cpp - Seeds, shards and source normalization -------===//

#include "ksc/Synth/Dataset.h"
#include "ksc/Synth/Forms.h"

#include "gtest/gtest.h"

using namespace ksc::synth;

TEST(DatasetTest, SeedsCarryTheirCategory) {
  for (Category category : allCategories())
    for (uint64_t id : {0ull, 1ull, 12345ull, 99999999ull}) {
      uint64_t seed = recordSeed(7, id, category);
      EXPECT_LT(seed, uint64_t(1) << 52);
      EXPECT_EQ(categoryOfSeed(seed), category);
    }
  // The four bits are all in use: 15 is the last category's.
  EXPECT_EQ(categoryOfSeed(15), Category::Realistic);
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

/// The structure of `source`, from its ks IR.
static std::string structureOf(llvm::StringRef source) {
  std::unique_ptr<mlir::MLIRContext> context = createCompilerContext();
  FormSet forms;
  forms.insert(Form::KsMlir);
  CompiledForms compiled;
  std::string error;
  EXPECT_TRUE(compileForms(*context, "k.kdsl", source, forms, FormsOptions(),
                           compiled, error))
      << error;
  return fingerprintHex(structureFingerprint(compiled[Form::KsMlir]));
}

TEST(DatasetTest, StructureAbstractsConstantsAndNames) {
  // Constants, local, argument and kernel names: one structure.
  std::string a = structureOf(
      "KSC_KERNEL void f(array<float> x, float s) {\n  int i = tid();\n"
      "  float t = x[i] * 2.5f;\n  x[i] = sin(t + s) / 3.0f;\n}\n");
  EXPECT_EQ(a, structureOf("KSC_KERNEL void scale(array<float> out, float "
                           "gain) { int k = tid(); float v = out[k] * 0.5f; "
                           "out[k] = sin(v + gain) / 7.0f; }"));
  EXPECT_EQ(a.size(), 32u);
  EXPECT_TRUE(parseFingerprintHex(a).has_value());
  EXPECT_EQ(fingerprintHex(*parseFingerprintHex(a)), a);
  // Another builtin, another type, another operand: other structures.
  EXPECT_NE(a, structureOf("KSC_KERNEL void f(array<float> x, float s) { int "
                           "i = tid(); float t = x[i] * 2.5f; x[i] = cos(t + "
                           "s) / 3.0f; }"));
  EXPECT_NE(a, structureOf("KSC_KERNEL void f(array<double> x, double s) { "
                           "int i = tid(); double t = x[i] * 2.5; x[i] = "
                           "sin(t + s) / 3.0; }"));
  EXPECT_NE(a, structureOf("KSC_KERNEL void f(array<float> x, float s) { int "
                           "i = tid(); float t = x[i] * 2.5f; x[i] = sin(t - "
                           "s) / 3.0f; }"));
  EXPECT_FALSE(parseFingerprintHex("not hex").has_value());
  EXPECT_EQ(normalizeStructure("    %c3_i32 = arith.constant 3 : i32\n    "
                               "ks.kernel @k(%x: f32) attributes {ks.names = "
                               "[\"t\"]}"),
            "    % = arith.constant C : i32\n    ks.kernel @(%: f32) "
            "attributes {ks.names = [\"s\"]}\n");
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

/// The count of `group` / `key` in coverage JSON for `category`, 0 if none.
static int64_t coverageCount(const llvm::json::Object &coverage,
                             llvm::StringRef category, llvm::StringRef group,
                             llvm::StringRef key) {
  const llvm::json::Object *groups = coverage.getObject(category);
  const llvm::json::Object *keys = groups ? groups->getObject(group) : nullptr;
  return keys ? keys->getInteger(key).value_or(0) : 0;
}

TEST(DatasetTest, CoverageCountsConstructsBuiltinsAndSizes) {
  Record loop;
  loop.category = Category::Loop;
  loop.kernel.source = "struct P {\n"
                       "  vec3 pos;\n"
                       "};\n"
                       "\n"
                       "KSC_KERNEL void k(array<P> ps, array<float> out) {\n"
                       "  int i = tid();\n"
                       "  float s = 0.0f;\n"
                       "  for (int j = 0; j < 4; ++j) {\n"
                       "    while (s < 1.0f) {\n"
                       "      s += sin(ps[i].pos.x);\n"
                       "    }\n"
                       "  }\n"
                       "  out[i] = s > 0.5f ? s : 0.0f;\n"
                       "}\n";
  loop.formSet.insert(Form::CppAdj);
  loop.forms[Form::CppAdj] = "  tape.push(s);\n";
  Record plain;
  plain.category = Category::Math;
  plain.kernel.source = "KSC_KERNEL void m(array<float> x) {\n"
                        "  int i = tid();\n"
                        "  x[i] = sin(x[i]) + ps.pos.x;\n"
                        "}\n";
  Coverage coverage;
  coverage.add(loop);
  coverage.add(plain);
  llvm::json::Object json = coverage.toJSON();
  // Each record counts once per construct; `.pos` is no call of `pos`.
  EXPECT_EQ(coverageCount(json, "all", "uses", "sin"), 2);
  EXPECT_EQ(coverageCount(json, "all", "uses", "tid"), 2);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "for"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "while"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "nested loop"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "struct"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "vectors"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "?:"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "uses", "compound assignment"), 1);
  EXPECT_EQ(coverageCount(json, "math", "uses", "for"), 0);
  // Statements: the struct's field is none; loop headers are none.
  EXPECT_EQ(coverageCount(json, "loop", "statements", "4"), 1);
  EXPECT_EQ(coverageCount(json, "math", "statements", "2"), 1);
  EXPECT_EQ(coverageCount(json, "loop", "nesting_depth", "2"), 1);
  EXPECT_EQ(coverageCount(json, "math", "nesting_depth", "0"), 1);
  EXPECT_EQ(coverageCount(json, "all", "adjoint", "records"), 1);
  EXPECT_EQ(coverageCount(json, "all", "adjoint", "tape"), 1);

  // Through JSON (a checkpoint, a shard's statistics) and merged.
  Coverage read;
  ASSERT_TRUE(Coverage::fromJSON(llvm::json::Value(coverage.toJSON()), read));
  read.merge(coverage);
  llvm::json::Object twice = read.toJSON();
  EXPECT_EQ(coverageCount(twice, "all", "uses", "sin"), 4);
  EXPECT_EQ(coverageCount(twice, "loop", "statements", "4"), 2);
  Stats stats;
  stats.coverage = read;
  Stats back;
  ASSERT_TRUE(Stats::fromJSON(llvm::json::Value(stats.toJSON({})), back));
  EXPECT_EQ(coverageCount(back.coverage.toJSON(), "all", "adjoint", "tape"), 2);
  EXPECT_FALSE(Coverage::fromJSON(llvm::json::Value("x"), read));
}
