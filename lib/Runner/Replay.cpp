//===- Replay.cpp - Run a bundle's cases on a GPU ---------------------===//
//
// Part of ksc. Every case of a bundle runs through every code path: the
// GPU code of all cases is compiled first, on many threads (a compile takes
// far longer than a case's launches): the PTX by the driver's compiler for
// the device, the CUDA C++ by NVRTC. Then, one case at a time, the code is
// loaded on device 0 and the case's job runs through a CompareExecutor
// whose reference plays back the CPU's results.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Replay.h"

#include "ksc/Config.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

StringRef runner::getReplayStatusName(ReplayStatus status) {
  switch (status) {
  case ReplayStatus::Pass:
    return "pass";
  case ReplayStatus::Fail:
    return "fail";
  case ReplayStatus::Skip:
    return "skip";
  }
  llvm_unreachable("unknown status");
}

size_t ReplayReport::count(ReplayStatus status) const {
  return llvm::count_if(runs,
                        [&](const CaseRun &run) { return run.status == status; });
}

std::string runner::getDeviceMessage(StringRef cpuMessage) {
  StringRef message = cpuMessage;
  if (message.consume_front("kernel '")) {
    size_t end = message.find("': ");
    if (end != StringRef::npos)
      return ("ksc: " + message.drop_front(end + 3)).str();
  }
  return ("ksc: " + cpuMessage).str();
}

Expected<std::vector<const BundleCase *>>
runner::selectCases(ArrayRef<BundleCase> cases, const ReplayOptions &options) {
  for (const std::string &via : options.vias)
    if (via != "ptx" && via != "cuda-source")
      return makeError("unknown code path '" + via +
                       "' (ptx or cuda-source)");
  std::vector<GlobPattern> patterns;
  std::vector<bool> matched(options.only.size());
  for (const std::string &text : options.only) {
    Expected<GlobPattern> pattern = GlobPattern::create(text);
    if (!pattern)
      return makeError("invalid case pattern '" + text +
                       "': " + toString(pattern.takeError()));
    patterns.push_back(std::move(*pattern));
  }
  std::vector<const BundleCase *> selected;
  for (const BundleCase &c : cases) {
    bool take = patterns.empty();
    for (auto [index, pattern] : llvm::enumerate(patterns))
      if (pattern.match(c.name))
        take = matched[index] = true;
    if (take)
      selected.push_back(&c);
  }
  for (auto [index, text] : llvm::enumerate(options.only))
    if (!matched[index])
      return makeError("no case matches '" + text + "'");
  return selected;
}

//===----------------------------------------------------------------------===//
// GPU code
//===----------------------------------------------------------------------===//

namespace {
/// The GPU code of the cases, by code path and source: ksc's PTX compiled by
/// the driver for the device, the CUDA C++ by NVRTC, each once.
class CodeCache {
public:
  CodeCache(StringRef runtimeHeader, const ReplayOptions &options,
            StringRef deviceArch)
      : runtimeHeader(runtimeHeader), options(options),
        arch(options.arch.empty() ? deviceArch.str() : options.arch) {}

  /// Compiles the GPU code of `cases` for the code paths of the options,
  /// on many threads; `jit` compiles PTX (without it, the driver compiles
  /// it when a case loads it).
  void compileAll(ArrayRef<const BundleCase *> cases, CudaJit *jit);
  /// The code of `c` for `via`; an error when it does not compile.
  Expected<CudaModule> get(const BundleCase &c, StringRef via);

private:
  static std::string getSourceKey(const BundleCase &c);
  /// Records `code`, or why there is none, under `key`.
  void store(std::string key, Expected<std::string> code);

  std::string runtimeHeader;
  const ReplayOptions &options;
  std::string arch;
  std::mutex mutex;
  /// Compiled code (a CUBIN, or PTX from NVRTC), or why there is none; by
  /// the PTX's file, or the CUDA C++'s file and kernels.
  std::map<std::string, std::pair<std::string, std::string>> compiled;
  /// The entry points of the compiled CUDA C++.
  std::map<std::string, StringMap<std::string>> entries;
};
} // namespace

std::string CodeCache::getSourceKey(const BundleCase &c) {
  std::string key = c.code.cudaFile;
  for (const CudaSourceKernel &kernel : c.code.kernels)
    key += " " + kernel.kernel + "=" + kernel.expression;
  return key;
}

void CodeCache::store(std::string key, Expected<std::string> code) {
  std::pair<std::string, std::string> entry;
  if (code)
    entry.first = std::move(*code);
  else
    entry.second = toString(code.takeError());
  std::lock_guard<std::mutex> lock(mutex);
  compiled[std::move(key)] = std::move(entry);
}

