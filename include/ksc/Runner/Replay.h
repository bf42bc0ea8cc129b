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
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_REPLAY_H
#define KSC_RUNNER_REPLAY_H

#include "ksc/Runner/Bundle.h"

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
