//===- Job.h - One run of ksc-run's, on any executor ---------*- C++ -*-===//
//
// Part of ksc. What ksc-run does with a kernel once its code is built: one
// of its modes (a plain run, `--grad=reverse|forward|hvp`, `--check-grad`)
// on the data of its JSON files, launching kernels through a Launcher
// (an Executor's: the CPU's, a GPU's, or both compared). ksc-run makes a
// Job from its options and the kernel's IR; a bundle case (Bundle.h)
// stores one, so that ksc-replay runs on a GPU exactly what ksc-run ran on
// the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_JOB_H
#define KSC_RUNNER_JOB_H

#include "ksc/Runner/Tangent.h"

#include <optional>

namespace ksc::runner {

enum class JobMode { Run, Reverse, Forward, Hvp, CheckGrad };

/// "run", "reverse", "forward", "hvp", "check-grad".
llvm::StringRef getJobModeName(JobMode mode);
std::optional<JobMode> parseJobMode(llvm::StringRef name);

struct Job {
  JobMode mode = JobMode::Run;
  Grid grid = {1, 1, 1};
  /// The kernel K.
  Signature signature;
  /// K_adj, for Reverse, Hvp and CheckGrad.
  AdjointSignature adjoint;
  /// K_jvp for Forward and CheckGrad; K_hvp, the tangent kernel of K_adj,
  /// for Hvp.
  TangentSignature tangent;
  /// The arguments differentiated (--wrt; empty: every one), which
  /// CheckGrad checks.
  std::vector<std::string> wrt;
  /// CheckGrad's tolerances and seed (its `only` is `wrt`).
  GradCheckOptions check;
  /// The files of the data: the kernel's arguments (--inputs), the output
  /// adjoints (--adjoints; Reverse and Hvp) and the tangents (--tangents;
  /// Forward and Hvp), read through a JsonReader and named in messages.
  std::string inputsFile, adjointsFile, tangentsFile;

  bool usesAdjoint() const {
    return mode == JobMode::Reverse || mode == JobMode::Hvp ||
           mode == JobMode::CheckGrad;
  }
  bool usesTangent() const {
    return mode == JobMode::Forward || mode == JobMode::Hvp ||
           mode == JobMode::CheckGrad;
  }
  /// The kernels the job launches: K, K_adj, K_jvp or K_hvp.
  std::vector<std::string> getKernels() const;
};

/// The arguments of a job's launches, made from its data.
struct JobArguments {
  /// K's arguments.
  std::vector<Argument> args;
  /// Reverse: the output adjoints (the input adjoints after the run).
  std::vector<Argument> adjoints;
  /// Hvp: K_adj's arguments, `args` then the output adjoints.
  std::vector<Argument> adjArgs;
  /// Forward, Hvp: the tangents.
  std::vector<Argument> tangents;
};

/// Reads a data file of a job ('-' for stdin).
using JsonReader =
    llvm::function_ref<llvm::Expected<llvm::json::Value>(llvm::StringRef)>;

/// Reads and checks the job's data, in the order ksc-run does: the inputs
/// (and that the arguments with derivatives are contiguous), then the
/// output adjoints, then the tangents. Every error names its file.
llvm::Expected<JobArguments> parseJobArguments(const Job &job,
                                               JsonReader read);

/// Runs `job` on `data` through `launch` and writes what ksc-run prints as
/// its result to `out`: the arrays as JSON, or for CheckGrad the check's
/// report. Fails when a launch fails (having written nothing), or, having
/// written the report, when the gradient check fails.
llvm::Error runJob(const Job &job, JobArguments &data, Launcher launch,
                   llvm::raw_ostream &out);

} // namespace ksc::runner

#endif // KSC_RUNNER_JOB_H