void CodeCache::compileAll(ArrayRef<const BundleCase *> cases, CudaJit *jit) {
  std::map<std::string, const BundleCase *> sources, ptx;
  for (const BundleCase *c : cases) {
    if (!c->code.cuda.empty() &&
        llvm::is_contained(options.vias, "cuda-source"))
      sources.emplace(getSourceKey(*c), c);
    if (!c->code.ptx.empty() && jit && llvm::is_contained(options.vias, "ptx"))
      ptx.emplace(c->code.ptxFile, c);
  }
  DefaultThreadPool pool(hardware_concurrency(options.threads));
  for (const auto &[key, c] : sources)
    pool.async([this, key = key, c = c] {
      Expected<CudaModule> module =
          compileWithNvrtc(c->code.cuda, c->code.cudaFile, c->code.kernels,
                           arch, runtimeHeader, options.cudaPath);
      if (module) {
        std::lock_guard<std::mutex> lock(mutex);
        entries[key] = module->entries;
      }
      store(key, module ? Expected<std::string>(std::move(module->image))
                        : Expected<std::string>(module.takeError()));
    });
  for (const auto &[key, c] : ptx)
    pool.async([this, jit, key = key, c = c] {
      store(key, jit->compile(c->code.ptx));
    });
  pool.wait();
}

Expected<CudaModule> CodeCache::get(const BundleCase &c, StringRef via) {
  CudaModule module;
  if (via == "ptx") {
    std::vector<std::string> kernels;
    for (const CudaSourceKernel &kernel : c.code.kernels)
      kernels.push_back(kernel.kernel);
    module = makePtxModule(c.code.ptx, kernels, c.code.arch);
  }
  std::string key = via == "ptx" ? c.code.ptxFile : getSourceKey(c);
  auto found = compiled.find(key);
  if (found == compiled.end()) {
    if (via == "ptx")
      return module;
    return makeError("its CUDA C++ was not compiled");
  }
  if (!found->second.second.empty())
    return makeError(found->second.second);
  module.image = found->second.first;
  if (via != "ptx") {
    module.arch = arch;
    module.entries = entries[key];
  }
  return module;
}

//===----------------------------------------------------------------------===//
// One case
//===----------------------------------------------------------------------===//

