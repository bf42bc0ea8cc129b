//===- BundleTest.cpp - Tests of GPU bundles ---------------------------===//
//
// Part of ksc. Cases written and read back, launches recorded and played
// back, and what the replay makes of names and messages.
//
//===----------------------------------------------------------------------===//

#include "Params.h"
#include "ksc/Runner/Replay.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace ksc::runner;
using namespace ksc::runner::test;

namespace {

/// Adds 1 to the first float of every writable array; fails the launch of
/// a kernel named "bad" with the CPU's message of a failed bounds check.
class AddingExecutor : public Executor {
public:
  Error launch(StringRef kernel, std::vector<Argument> &args) override {
    if (kernel == "bad")
      return createStringError(inconvertibleErrorCode(),
                               "kernel 'bad': k.kdsl:3:7: index 4 is out of "
                               "bounds for array 'x' of shape [4]");
    for (Argument &arg : args)
      if (arg.param.isArray && !arg.param.isConst) {
        float value;
        std::memcpy(&value, arg.bytes.data(), 4);
        value += 1;
        std::memcpy(arg.bytes.data(), &value, 4);
      }
    return Error::success();
  }
  std::string describe() const override { return "adder"; }
};

Argument makeArray(Param param, std::vector<float> values) {
  Argument arg;
  arg.param = std::move(param);
  arg.shape = {int64_t(values.size())};
  arg.bytes.resize(4 * values.size());
  std::memcpy(arg.bytes.data(), values.data(), arg.bytes.size());
  return arg;
}

float first(const Argument &arg) {
  float value;
  std::memcpy(&value, arg.bytes.data(), 4);
  return value;
}

/// A case of every kind of field: a struct parameter, a check-grad job
/// with both derivative signatures, data, tolerances and launches.
BundleCase makeCase() {
  BundleCase c;
  c.name = "Grad/k.kdsl:12";
  c.command = "ksc-run k.kdsl --check-grad --dim=4 --inputs=in.json";
  c.code.arch = "sm_80";
  c.code.ptx = "// ptx\n";
  c.code.cuda = "// cuda\n";
  c.code.kernels = {{"k", "::k"}, {"k_adj", "::k_adj"}, {"k_jvp", "::k_jvp"}};
  c.launch.blockSize = 128;
  c.launch.gridStride = true;
  c.launch.boundsCheck = false;
  Job &job = c.job;
  job.mode = JobMode::CheckGrad;
  job.grid = {4, 2, 1};
  job.signature.kernel = "k";
  Param particle;
  particle.name = "p";
  particle.type = ValueType::getStruct(
      "Particle", {{"pos", ValueType::get(Scalar::F32, {3})},
                   {"id", ValueType::get(Scalar::U32)}});
  job.signature.params = {array("x", Scalar::F32, /*isConst=*/true),
                          array("y", Scalar::F64), particle};
  job.adjoint.primalKernel = "k";
  job.adjoint.signature.kernel = "k_adj";
  job.adjoint.signature.params = job.signature.params;
  job.adjoint.signature.params.push_back(array("adj_x", Scalar::F32));
  job.adjoint.numPrimal = 3;
  job.adjoint.primalOf = {0};
  job.tangent.primalKernel = "k";
  job.tangent.signature = job.adjoint.signature;
  job.tangent.signature.kernel = "k_jvp";
  job.tangent.numPrimal = 3;
  job.tangent.primalOf = {0};
  job.tangent.width = 2;
  job.wrt = {"x"};
  job.check.atol = 0.5;
  job.check.seed = 7;
  job.inputsFile = "in.json";
  c.data["in.json"] = "{\"x\": [1, -0.0]}";
  c.compare.f32 = {1e-3, 1e-2};
  c.launches = {{"k", 8}, {"k_adj", 4}};
  c.results.assign(12, 0x5a);
  c.launchError = "kernel 'k': out of bounds";
  return c;
}

TEST(BundleTest, CasesReadBackAsWritten) {
  SmallString<128> dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("ksc-bundle-test", dir));
  BundleCase c = makeCase();
  ASSERT_FALSE(errorToBool(writeCase(dir, c, "// runtime\n")));
  // The same code again is not written twice.
  BundleCase again = makeCase();
  again.name = "Grad/k.kdsl:13";
  ASSERT_FALSE(errorToBool(writeCase(dir, again, "// runtime\n")));
  EXPECT_EQ(c.code.ptxFile, again.code.ptxFile);

