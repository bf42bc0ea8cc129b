//===- ArgumentsTest.cpp - Tests of ksc-run's JSON arguments ----------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Runner.h"
#include "Params.h"

#include "gtest/gtest.h"

#include <cstddef>
#include <cstring>

using namespace llvm;
using namespace ksc::runner;
using namespace ksc::runner::test;

namespace {

Signature saxpy() {
  Signature sig;
  sig.kernel = "saxpy";
  sig.params = {scalar("a", Scalar::F32), array("x", Scalar::F32, true),
                array("y", Scalar::F32)};
  return sig;
}

/// The arguments for `text`, or the error message.
std::string parse(const Signature &sig, const char *text,
                  std::vector<Argument> *out = nullptr) {
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return "bad test JSON: " + toString(value.takeError());
  Expected<std::vector<Argument>> args = parseArguments(sig, *value);
  if (!args)
    return toString(args.takeError());
  if (out)
    *out = std::move(*args);
  return "";
}

template <typename T> T element(const Argument &arg, size_t i) {
  T value;
  std::memcpy(&value, arg.bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}
} // namespace

TEST(ArgumentsTest, ReadsScalarsAndArrays) {
  std::vector<Argument> args;
  ASSERT_EQ(parse(saxpy(), R"({"a": 2, "x": [1, 2.5], "y": [0, -1]})", &args),
            "");
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(element<float>(args[0], 0), 2.0f);
  EXPECT_EQ(args[1].shape, std::vector<int64_t>{2});
  EXPECT_EQ(element<float>(args[1], 1), 2.5f);
  EXPECT_EQ(element<float>(args[2], 1), -1.0f);
}

TEST(ArgumentsTest, NamesTheArgumentInEveryError) {
  Signature sig = saxpy();
  EXPECT_EQ(parse(sig, R"({"a": 2, "x": [1]})"),
            "missing argument 'y'; kernel saxpy(float a, array<const float> "
            "x, array<float> y)");
  EXPECT_EQ(parse(sig, R"({"a": 2, "x": [1], "y": [1], "z": 3})"),
            "unknown argument 'z'; kernel saxpy(float a, array<const float> "
            "x, array<float> y)");
  EXPECT_EQ(parse(sig, R"({"a": "two", "x": [1], "y": [1]})"),
            "argument 'a' (float): expected a number, got a string");
  EXPECT_EQ(parse(sig, R"({"a": 2, "x": [[1]], "y": [1]})"),
            "argument 'x' (array<const float>): element [0]: expected a "
            "number, got a nested list (the array has 1 dimension)");
  EXPECT_EQ(parse(sig, R"({"a": 2, "x": 1, "y": [1]})"),
            "argument 'x' (array<const float>): expected 1-dimensional "
            "nested lists, got 1");
  EXPECT_EQ(parse(sig, R"([1, 2])"),
            "the inputs must be a JSON object mapping the arguments of "
            "saxpy(float a, array<const float> x, array<float> y) to values");
}

TEST(ArgumentsTest, ChecksIntegersAndBools) {
  Signature sig;
  sig.kernel = "k";
  sig.params = {scalar("n", Scalar::I32), scalar("flag", Scalar::I1),
                array("v", Scalar::I64)};
  std::vector<Argument> args;
  EXPECT_EQ(parse(sig, R"({"n": 3.0, "flag": 1, "v": [-5, 9007199254740993]})",
                  &args),
            "");
  EXPECT_EQ(element<int32_t>(args[0], 0), 3);
  EXPECT_EQ(element<uint8_t>(args[1], 0), 1);
  EXPECT_EQ(element<int64_t>(args[2], 1), 9007199254740993LL);
  EXPECT_EQ(parse(sig, R"({"n": 2.5, "flag": true, "v": []})"),
            "argument 'n' (int): expected an integer, got 2.5");
  EXPECT_EQ(parse(sig, R"({"n": 3000000000, "flag": true, "v": []})"),
            "argument 'n' (int): expected a 32-bit integer, got 3000000000");
  EXPECT_EQ(parse(sig, R"({"n": 1, "flag": 2, "v": []})"),
            "argument 'flag' (bool): expected true, false, 0 or 1, got 2");
}

TEST(ArgumentsTest, GeneratesRandomInputsDeterministically) {
  Signature sig;
  sig.kernel = "k";
  sig.params = {array("u", Scalar::F64), array("g", Scalar::F32)};
  const char *text = R"({
    "u": {"random": "uniform", "shape": [1000], "seed": 3, "low": -2, "high": 4},
    "g": {"random": "normal", "shape": [5], "seed": 1}})";
  std::vector<Argument> first, second;
  ASSERT_EQ(parse(sig, text, &first), "");
  ASSERT_EQ(parse(sig, text, &second), "");
  EXPECT_EQ(first[0].bytes, second[0].bytes);
  EXPECT_EQ(first[1].bytes, second[1].bytes);
  for (size_t i = 0; i < 1000; ++i) {
    double u = element<double>(first[0], i);
    EXPECT_GE(u, -2.0);
    EXPECT_LT(u, 4.0);
  }
  // The first value is low + (high - low) * uniform() of SplitMix64(3).
  ksc::SplitMix64 rng(3);
  EXPECT_EQ(element<double>(first[0], 0), -2.0 + 6.0 * rng.uniform());
  EXPECT_EQ(parse(sig, R"({"u": {"random": "zipf", "shape": [2]}, "g": []})"),
            "argument 'u' (array<double>): \"random\" must be \"uniform\" or "
            "\"normal\"");
  EXPECT_EQ(parse(sig, R"({"u": {"random": "uniform", "size": 2}, "g": []})"),
            "argument 'u' (array<double>): unknown field 'size' in a random "
            "input (fields: random, shape, seed, low, high, mean, std)");
}