static Expected<std::string> readText(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

namespace {
/// Runs one case through one code path.
class CaseRunner {
public:
  CaseRunner(const BundleCase &c, StringRef via, std::string deviceOutput)
      : c(c), deviceOutputFile(std::move(deviceOutput)) {
    run.name = c.name;
    run.via = via.str();
  }
  /// The run; a NoDeviceError when the device is gone.
  Expected<CaseRun> execute(Expected<CudaModule> module);

private:
  /// Runs the case on `module` into `run`.
  Error runOn(Expected<CudaModule> module);
  Error launchAll(CudaExecutor &gpu);
  /// Judges the outcome of the job, `result`.
  void judge(Error result);
  void fail(const Twine &message) {
    run.status = ReplayStatus::Fail;
    run.message = message.str();
  }

  const BundleCase &c;
  std::string deviceOutputFile;
  CaseRun run;
  std::optional<RecordedExecutor> recorded;
  std::optional<CompareExecutor> compare;
};
} // namespace

Error CaseRunner::launchAll(CudaExecutor &gpu) {
  auto read = [&](StringRef file) -> Expected<json::Value> {
    auto found = c.data.find(file.str());
    if (found == c.data.end())
      return makeError("the case has no data file '" + file + "'");
    Expected<json::Value> value = json::parse(found->second);
    if (!value)
      return makeError(file + " is not valid JSON: " +
                       toString(value.takeError()));
    return value;
  };
  Expected<JobArguments> data = parseJobArguments(c.job, read);
  if (!data)
    return data.takeError();
  raw_string_ostream out(run.output);
  // A benchmark compares nothing, nor does a run that only the GPU fails
  // (the CPU did not run it).
  if (c.isBenchmark() || !c.gpuFailure.empty())
    return runJob(c.job, *data, [&](StringRef kernel,
                                    std::vector<Argument> &args) {
      return gpu.launch(kernel, args);
    }, out);
  recorded.emplace(c);
  compare.emplace(gpu, *recorded, c.compare);
  return runJob(c.job, *data, [&](StringRef kernel,
                                  std::vector<Argument> &args) {
    return compare->launch(kernel, args);
  }, out);
}

void CaseRunner::judge(Error result) {
  std::string message = result ? toString(std::move(result)) : "";
  bool failed = !message.empty();
  if (compare)
    run.comparisons = compare->getResults();
  if (const ArrayComparison *worst = compare ? compare->worstFailure() : nullptr)
    return fail("the GPU's results differ from the CPU's: " +
                CompareExecutor::describeFailure(*worst));
  if (!c.expectsFailure()) {
    if (failed)
      return fail(message);
    if (recorded)
      if (Error error = recorded->finish())
        return fail(toString(std::move(error)));
    return;
  }
  if (!failed)
    return fail("the GPU run succeeded; it should have failed" +
                (c.launchError.empty() ? " with '" + c.gpuFailure + "'"
                                       : " as the CPU did: " + c.launchError));
  std::string expected = c.launchError.empty()
                             ? c.gpuFailure
                             : getDeviceMessage(c.launchError);
  if (!StringRef(run.deviceOutput).contains(expected) &&
      !StringRef(message).contains(expected))
    return fail("the GPU run failed (" + message +
                "), but the device did not print '" + expected + "'");
  run.message = "failed as expected: " + message;
}

Error CaseRunner::runOn(Expected<CudaModule> module) {
  if (!module) {
    fail("cannot compile the GPU code: " + toString(module.takeError()));
    return Error::success();
  }
  CudaLaunchOptions options = c.launch;
  options.via = run.via;
  options.deviceOutput = deviceOutputFile;
  {
    // (The device's output of this run only.)
    std::error_code ec;
    raw_fd_ostream truncate(deviceOutputFile, ec);
  }
  Expected<std::unique_ptr<CudaExecutor>> gpu =
      CudaExecutor::create(*module, c.job.grid, options);
  if (!gpu) {
    Error error = gpu.takeError();
    if (error.isA<NoDeviceError>())
      return error;
    fail(toString(std::move(error)));
    return Error::success();
  }
  Error result = launchAll(**gpu);
  run.timings = (*gpu)->getTimings();
  // Releases the context, which a failed launch leaves unusable (the next
  // case gets a new one).
  gpu->reset();
  Expected<std::string> printed = readText(deviceOutputFile);
  if (printed)
    run.deviceOutput = std::move(*printed);
  else
    consumeError(printed.takeError());
  judge(std::move(result));
  return Error::success();
}

Expected<CaseRun> CaseRunner::execute(Expected<CudaModule> module) {
  auto start = std::chrono::steady_clock::now();
  if (Error error = runOn(std::move(module)))
    return std::move(error);
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return std::move(run);
}

//===----------------------------------------------------------------------===//
// The bundle
//===----------------------------------------------------------------------===//

Expected<ReplayReport>
runner::replayBundle(StringRef dir, ArrayRef<const BundleCase *> cases,
                     const ReplayOptions &options,
                     function_ref<void(const CaseRun &)> progress) {
  auto start = std::chrono::steady_clock::now();
  ReplayReport report;
  report.bundle = dir.str();
  Expected<std::vector<CudaDevice>> devices =
      listCudaDevices(&report.driverVersion);
  if (!devices)
    return devices.takeError();
  report.device = devices->front();
  Expected<std::string> header = readBundleRuntimeHeader(dir);
  if (!header)
    return header.takeError();

  // The GPU code first, on every core: compiling takes far longer than
  // running a case's launches.
  // (The JIT also keeps the device's context from being made again for
  // every run.)
  CodeCache code(*header, options, report.device.arch());
  Expected<std::unique_ptr<CudaJit>> jit = CudaJit::create();
  if (!jit)
    return jit.takeError();
  code.compileAll(cases, jit->get());

  SmallString<128> deviceOutput;
  if (std::error_code ec = sys::fs::createTemporaryFile(
          "ksc-replay-device", "txt", deviceOutput))
    return makeError("cannot create a temporary file: " + ec.message());
  scope_exit remove([&] { sys::fs::remove(deviceOutput); });
  for (const BundleCase *c : cases)
    for (const std::string &via : options.vias) {
      bool hasCode = via == "ptx" ? !c->code.ptx.empty()
                                  : !c->code.cuda.empty();
      CaseRun run;
      if (hasCode) {
        Expected<CaseRun> done = CaseRunner(*c, via, deviceOutput.str().str())
                                     .execute(code.get(*c, via));
        if (!done)
          return done.takeError();
        run = std::move(*done);
      } else {
        run.name = c->name;
        run.via = via;
        run.status = ReplayStatus::Skip;
        run.message = "the case has no " +
                      std::string(via == "ptx" ? "PTX" : "CUDA C++");
      }
      progress(run);
      report.runs.push_back(std::move(run));
    }
  report.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return report;
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

/// At most `limit` bytes of `text`, for the report.
static std::string clip(StringRef text, size_t limit = 4096) {
  if (text.size() <= limit)
    return text.str();
  return (text.take_front(limit) + "\n[" + Twine(text.size() - limit) +
          " more bytes]")
      .str();
}

/// A finite number for JSON (which has no infinities or NaNs), or null.
static json::Value number(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
}

static json::Value runToJSON(const CaseRun &run) {
  json::Array comparisons, timings;
  for (const ArrayComparison &comparison : run.comparisons)
    comparisons.push_back(json::Object{
        {"kernel", comparison.kernel},
        {"array", comparison.name},
        {"numbers", comparison.numCompared},
        {"max_abs_diff", number(comparison.maxAbsDiff)},
        {"max_rel_diff", number(comparison.maxRelDiff)},
        {"worst", comparison.worst},
        {"diff_over_tolerance", number(comparison.worstRatio)},
        {"passed", comparison.passed()},
    });
  for (const LaunchTiming &timing : run.timings) {
    double median = timing.median();
    timings.push_back(json::Object{
        {"kernel", timing.kernel},
        {"threads", timing.threads},
        {"blocks", timing.blocks},
        {"block_size", timing.blockSize},
        {"launches", static_cast<int64_t>(timing.milliseconds.size())},
        {"median_ms", median},
        {"min_ms", *llvm::min_element(timing.milliseconds)},
        {"max_ms", *llvm::max_element(timing.milliseconds)},
        {"bytes", timing.bytes},
        {"gb_per_s", median > 0 ? timing.bytes / (median * 1e6) : 0.0},
    });
  }
  return json::Object{
      {"case", run.name},
      {"via", run.via},
      {"status", getReplayStatusName(run.status)},
      {"message", run.message},
      {"seconds", run.seconds},
      {"comparisons", std::move(comparisons)},
      {"timings", std::move(timings)},
      {"output", clip(run.output)},
      {"device_output", clip(run.deviceOutput)},
  };
}

void runner::writeReplayJson(raw_ostream &os, const ReplayReport &report) {
  json::Array runs;
  for (const CaseRun &run : report.runs)
    runs.push_back(runToJSON(run));
  json::Object object{
      {"format", "ksc-gpu-replay-report"},
      {"version", 1},
      {"ksc", KSC_VERSION},
      {"bundle", report.bundle},
      {"device",
       json::Object{{"name", report.device.name},
                    {"arch", report.device.arch()},
                    {"memory_bytes", static_cast<uint64_t>(report.device.memory)},
                    {"driver_version", report.driverVersion}}},
      {"seconds", report.seconds},
      {"summary",
       json::Object{{"runs", static_cast<int64_t>(report.runs.size())},
                    {"passed", static_cast<int64_t>(
                                   report.count(ReplayStatus::Pass))},
                    {"failed", static_cast<int64_t>(
                                   report.count(ReplayStatus::Fail))},
                    {"skipped", static_cast<int64_t>(
                                    report.count(ReplayStatus::Skip))}}},
      {"runs", std::move(runs)},
  };
  os << formatv("{0:2}", json::Value(std::move(object))) << "\n";
}

void runner::writeReplaySummary(raw_ostream &os, const ReplayReport &report) {
  for (const CaseRun &run : report.runs) {
    if (run.status != ReplayStatus::Fail)
      continue;
    os << "FAIL " << run.name << " (" << run.via << "): " << run.message
       << "\n";
    if (!run.deviceOutput.empty())
      os << "  the device printed:\n"
         << clip(run.deviceOutput, 2048) << (run.deviceOutput.back() == '\n'
                                                 ? ""
                                                 : "\n");
  }
  bool header = false;
  for (const CaseRun &run : report.runs) {
    if (run.timings.empty())
      continue;
    if (!header)
      os << "benchmarks (CUDA events; bandwidth: the bytes of every array "
            "once, writable ones twice, per median time)\n"
         << formatv("{0,-32} {1,-12} {2,-20} {3,10} {4,11} {5,9}\n", "case",
                    "via", "kernel", "threads", "median ms", "GB/s");
    header = true;
    for (const LaunchTiming &timing : run.timings) {
      double median = timing.median();
      os << formatv("{0,-32} {1,-12} {2,-20} {3,10} {4,11:f4} {5,9:f1}\n",
                    run.name, run.via, timing.kernel, timing.threads, median,
                    median > 0 ? timing.bytes / (median * 1e6) : 0.0);
    }
  }
  os << report.runs.size() << " runs on " << report.device.name << " ("
     << report.device.arch() << "): " << report.count(ReplayStatus::Pass)
     << " passed, " << report.count(ReplayStatus::Fail) << " failed, "
     << report.count(ReplayStatus::Skip) << " skipped, in "
     << format("%.1f", report.seconds) << " s\n";
}
