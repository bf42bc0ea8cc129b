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
#include "ksc/Support/Output.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
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
  /// Writes the compiled code into the directory `dir` (index.json and a
  /// file per image), for the worker processes, which load() it.
  Error save(StringRef dir) const;
  Error load(StringRef dir);

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
  addLaunches(module, c.code.kernels);
  return module;
}

Error CodeCache::save(StringRef dir) const {
  json::Array index;
  for (const auto &[key, code] : compiled) {
    json::Object item{{"key", key}, {"error", code.second}};
    if (code.second.empty()) {
      std::string file = std::to_string(index.size()) + ".bin";
      if (Error error = writeFileIfChanged((dir + "/" + file).str(), code.first))
        return error;
      item["file"] = file;
    }
    auto found = entries.find(key);
    if (found != entries.end()) {
      json::Object names;
      for (const auto &entry : found->second)
        names[entry.getKey()] = entry.getValue();
      item["entries"] = std::move(names);
    }
    index.push_back(std::move(item));
  }
  std::string text;
  raw_string_ostream os(text);
  os << json::Value(json::Object{{"arch", arch}, {"code", std::move(index)}});
  return writeFileIfChanged((dir + "/index.json").str(), text);
}

Error CodeCache::load(StringRef dir) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> text =
      MemoryBuffer::getFile(dir + "/index.json");
  if (!text)
    return makeError("cannot read the compiled code in '" + dir +
                     "': " + text.getError().message());
  Expected<json::Value> value = json::parse((*text)->getBuffer());
  if (!value)
    return value.takeError();
  const json::Object *index = value->getAsObject();
  const json::Array *code = index ? index->getArray("code") : nullptr;
  if (!code)
    return makeError("'" + dir + "/index.json' has no code");
  arch = index->getString("arch").value_or(arch).str();
  for (const json::Value &item : *code) {
    const json::Object *entry = item.getAsObject();
    std::optional<StringRef> key = entry ? entry->getString("key") : std::nullopt;
    if (!key)
      return makeError("'" + dir + "/index.json' has an entry without a key");
    std::pair<std::string, std::string> &stored = compiled[key->str()];
    stored.second = entry->getString("error").value_or("").str();
    if (std::optional<StringRef> file = entry->getString("file")) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> image =
          MemoryBuffer::getFile(dir + "/" + *file, /*IsText=*/false,
                                /*RequiresNullTerminator=*/false);
      if (!image)
        return makeError("cannot read '" + dir + "/" + *file +
                         "': " + image.getError().message());
      stored.first = (*image)->getBuffer().str();
    }
    if (const json::Object *names = entry->getObject("entries"))
      for (const auto &[name, mangled] : *names)
        entries[key->str()][name.str()] =
            mangled.getAsString().value_or("").str();
  }
  return Error::success();
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
  /// Whether a kernel failed on the GPU, which left the device's context
  /// unusable (CudaExecutor::lostContext).
  bool lostContext() const { return contextLost; }

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
  bool contextLost = false;
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
  contextLost = (*gpu)->lostContext();
  // Releases the context (and resets it after a failed launch).
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
// The runs
//===----------------------------------------------------------------------===//

namespace {
/// One case through one code path.
struct RunSpec {
  const BundleCase *c;
  std::string via;
};
} // namespace

/// Every case through every code path, in the order of the report.
static std::vector<RunSpec> listRuns(ArrayRef<const BundleCase *> cases,
                                     const ReplayOptions &options) {
  std::vector<RunSpec> runs;
  for (const BundleCase *c : cases)
    for (const std::string &via : options.vias)
      runs.push_back({c, via});
  return runs;
}

/// Runs `runs` in this process, calling `done` with each run and whether
/// the context is lost; stops when `done` returns false.
static Error
runHere(ArrayRef<RunSpec> runs, CodeCache &code,
        function_ref<bool(CaseRun &&run, bool lostContext)> done) {
  SmallString<128> deviceOutput;
  if (std::error_code ec = sys::fs::createTemporaryFile(
          "ksc-replay-device", "txt", deviceOutput))
    return makeError("cannot create a temporary file: " + ec.message());
  scope_exit remove([&] { sys::fs::remove(deviceOutput); });
  for (const RunSpec &spec : runs) {
    const BundleCase &c = *spec.c;
    bool hasCode = spec.via == "ptx" ? !c.code.ptx.empty()
                                     : !c.code.cuda.empty();
    if (!hasCode) {
      CaseRun run;
      run.name = c.name;
      run.via = spec.via;
      run.status = ReplayStatus::Skip;
      run.message = "the case has no " +
                    std::string(spec.via == "ptx" ? "PTX" : "CUDA C++");
      if (!done(std::move(run), false))
        return Error::success();
      continue;
    }
    CaseRunner runner(c, spec.via, deviceOutput.str().str());
    Expected<CaseRun> run = runner.execute(code.get(c, spec.via));
    if (!run)
      return run.takeError();
    if (!done(std::move(*run), runner.lostContext()))
      return Error::success();
  }
  return Error::success();
}