TEST(ArgumentsTest, WritesArraysWithShortestRoundTripNumbers) {
  Signature sig;
  sig.kernel = "k";
  sig.params = {scalar("s", Scalar::F32), array("f", Scalar::F32),
                array("d", Scalar::F64), array("b", Scalar::I1),
                array("i", Scalar::I32)};
  std::vector<Argument> args;
  ASSERT_EQ(parse(sig,
                  R"({"s": 1, "f": [0.1, 1e30, "nan", "-inf"], "d": [0.1],
                      "b": [true, false], "i": [-7]})",
                  &args),
            "");
  std::string text;
  raw_string_ostream os(text);
  writeArrays(os, args);
  EXPECT_EQ(text, "{\n"
                  "  \"f\": [0.1, 1e+30, \"nan\", \"-inf\"],\n"
                  "  \"d\": [0.1],\n"
                  "  \"b\": [true, false],\n"
                  "  \"i\": [-7]\n"
                  "}\n");
}

TEST(ArgumentsTest, ReadsAndWritesUnsignedIntegers) {
  Signature sig;
  sig.kernel = "k";
  sig.params = {scalar("seed", Scalar::U32), array("h", Scalar::U32)};
  std::vector<Argument> args;
  ASSERT_EQ(parse(sig, R"({"seed": 4294967295, "h": [0, 2147483648, 7.0]})",
                  &args),
            "");
  EXPECT_EQ(element<uint32_t>(args[0], 0), 4294967295u);
  EXPECT_EQ(element<uint32_t>(args[1], 1), 2147483648u);
  EXPECT_EQ(element<uint32_t>(args[1], 2), 7u);
  std::string text;
  raw_string_ostream os(text);
  writeArrays(os, args);
  EXPECT_EQ(text, "{\n  \"h\": [0, 2147483648, 7]\n}\n");

  // The range is [0, 2^32), checked where the value is.
  EXPECT_EQ(parse(sig, R"({"seed": -1, "h": []})"),
            "argument 'seed' (uint32_t): expected an unsigned 32-bit "
            "integer (0 to 4294967295), got -1");
  EXPECT_EQ(parse(sig, R"({"seed": 1, "h": [1, 4294967296]})"),
            "argument 'h' (array<uint32_t>): element [1]: expected an "
            "unsigned 32-bit integer (0 to 4294967295), got 4294967296");
  EXPECT_EQ(parse(sig, R"({"seed": 0.5, "h": []})"),
            "argument 'seed' (uint32_t): expected an integer, got 0.5");
  EXPECT_EQ(parse(sig, R"({"seed": 1, "h": {"random": "uniform",
                      "shape": [2], "low": -1}})"),
            "argument 'h' (array<uint32_t>): uniform random uint32_t inputs "
            "need 0 <= low and high <= 4294967296");
}

namespace {
/// struct Particle { vec3 pos; float mass; bool active; };
ValueType particle() {
  return ValueType::getStruct(
      "Particle", {{"pos", ValueType::get(Scalar::F32, {3})},
                   {"mass", ValueType::get(Scalar::F32)},
                   {"active", ValueType::get(Scalar::I1)}});
}
} // namespace

TEST(LayoutTest, LaysOutStructsAsCxxDoes) {
  // struct Settings { bool enabled; double scale; vec3 offset;
  //                   uint32_t seed; int64_t count; };
  ValueType settings = ValueType::getStruct(
      "Settings", {{"enabled", ValueType::get(Scalar::I1)},
                   {"scale", ValueType::get(Scalar::F64)},
                   {"offset", ValueType::get(Scalar::F32, {3})},
                   {"seed", ValueType::get(Scalar::U32)},
                   {"count", ValueType::get(Scalar::I64)}});
  struct Settings {
    bool enabled;
    double scale;
    float offset[3];
    uint32_t seed;
    int64_t count;
  };
  ASSERT_EQ(settings.fields.size(), 5u);
  EXPECT_EQ(settings.fields[0].offset, offsetof(Settings, enabled));
  EXPECT_EQ(settings.fields[1].offset, offsetof(Settings, scale));
  EXPECT_EQ(settings.fields[2].offset, offsetof(Settings, offset));
  EXPECT_EQ(settings.fields[3].offset, offsetof(Settings, seed));
  EXPECT_EQ(settings.fields[4].offset, offsetof(Settings, count));
  EXPECT_EQ(settings.size(), sizeof(Settings));
  EXPECT_EQ(settings.alignment(), alignof(Settings));

  // Tail padding: 17 bytes of fields in 20; nested, then 8-aligned.
  struct Particle {
    float pos[3];
    float mass;
    bool active;
  };
  struct Cell {
    Particle p;
    int64_t tag;
  };
  ValueType cell = ValueType::getStruct(
      "Cell", {{"p", particle()}, {"tag", ValueType::get(Scalar::I64)}});
  EXPECT_EQ(particle().size(), sizeof(Particle));
  EXPECT_EQ(cell.fields[1].offset, offsetof(Cell, tag));
  EXPECT_EQ(cell.size(), sizeof(Cell));
  EXPECT_EQ(cell.describe(), "Cell");

  // Matrices are their rows, without padding.
  EXPECT_EQ(ValueType::get(Scalar::F64, {3, 3}).size(), 72u);
  EXPECT_EQ(ValueType::get(Scalar::F64, {3, 3}).describe(), "mat33d");
}

