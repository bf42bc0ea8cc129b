//===- Bundle.h - Runs recorded here, replayed on a GPU ------*- C++ -*-===//
//
// Part of ksc. A GPU bundle is a directory of cases, each a run of ksc-run
// recorded on the CPU with `ksc-run --record=DIR` (docs/cuda.md): the GPU
// code ksc made for it (its PTX and its CUDA C++), the job (Job.h: the
// mode, the signatures of the kernels it launches, its data), how to
// launch the kernels, and the CPU's results of every launch. ksc-replay
// runs the same job on a GPU, where neither ksc nor LLVM is installed, and
// compares every launch with the CPU's.
//
//   DIR/bundle.json            {"format": "ksc-gpu-bundle", "version": 1}
//   DIR/ksc_runtime.h          the runtime header the CUDA C++ includes
//   DIR/code/HASH.ptx, .cu     GPU code, named by a hash of its contents
//   DIR/code/modules/KEY.json  which code a module compiled to, by a hash of
//                              its IR and options
//   DIR/data/HASH.json         the data files of the cases, as they were
//   DIR/cases/NAME.json        a case
//   DIR/cases/NAME.bin         the CPU's results of its launches
//
// Every file is written atomically (a temporary file renamed), so that
// several ksc-run processes can record into one bundle at once.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_BUNDLE_H
#define KSC_RUNNER_BUNDLE_H

#include "ksc/Runner/Cuda.h"
#include "ksc/Runner/Job.h"

#include <map>

namespace ksc::runner {

/// The version of the bundle format this ksc writes and reads.
inline constexpr int64_t kBundleVersion = 1;

/// The GPU code of a case.
struct BundleCode {
  /// The architecture of the PTX (`.target`): the driver compiles it for
  /// the device it runs on.
  std::string arch;
  /// ksc's PTX, and its CUDA C++ (or hand-written code with the same
  /// kernel ABI); either may be missing (empty).
  std::string ptx, cuda;
  /// The kernels: the PTX's entries are named after them; `expression`
  /// names each one's `__global__` function in the CUDA C++.
  std::vector<CudaSourceKernel> kernels;
  /// Where ptx and cuda are in the bundle (code/HASH.ptx), once written or
  /// read.
  std::string ptxFile, cudaFile;
};

/// One launch of a recorded run on the CPU.
struct RecordedLaunch {
  std::string kernel;
  /// The bytes of its writable arrays after it, one after the other in
  /// argument order, in the case's data (each array's whole buffer).
  uint64_t bytes = 0;
};

/// A recorded run of ksc-run.
struct BundleCase {
  /// `Run/saxpy.kdsl:7`: letters, digits and `_.:+-`, in parts separated
  /// by `/`; its file is cases/NAME.json.
  std::string name;
  /// The ksc-run command line it was recorded from, for people.
  std::string command;
  BundleCode code;
  /// Threads per block, grid-stride loops, bounds checks; `repeat` > 0 makes
  /// the case a benchmark: its launches are timed and not compared.
  CudaLaunchOptions launch;
  Job job;
  /// The contents of the job's data files, by file name (kept as text: a
  /// JSON value written again would lose the sign of a -0.0).
  std::map<std::string, std::string> data;
  /// The tolerances of the comparison with the CPU (--atol, --rtol).
  CompareOptions compare;
  /// The launches on the CPU, in order, and the bytes of their results.
  std::vector<RecordedLaunch> launches;
  std::vector<uint8_t> results;
  /// The message of the launch that failed on the CPU (the last one), such
  /// as a failed bounds check: the GPU must fail there too and print it.
  std::string launchError;
  /// Text the GPU's error or device output must contain: a failure only
  /// the GPU has, such as a full tape (`ksc-run --record-gpu-failure`).
  std::string gpuFailure;

  bool isBenchmark() const { return launch.repeat > 0; }
  /// Whether the GPU run is expected to fail.
  bool expectsFailure() const {
    return !launchError.empty() || !gpuFailure.empty();
  }
};

/// Checks a case name (see BundleCase::name).
llvm::Error checkCaseName(llvm::StringRef name);

/// Writes `bundleCase` into the bundle `dir` (created if needed): its code
/// (unless there already), its JSON and its results; sets its code's
/// file names.
llvm::Error writeCase(llvm::StringRef dir, BundleCase &bundleCase,
                      llvm::StringRef runtimeHeader);

/// The code written with `writeCase` for a module with the key `key` (a
/// hash of its IR and of the options that shape its code), if a case of
/// the bundle `dir` has it: recording a module again reuses its code
/// instead of compiling it again.
std::optional<BundleCode> findRecordedCode(llvm::StringRef dir,
                                           llvm::StringRef key);
/// Remembers `code`, as written by `writeCase`, under `key`.
llvm::Error rememberCode(llvm::StringRef dir, llvm::StringRef key,
                         const BundleCode &code);

/// The cases of the bundle `dir`, sorted by name, their code and results
/// read; errors name the file and the JSON path of what is wrong.
llvm::Expected<std::vector<BundleCase>> readBundle(llvm::StringRef dir);

/// The runtime header of the bundle `dir`.
llvm::Expected<std::string> readBundleRuntimeHeader(llvm::StringRef dir);

/// A case as JSON, and back (`path` locates errors). The code and the
/// results are referred to by file name.
llvm::json::Value toJSON(const BundleCase &bundleCase);
bool fromJSON(const llvm::json::Value &value, BundleCase &bundleCase,
              llvm::json::Path path);

/// Runs kernels on another executor and records every launch: its kernel
/// and its writable arrays after it, or the message of a launch that
/// fails.
class RecordingExecutor : public Executor {
public:
  explicit RecordingExecutor(Executor &inner) : inner(inner) {}
  llvm::Error launch(llvm::StringRef kernel,
                     std::vector<Argument> &args) override;
  std::string describe() const override { return inner.describe(); }

  /// Moves what was recorded into `bundleCase`.
  void takeInto(BundleCase &bundleCase);
  bool hasLaunchError() const { return !launchError.empty(); }

private:
  Executor &inner;
  std::vector<RecordedLaunch> launches;
  std::vector<uint8_t> results;
  std::string launchError;
};

/// Plays back the recorded launches of a case: each launch must be the
/// next recorded one, of the same kernel and with arrays of the same
/// sizes, and gets the CPU's results. The reference of a replay's
/// CompareExecutor.
class RecordedExecutor : public Executor {
public:
  explicit RecordedExecutor(const BundleCase &bundleCase)
      : bundleCase(bundleCase) {}
  llvm::Error launch(llvm::StringRef kernel,
                     std::vector<Argument> &args) override;
  std::string describe() const override { return "cpu (recorded)"; }
  /// Fails unless every recorded launch was played back.
  llvm::Error finish() const;

private:
  const BundleCase &bundleCase;
  size_t next = 0;
  uint64_t offset = 0;
};

} // namespace ksc::runner

#endif // KSC_RUNNER_BUNDLE_H
