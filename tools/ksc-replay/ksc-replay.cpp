//===- ksc-replay.cpp - Run a GPU bundle on a GPU ---------------------===//
//
// Part of ksc.
//
//   ksc-replay BUNDLE [--report=REPORT.json] [--via=ptx,cuda-source]
//              [--case=PATTERN]... [--cuda-path=DIR] [--gpu-arch=sm_XY]
//
// Runs the cases of a GPU bundle, runs of ksc-run recorded on a build
// machine with `ksc-run --record=BUNDLE` (docs/cuda.md), on device 0 of
// this machine: each through ksc's PTX and through its CUDA C++ compiled
// with NVRTC, every launch compared with the CPU's recorded results (the
// benchmark cases timed instead). Prints a line per run and a summary,
// writes a JSON report with --report, and exits with 0 when every run
// passes, 1 when one fails, and 77 without a GPU.
//
// The runs happen in worker processes of ksc-replay itself (the hidden
// --worker options): a kernel that fails on the GPU leaves its process's
// CUDA context unusable, so its worker stops and the next one goes on.
//
// It links nothing of LLVM but its Support library, statically, so that it
// runs where neither ksc nor LLVM is installed; the CUDA driver and NVRTC
// are loaded when it runs.
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Runner/Replay.h"
#include "ksc/Support/Output.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ksc;

namespace {
cl::OptionCategory replayCategory("ksc-replay options");

cl::opt<std::string> bundleDir(cl::Positional,
                               cl::desc("<bundle directory>"),
                               cl::cat(replayCategory));
cl::opt<std::string> reportFile(
    "report", cl::desc("Write the report as JSON to this file"),
    cl::value_desc("file"), cl::cat(replayCategory));
cl::list<std::string>
    vias("via",
         cl::desc("The code paths to run every case through: ptx (ksc's "
                  "PTX) and cuda-source (its CUDA C++, compiled with NVRTC); "
                  "default both"),
         cl::CommaSeparated, cl::value_desc("path,..."),
         cl::cat(replayCategory));
cl::list<std::string>
    cases("case",
          cl::desc("Run only the cases whose names match this glob pattern "
                   "(repeatable: any of them)"),
          cl::value_desc("pattern"), cl::cat(replayCategory));
cl::opt<std::string> cudaPath(
    "cuda-path",
    cl::desc("The CUDA toolkit whose NVRTC compiles the CUDA C++ (default: "
             "$CUDA_HOME, else /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(replayCategory));
cl::opt<std::string> gpuArch(
    "gpu-arch",
    cl::desc("Compile the CUDA C++ for this architecture (default: the "
             "device's)"),
    cl::value_desc("sm_XY"), cl::cat(replayCategory));
cl::opt<unsigned> threads(
    "j", cl::desc("Threads that compile CUDA C++ (default: one per core)"),
    cl::value_desc("N"), cl::init(0), cl::Prefix, cl::cat(replayCategory));
cl::opt<bool> listCases("list",
                        cl::desc("List the cases of the bundle and stop"),
                        cl::cat(replayCategory));
cl::opt<unsigned> runTimeout(
    "run-timeout",
    cl::desc("Fail a run that takes longer than this many seconds (its "
             "worker process is killed; default 300)"),
    cl::value_desc("seconds"), cl::init(300), cl::cat(replayCategory));
// A worker process's options (runner::ReplayWorker).
cl::opt<std::string> workerCode("worker", cl::Hidden,
                                cl::desc("Run as a worker, with this code"));
cl::opt<std::string> workerResults("worker-results", cl::Hidden);
cl::opt<unsigned> workerFrom("worker-from", cl::Hidden, cl::init(0));
cl::opt<bool> quiet("quiet",
                    cl::desc("Print only the summary (the failures, the "
                             "benchmarks, the totals), not a line per run"),
                    cl::cat(replayCategory));
} // namespace

static int fail(const Twine &message) {
  errs() << "ksc-replay: error: " << message << "\n";
  return 1;
}

/// Writes `report` as JSON to --report, atomically.
static int writeReport(const runner::ReplayReport &report) {
  if (reportFile.empty())
    return 0;
  std::string text;
  raw_string_ostream os(text);
  runner::writeReplayJson(os, report);
  if (Error error = writeFileIfChanged(reportFile, text))
    return fail("cannot write '" + reportFile +
                "': " + toString(std::move(error)));
  return 0;
}

static int replay(const char *argv0) {
  if (bundleDir.empty())
    return fail("no bundle directory (see ksc-replay --help)");
  runner::ReplayOptions options;
  if (!vias.empty())
    options.vias.assign(vias.begin(), vias.end());
  options.only.assign(cases.begin(), cases.end());
  options.cudaPath = cudaPath;
  options.arch = gpuArch;
  options.threads = threads;
  if (runTimeout == 0)
    return fail("--run-timeout must be at least 1 second");
  options.runTimeout = runTimeout;
  options.program =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&fail));
  if (options.program.empty())
    return fail("cannot find the path of ksc-replay itself");

  Expected<std::vector<runner::BundleCase>> bundle =
      runner::readBundle(bundleDir);
  if (!bundle)
    return fail(toString(bundle.takeError()));
  Expected<std::vector<const runner::BundleCase *>> selected =
      runner::selectCases(*bundle, options);
  if (!selected)
    return fail(toString(selected.takeError()));
  if (!workerCode.empty())
    return runner::runReplayWorker(
        bundleDir, *selected, options,
        {workerCode.getValue(), workerResults.getValue(), workerFrom});
  if (listCases) {
    for (const runner::BundleCase *c : *selected)
      outs() << c->name << (c->isBenchmark() ? "  (benchmark)" : "") << "\n";
    return 0;
  }

  auto progress = [&](const runner::CaseRun &run) {
    if (quiet)
      return;
    outs() << (run.status == runner::ReplayStatus::Fail ? "FAIL"
               : run.status == runner::ReplayStatus::Skip ? "skip"
                                                           : "pass")
           << " " << run.name << " (" << run.via << ")";
    if (run.status != runner::ReplayStatus::Pass)
      outs() << ": " << run.message;
    outs() << "\n";
    outs().flush();
  };
  Expected<runner::ReplayReport> report =
      runner::replayBundle(bundleDir, *selected, options, progress);
  if (!report) {
    int status = 1;
    handleAllErrors(
        report.takeError(),
        [&](const runner::NoDeviceError &noDevice) {
          errs() << "ksc-replay: no CUDA device: ";
          noDevice.log(errs());
          errs() << "\n";
          status = 77;
        },
        [&](const ErrorInfoBase &other) { status = fail(other.message()); });
    return status;
  }
  runner::writeReplaySummary(outs(), *report);
  if (int status = writeReport(*report))
    return status;
  return report->count(runner::ReplayStatus::Fail) ? 1 : 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(replayCategory);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "ksc-replay " << KSC_VERSION << " (LLVM " << KSC_LLVM_VERSION
       << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "ksc-replay: run a GPU bundle (ksc-run --record) on a GPU\n\n"
      "  ksc-replay bundle/ --report=report.json\n");
  return replay(argv[0]);
}