  Expected<std::vector<BundleCase>> read = readBundle(dir);
  ASSERT_TRUE(bool(read)) << toString(read.takeError());
  ASSERT_EQ(read->size(), 2u);
  const BundleCase &back = read->front();
  EXPECT_EQ(back.name, c.name);
  EXPECT_EQ(back.command, c.command);
  EXPECT_EQ(back.code.ptx, "// ptx\n");
  EXPECT_EQ(back.code.cuda, "// cuda\n");
  ASSERT_EQ(back.code.kernels.size(), 3u);
  EXPECT_EQ(back.code.kernels[2].expression, "::k_jvp");
  EXPECT_EQ(back.launch.blockSize, 128u);
  EXPECT_TRUE(back.launch.gridStride);
  EXPECT_FALSE(back.launch.boundsCheck);
  EXPECT_EQ(back.job.mode, JobMode::CheckGrad);
  EXPECT_EQ(back.job.grid, (Grid{4, 2, 1}));
  EXPECT_EQ(back.job.signature.describe(), c.job.signature.describe());
  const ValueType &particle = back.job.signature.params[2].type;
  EXPECT_EQ(particle.size(), c.job.signature.params[2].type.size());
  EXPECT_EQ(particle.fields[1].offset, 12u);
  EXPECT_EQ(back.job.adjoint.signature.describe(),
            c.job.adjoint.signature.describe());
  EXPECT_EQ(back.job.adjoint.primalOf, std::vector<unsigned>{0});
  EXPECT_EQ(back.job.tangent.width, 2u);
  EXPECT_EQ(back.job.wrt, std::vector<std::string>{"x"});
  EXPECT_EQ(back.job.check.atol, std::optional<double>(0.5));
  EXPECT_FALSE(back.job.check.rtol);
  EXPECT_EQ(back.job.check.seed, 7u);
  EXPECT_EQ(back.data.at("in.json"), c.data.at("in.json"));
  EXPECT_EQ(back.compare.f32.atol, 1e-3);
  EXPECT_EQ(back.compare.f64.rtol, c.compare.f64.rtol);
  ASSERT_EQ(back.launches.size(), 2u);
  EXPECT_EQ(back.launches[1].kernel, "k_adj");
  EXPECT_EQ(back.results, c.results);
  EXPECT_EQ(back.launchError, c.launchError);
  Expected<std::string> header = readBundleRuntimeHeader(dir);
  ASSERT_TRUE(bool(header));
  EXPECT_EQ(*header, "// runtime\n");

  // A bundle takes the cases of one ksc's runtime header only.
  Error other = writeCase(dir, c, "// another runtime\n");
  EXPECT_NE(toString(std::move(other)).find("made by another ksc"),
            std::string::npos);
  sys::fs::remove_directories(dir);
}

TEST(BundleTest, ResultsOfTheWrongSizeAreAnError) {
  SmallString<128> dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("ksc-bundle-test", dir));
  BundleCase c = makeCase();
  c.results.pop_back();
  ASSERT_FALSE(errorToBool(writeCase(dir, c, "")));
  Expected<std::vector<BundleCase>> read = readBundle(dir);
  ASSERT_FALSE(bool(read));
  EXPECT_NE(toString(read.takeError()).find("has 11 bytes; the launches"),
            std::string::npos);
  sys::fs::remove_directories(dir);
}

TEST(BundleTest, NotABundle) {
  Expected<std::vector<BundleCase>> read = readBundle("/nonexistent/bundle");
  ASSERT_FALSE(bool(read));
  EXPECT_NE(toString(read.takeError()).find("is not a GPU bundle"),
            std::string::npos);
}

TEST(BundleTest, BadCaseNames) {
  EXPECT_FALSE(errorToBool(checkCaseName("Run/saxpy.kdsl:7")));
  EXPECT_FALSE(errorToBool(checkCaseName("bench/grad/saxpy_adj")));
  for (const char *name : {"", "a//b", "../x", "a/./b", "a b", "a/b\\c"})
    EXPECT_TRUE(errorToBool(checkCaseName(name))) << name;
}