int runner::runReplayWorker(StringRef dir, ArrayRef<const BundleCase *> cases,
                            const ReplayOptions &options,
                            const ReplayWorker &worker) {
  auto fail = [](const Twine &message) {
    errs() << "ksc-replay worker: error: " << message << "\n";
    return 1;
  };
  // 77 without a device, else 1.
  auto failWith = [&](Error error) {
    int status = error.isA<NoDeviceError>() ? 77 : 1;
    fail(toString(std::move(error)));
    return status;
  };
  Expected<std::string> header = readBundleRuntimeHeader(dir);
  if (!header)
    return fail(toString(header.takeError()));
  CodeCache code(*header, options, "");
  if (Error error = code.load(worker.codeDir))
    return fail(toString(std::move(error)));
  // A reference to the device's context for the worker's life: without
  // one, every run's executor would make the context again when the
  // previous one released it (a tenth of a second or more each).
  Expected<std::unique_ptr<CudaJit>> hold = CudaJit::create();
  if (!hold)
    return failWith(hold.takeError());
  std::error_code ec;
  raw_fd_ostream results(worker.results, ec, sys::fs::OF_Append);
  if (ec)
    return fail("cannot open '" + worker.results + "': " + ec.message());
  std::vector<RunSpec> runs = listRuns(cases, options);
  int status = 0;
  std::error_code writeError;
  Error error = runHere(ArrayRef(runs).drop_front(std::min(worker.from,
                                                           runs.size())),
                        code, [&](CaseRun &&run, bool lostContext) {
                          results << runner::toJSON(run) << "\n";
                          results.flush();
                          if (results.has_error()) {
                            // A full disk: the supervisor has the results
                            // of the lines before.
                            writeError = results.error();
                            results.clear_error();
                            return false;
                          }
                          if (lostContext)
                            status = kReplayWorkerLostContext;
                          return !lostContext;
                        });
  if (error)
    return failWith(std::move(error));
  if (writeError)
    return fail("cannot write '" + worker.results +
                "': " + writeError.message());
  return status;
}

namespace {
/// Runs the runs in worker processes of options.program, one after
/// another, each until its context is lost; collects their results.
class Supervisor {
public:
  Supervisor(StringRef dir, const ReplayOptions &options,
             ArrayRef<RunSpec> runs,
             function_ref<void(CaseRun &&)> done)
      : dir(dir), options(options), runs(runs), done(done) {}
  Error run(StringRef codeDir);

private:
  /// Starts a worker from run `next` and waits for it.
  Error runWorker(StringRef codeDir);
  /// Takes the complete lines the worker appended to `results`.
  Error collect();
  void failRun(const Twine &message);

  StringRef dir;
  const ReplayOptions &options;
  ArrayRef<RunSpec> runs;
  function_ref<void(CaseRun &&)> done;
  size_t next = 0;
  SmallString<128> results, log;
  size_t consumed = 0;
};
} // namespace

Error Supervisor::collect() {
  ErrorOr<std::unique_ptr<MemoryBuffer>> text =
      MemoryBuffer::getFile(results, /*IsText=*/true);
  if (!text)
    return makeError("cannot read '" + results +
                     "': " + text.getError().message());
  StringRef rest = (*text)->getBuffer().drop_front(consumed);
  while (true) {
    size_t end = rest.find('\n');
    if (end == StringRef::npos)
      return Error::success();
    StringRef line = rest.take_front(end);
    rest = rest.drop_front(end + 1);
    consumed += end + 1;
    Expected<json::Value> value = json::parse(line);
    if (!value)
      return value.takeError();
    Expected<CaseRun> run = parseCaseRun(*value);
    if (!run)
      return run.takeError();
    ++next;
    done(std::move(*run));
  }
}