TEST(ArgumentsTest, ReadsAndWritesStructs) {
  Signature sig;
  sig.kernel = "k";
  Param byValue;
  byValue.name = "p";
  byValue.type = particle();
  Param list = byValue;
  list.name = "ps";
  list.isArray = true;
  list.rank = 1;
  sig.params = {byValue, list};
  std::vector<Argument> args;
  ASSERT_EQ(parse(sig,
                  R"({"p": {"pos": [1, 2, 3], "mass": 0.5, "active": 1},
                      "ps": [{"active": false, "mass": 2, "pos": [4, 5, 6]},
                             {"pos": [7, 8, 9], "mass": 3, "active": true}]})",
                  &args),
            "");
  ASSERT_EQ(args[0].bytes.size(), 20u);
  EXPECT_EQ(element<float>(args[0], 2), 3.0f);
  EXPECT_EQ(element<float>(args[0], 3), 0.5f);
  EXPECT_EQ(args[0].bytes[16], 1);
  // Padding is zero.
  EXPECT_EQ(args[0].bytes[17] | args[0].bytes[18] | args[0].bytes[19], 0);
  ASSERT_EQ(args[1].bytes.size(), 40u);
  EXPECT_EQ(args[1].numStoredElements(), 2);
  EXPECT_EQ(element<float>(args[1], 5 + 3), 3.0f); // ps[1].mass
  EXPECT_EQ(args[1].bytes[20 + 16], 1);            // ps[1].active

  std::string text;
  raw_string_ostream os(text);
  writeArrays(os, args);
  EXPECT_EQ(text, "{\n  \"ps\": [{\"pos\": [4, 5, 6], \"mass\": 2, "
                  "\"active\": false}, {\"pos\": [7, 8, 9], \"mass\": 3, "
                  "\"active\": true}]\n}\n");

  EXPECT_EQ(parse(sig, R"({"p": {"pos": [1, 2, 3], "mass": 1, "active": 1},
                           "ps": [{"pos": [1, 2, 3], "mass": [1],
                                   "active": true}]})"),
            "argument 'ps' (array<Particle>): element [0].mass: expected a "
            "number, got a list");
}

TEST(ArgumentsTest, GeneratesRandomStructsFieldByField) {
  Signature sig;
  sig.kernel = "k";
  Param ps;
  ps.name = "ps";
  ps.type = particle();
  ps.isArray = true;
  ps.rank = 1;
  sig.params = {ps};
  std::vector<Argument> args;
  ASSERT_EQ(parse(sig, R"({"ps": {"random": "uniform", "shape": [3],
                                  "seed": 5, "low": 1, "high": 2}})",
                  &args),
            "");
  ASSERT_EQ(args[0].bytes.size(), 60u);
  // One draw per number in field order: pos.x, pos.y, pos.z, mass, active.
  ksc::SplitMix64 rng(5);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(element<float>(args[0], 5 * i + k),
                static_cast<float>(1.0 + rng.uniform()));
    EXPECT_EQ(args[0].bytes[20 * i + 16], rng.uniform() < 0.5 ? 1 : 0);
  }
}

TEST(ArgumentsTest, RefusesArraysOverTheMemoryLimit) {
  // ksc-run's limit is the machine's memory; the fuzzer's is smaller.
  ArgumentLimits limits;
  limits.memoryBytes = 64;
  Expected<json::Value> value = json::parse(
      R"({"a": 1, "x": {"random": "uniform", "shape": [17]}, "y": [0]})");
  ASSERT_TRUE(bool(value));
  Expected<std::vector<Argument>> args =
      parseArguments(saxpy(), *value, limits);
  ASSERT_FALSE(bool(args));
  EXPECT_NE(toString(args.takeError())
                .find("argument 'x' (array<const float>): the array would "
                      "take 68 bytes (17 elements), more than the limit of "
                      "64 bytes"),
            std::string::npos);
  // 16 floats fit.
  value = json::parse(
      R"({"a": 1, "x": {"random": "uniform", "shape": [16]}, "y": [0]})");
  ASSERT_TRUE(bool(value));
  args = parseArguments(saxpy(), *value, limits);
  ASSERT_TRUE(bool(args)) << toString(args.takeError());
}