TEST(BundleTest, RecordedLaunchesPlayBack) {
  std::vector<Argument> args = {
      makeArray(array("x", Scalar::F32, true), {1, 2}),
      makeArray(array("y", Scalar::F32), {10, 20})};
  AddingExecutor cpu;
  RecordingExecutor recorder(cpu);
  ASSERT_FALSE(errorToBool(recorder.launch("k", args)));
  ASSERT_FALSE(errorToBool(recorder.launch("k", args)));
  BundleCase c;
  recorder.takeInto(c);
  ASSERT_EQ(c.launches.size(), 2u);
  EXPECT_EQ(c.launches[0].bytes, 8u);
  EXPECT_EQ(c.results.size(), 16u);

  // The playback writes the CPU's results whatever the arrays hold.
  std::vector<Argument> replayed = {
      makeArray(array("x", Scalar::F32, true), {1, 2}),
      makeArray(array("y", Scalar::F32), {0, 0})};
  RecordedExecutor playback(c);
  ASSERT_FALSE(errorToBool(playback.launch("k", replayed)));
  EXPECT_EQ(first(replayed[1]), 11);
  EXPECT_TRUE(errorToBool(playback.finish()));
  ASSERT_FALSE(errorToBool(playback.launch("k", replayed)));
  EXPECT_EQ(first(replayed[1]), 12);
  EXPECT_FALSE(errorToBool(playback.finish()));
  // A launch more than the CPU made.
  Error extra = playback.launch("k", replayed);
  EXPECT_NE(toString(std::move(extra)).find("was not made on the CPU"),
            std::string::npos);
}

TEST(BundleTest, PlaybackChecksKernelsAndSizes) {
  BundleCase c;
  c.launches = {{"k", 8}};
  c.results.assign(8, 0);
  std::vector<Argument> args = {makeArray(array("y", Scalar::F32), {0, 0})};
  RecordedExecutor other(c);
  Error error = other.launch("j", args);
  EXPECT_NE(toString(std::move(error)).find("is of kernel 'j'; the CPU's was "
                                            "of 'k'"),
            std::string::npos);
  std::vector<Argument> small = {makeArray(array("y", Scalar::F32), {0})};
  RecordedExecutor sizes(c);
  error = sizes.launch("k", small);
  EXPECT_NE(toString(std::move(error)).find("writes 4 bytes"),
            std::string::npos);
}

TEST(BundleTest, ALaunchThatFailsIsRecorded) {
  std::vector<Argument> args = {makeArray(array("y", Scalar::F32), {0})};
  AddingExecutor cpu;
  RecordingExecutor recorder(cpu);
  ASSERT_FALSE(errorToBool(recorder.launch("k", args)));
  EXPECT_TRUE(errorToBool(recorder.launch("bad", args)));
  EXPECT_TRUE(recorder.hasLaunchError());
  BundleCase c;
  recorder.takeInto(c);
  EXPECT_EQ(c.launches.size(), 1u);
  EXPECT_TRUE(c.expectsFailure());
  // What the device prints for it.
  EXPECT_EQ(getDeviceMessage(c.launchError),
            "ksc: k.kdsl:3:7: index 4 is out of bounds for array 'x' of "
            "shape [4]");
  // The replay's reference has nothing to compare for the failing launch.
  RecordedExecutor playback(c);
  ASSERT_FALSE(errorToBool(playback.launch("k", args)));
  EXPECT_FALSE(errorToBool(playback.launch("bad", args)));
}

TEST(BundleTest, SelectingCases) {
  std::vector<BundleCase> cases(3);
  cases[0].name = "Run/a.kdsl:1";
  cases[1].name = "Run/b.kdsl:2";
  cases[2].name = "bench/saxpy";
  ReplayOptions options;
  Expected<std::vector<const BundleCase *>> all = selectCases(cases, options);
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(all->size(), 3u);
  options.only = {"Run/*", "bench/saxpy"};
  Expected<std::vector<const BundleCase *>> some = selectCases(cases, options);
  ASSERT_TRUE(bool(some));
  EXPECT_EQ(some->size(), 3u);
  options.only = {"Run/b*"};
  some = selectCases(cases, options);
  ASSERT_TRUE(bool(some));
  ASSERT_EQ(some->size(), 1u);
  EXPECT_EQ(some->front()->name, "Run/b.kdsl:2");
  options.only = {"nothing*"};
  some = selectCases(cases, options);
  ASSERT_FALSE(bool(some));
  EXPECT_EQ(toString(some.takeError()), "no case matches 'nothing*'");
  options.only = {};
  options.vias = {"sass"};
  some = selectCases(cases, options);
  ASSERT_FALSE(bool(some));
  EXPECT_EQ(toString(some.takeError()),
            "unknown code path 'sass' (ptx or cuda-source)");
}

} // namespace