void Supervisor::failRun(const Twine &message) {
  CaseRun run;
  run.name = runs[next].c->name;
  run.via = runs[next].via;
  run.status = ReplayStatus::Fail;
  run.message = message.str();
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(log))
    run.deviceOutput = (*text)->getBuffer().take_back(2048).str();
  ++next;
  done(std::move(run));
}

Error Supervisor::runWorker(StringRef codeDir) {
  std::vector<std::string> args = {options.program, dir.str(),
                                   "--worker=" + codeDir.str(),
                                   "--worker-from=" + std::to_string(next),
                                   "--worker-results=" + results.str().str(),
                                   "--via=" + join(options.vias, ",")};
  for (const std::string &pattern : options.only)
    args.push_back("--case=" + pattern);
  std::vector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(""), log.str(), log.str()};
  std::string message;
  bool failed = false;
  size_t first = next;
  {
    // Each worker's results from the start of the file (a killed one may
    // have left half a line).
    std::error_code ec;
    raw_fd_ostream truncate(results, ec);
    if (ec)
      return makeError("cannot write '" + results + "': " + ec.message());
    consumed = 0;
  }
  sys::ProcessInfo worker = sys::ExecuteNoWait(
      options.program, argv, std::nullopt, redirects, 0, &message, &failed);
  if (failed)
    return makeError("cannot start a worker process (" + options.program +
                     "): " + message);
  auto progress = std::chrono::steady_clock::now();
  while (true) {
    sys::ProcessInfo state =
        sys::Wait(worker, 1, &message, nullptr, /*Polling=*/true);
    size_t before = next;
    if (Error error = collect()) {
      sys::Wait(worker, 1); // (kills it)
      return error;
    }
    if (next != before)
      progress = std::chrono::steady_clock::now();
    if (state.Pid == worker.Pid) {
      if (state.ReturnCode == 77 && next == first)
        return make_error<NoDeviceError>("a worker process found no device");
      if (state.ReturnCode == 0 && next == runs.size())
        return Error::success();
      if (state.ReturnCode == kReplayWorkerLostContext && next > first)
        return Error::success();
      // It died, or stopped early, in run `next`.
      if (next < runs.size())
        failRun("the worker process running it ended (" +
                (state.ReturnCode == -2 ? message
                                        : "exit status " +
                                              std::to_string(state.ReturnCode)) +
                "); its last output is the device output");
      return Error::success();
    }
    double idle = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - progress)
                      .count();
    if (idle > options.runTimeout) {
      sys::Wait(worker, 1); // (kills it)
      if (Error error = collect())
        return error;
      if (next < runs.size())
        failRun("it did not end within " + std::to_string(options.runTimeout) +
                " s (--run-timeout); its worker process was killed");
      return Error::success();
    }
  }
}

Error Supervisor::run(StringRef codeDir) {
  if (std::error_code ec = sys::fs::createTemporaryFile("ksc-replay-runs",
                                                        "jsonl", results))
    return makeError("cannot create a temporary file: " + ec.message());
  if (std::error_code ec =
          sys::fs::createTemporaryFile("ksc-replay-worker", "log", log))
    return makeError("cannot create a temporary file: " + ec.message());
  scope_exit remove([&] {
    sys::fs::remove(results);
    sys::fs::remove(log);
  });
  while (next < runs.size())
    if (Error error = runWorker(codeDir))
      return error;
  return Error::success();
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

  if (options.program.empty())
    return makeError("no ksc-replay executable to run the cases in");

  // The GPU code first, on every core: compiling takes far longer than
  // running a case's launches.
  CodeCache code(*header, options, report.device.arch());
  {
    // (Its context goes with it: the workers make their own.)
    Expected<std::unique_ptr<CudaJit>> jit = CudaJit::create();
    if (!jit)
      return jit.takeError();
    code.compileAll(cases, jit->get());
  }
  SmallString<128> codeDir;
  if (std::error_code ec =
          sys::fs::createUniqueDirectory("ksc-replay-code", codeDir))
    return makeError("cannot create a temporary directory: " + ec.message());
  scope_exit remove([&] { sys::fs::remove_directories(codeDir); });
  if (Error error = code.save(codeDir))
    return std::move(error);

  std::vector<RunSpec> runs = listRuns(cases, options);
  auto done = [&](CaseRun &&run) {
    progress(run);
    report.runs.push_back(std::move(run));
  };
  if (Error error = Supervisor(dir, options, runs, done).run(codeDir))
    return std::move(error);
  report.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return report;
}
