//===- Replay.h - Run a bundle's cases on a GPU --------------*- C++ -*-===//
//
// Part of ksc. What ksc-replay does with a GPU bundle (Bundle.h): runs the
// job of every case on device 0, from ksc's PTX and from its CUDA C++
// compiled with NVRTC, and compares every launch with the CPU's recorded
// results, exactly as `ksc-run --target=cuda --compare=cpu` compares it
// with the CPU runner; benchmark cases are timed instead. The report says
// per case and code path what passed, by how much, and why anything
// failed.
//
// The runs happen in worker processes (ReplayOptions::program): a kernel
// that fails on the GPU (a failed bounds check traps) leaves its process's
// CUDA context unusable for good (CUDA's "sticky" errors: the process must
// end), so the worker that ran it stops and a new one goes on with the next
// run. The parent compiles the GPU code once and hands it to every worker.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_REPLAY_H
#define KSC_RUNNER_REPLAY_H

#include "ksc/Runner/Bundle.h"

#include "llvm/Support/JSON.h"

namespace ksc::runner {

struct ReplayOptions {
  /// The code paths every case runs through: "ptx" (ksc's PTX, loaded by
  /// the driver) and "cuda-source" (its CUDA C++, compiled with NVRTC).
  std::vector<std::string> vias = {"ptx", "cuda-source"};
  /// Where NVRTC is (see compileWithNvrtc), and the architecture it
  /// compiles for (empty: the device's).
  std::string cudaPath, arch;
  /// The cases to run: those whose names match one of these glob patterns
  /// (`Run/*`, `bench/*`); every case when empty.
  std::vector<std::string> only;
  /// Threads that compile CUDA C++ with NVRTC (0: one per core).
  unsigned threads = 0;
  /// The ksc-replay executable whose worker processes run the cases
  /// (`PROGRAM BUNDLE --worker=...`, with the options above); required.
  std::string program;
  /// Seconds a worker may go without finishing a run (a kernel that never
  /// ends): then it is killed and the run fails.
  unsigned runTimeout = 300;
};

enum class ReplayStatus { Pass, Fail, Skip };
llvm::StringRef getReplayStatusName(ReplayStatus status); // "pass", ...

/// One case through one code path.
struct CaseRun {
  std::string name, via;
  ReplayStatus status = ReplayStatus::Pass;
  /// Why it failed or was skipped; for an expected failure, how it failed.
  std::string message;
  std::vector<ArrayComparison> comparisons;
  std::vector<LaunchTiming> timings;
  /// What the job printed (the arrays as JSON, the gradient-check report),
  /// and what the device printed.
  std::string output, deviceOutput;
  double seconds = 0;
};

struct ReplayReport {
  std::string bundle;
  CudaDevice device;
  int driverVersion = 0;
  std::vector<CaseRun> runs;
  double seconds = 0;
  size_t count(ReplayStatus status) const;
};

/// Checks `options` and selects the cases of `cases` it names; an error
/// for a pattern that matches no case or an unknown code path.
llvm::Expected<std::vector<const BundleCase *>>
selectCases(llvm::ArrayRef<BundleCase> cases, const ReplayOptions &options);

/// Runs `cases` of the bundle `dir` on device 0, calling `progress` after
/// each run. A NoDeviceError without a device; other errors are those of
/// the runs, in the report.
llvm::Expected<ReplayReport>
replayBundle(llvm::StringRef dir, llvm::ArrayRef<const BundleCase *> cases,
             const ReplayOptions &options,
             llvm::function_ref<void(const CaseRun &)> progress);

/// What a worker process runs (ksc-replay's hidden --worker options): the
/// runs of the selected cases (each case through each code path of the
/// options, in that order) from index `from` on, with the code the parent
/// compiled into `codeDir`, each run appended to `results` as a line of
/// JSON (toJSON) as soon as it is done.
struct ReplayWorker {
  std::string codeDir, results;
  size_t from = 0;
};
/// A worker's exit status after a kernel failed on the GPU: the run that
/// failed is in the results, the next worker goes on after it.
constexpr int kReplayWorkerLostContext = 3;
/// Runs a worker: 0 when every run is done, kReplayWorkerLostContext, 77
/// without a device, 1 on an error (printed on stderr).
int runReplayWorker(llvm::StringRef dir,
                    llvm::ArrayRef<const BundleCase *> cases,
                    const ReplayOptions &options, const ReplayWorker &worker);

/// A run as JSON (an element of the report's `runs`), and back.
llvm::json::Value toJSON(const CaseRun &run);
llvm::Expected<CaseRun> parseCaseRun(const llvm::json::Value &value);

/// The report as JSON (docs/cuda.md describes it).
void writeReplayJson(llvm::raw_ostream &os, const ReplayReport &report);
/// One line per run, the failures with their device output, the totals,
/// and a table of the benchmarks' times.
void writeReplaySummary(llvm::raw_ostream &os, const ReplayReport &report);

/// What the device prints for a launch that failed on the CPU with
/// `cpuMessage` ("kernel 'K': <message>", as the runtime's C entry points
/// report it): "ksc: <message>", as the runtime's device code prints it.
std::string getDeviceMessage(llvm::StringRef cpuMessage);

} // namespace ksc::runner

#endif // KSC_RUNNER_REPLAY_H
