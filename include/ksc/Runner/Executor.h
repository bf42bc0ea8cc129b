//===- Executor.h - What runs kernels for ksc-run ------------*- C++ -*-===//
//
// Part of ksc. An executor launches the kernels of one compiled module on
// one launch grid: on the CPU (a shared library from the host compiler), on
// a GPU (CudaExecutor, Cuda.h), or on both, comparing the results
// (CompareExecutor). ksc-run's plain runs, `--grad` and `--check-grad` all
// launch kernels through one, as a Launcher (Gradient.h), so the same code
// drives every target.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_EXECUTOR_H
#define KSC_RUNNER_EXECUTOR_H

#include "ksc/Runner/Runner.h"

#include <memory>

namespace ksc::runner {

class Executor {
public:
  virtual ~Executor();
  /// Launches `kernel` on `args`, whose arrays are updated in place.
  virtual llvm::Error launch(llvm::StringRef kernel,
                             std::vector<Argument> &args) = 0;
  /// What runs the kernels, for reports: "cpu", "cuda (NVIDIA ..., sm_90,
  /// via ptx)".
  virtual std::string describe() const = 0;
};

/// Launches the kernels of `library` (compileSharedLibrary) on the CPU.
/// A message of a failed launch that names no file (":LINE:COL: ...", the
/// locations of a library made without its file's name, so that the same
/// kernel from another path is the same library) names `kernelFile`.
std::unique_ptr<Executor> createCpuExecutor(std::string library,
                                            const Grid &grid,
                                            std::string kernelFile = "");

/// |tested - reference| <= atol + rtol * |reference| for one precision.
struct Tolerance {
  double atol = 0, rtol = 0;
};

/// How CompareExecutor compares numbers: floats and doubles within their
/// tolerance (both NaN, or the same infinity, match), integers and bools
/// exactly.
struct CompareOptions {
  /// float: a few ulp of two math libraries, and sums reordered by atomic
  /// updates, stay far below; a wrong result is off by much more.
  Tolerance f32 = {1e-5, 1e-4};
  Tolerance f64 = {1e-12, 1e-10};
};

/// How one array argument of one kernel compares over all its launches.
struct ArrayComparison {
  std::string kernel, name;
  int64_t numCompared = 0;
  double maxAbsDiff = 0;
  /// Over the numbers whose reference value is not zero.
  double maxRelDiff = 0;
  /// The number with the largest |diff| / tolerance (infinite where a
  /// NaN, an infinity or an integer differs): `y[2]`, `v[1] component 0`.
  std::string worst;
  double worstTested = 0, worstReference = 0, worstRatio = 0;
  bool passed() const { return worstRatio <= 1; }
};

/// Launches every kernel on `tested` and on a copy of its arguments on
/// `reference`, and compares the arrays after each launch; `tested`'s
/// results are the ones kept.
class CompareExecutor : public Executor {
public:
  CompareExecutor(Executor &tested, Executor &reference, CompareOptions options)
      : tested(tested), reference(reference), options(options) {}
  llvm::Error launch(llvm::StringRef kernel,
                     std::vector<Argument> &args) override;
  std::string describe() const override;

  const std::vector<ArrayComparison> &getResults() const { return results; }
  /// The failed comparison with the largest ratio, or null.
  const ArrayComparison *worstFailure() const;
  /// A table, one row per array of every kernel launched.
  void writeReport(llvm::raw_ostream &os) const;
  /// Names the number of a failed comparison: "array 'y' of kernel 'saxpy'
  /// at y[3]: GPU 3.5, CPU 2.5 (|diff| is 1e+04 times the tolerance)".
  static std::string describeFailure(const ArrayComparison &failure);

private:
  void compare(llvm::StringRef kernel, const Argument &tested,
               const Argument &reference);

  Executor &tested, &reference;
  CompareOptions options;
  std::vector<ArrayComparison> results;
};

/// The exit status of a tool whose launch ran past its time limit (as the
/// `timeout` command's).
constexpr int kTimeoutStatus = 124;

/// Launches on `inner`, ending the process when a launch runs longer than
/// `seconds` (ksc-run --timeout): `<tool>: error: kernel 'K' did not finish
/// within S s` on stderr, exit status kTimeoutStatus. A launch cannot be
/// stopped safely from outside (a CPU kernel runs on the process's
/// threads; a GPU kernel until its context goes), so the process ends; the
/// operating system reclaims the GPU context with it. Only launches count,
/// not compiling or reading inputs.
class TimeLimitedExecutor : public Executor {
public:
  TimeLimitedExecutor(Executor &inner, double seconds, std::string tool);
  ~TimeLimitedExecutor() override;
  llvm::Error launch(llvm::StringRef kernel,
                     std::vector<Argument> &args) override;
  std::string describe() const override { return inner.describe(); }

private:
  struct Watchdog;
  Executor &inner;
  std::unique_ptr<Watchdog> watchdog;
};

/// The exit status of a tool whose kernel trapped on the CPU.
constexpr int kTrapStatus = 3;

/// Launches on `inner` (an executor whose kernels run on this process's
/// threads: the CPU's), ending the process with a message when a launch
/// traps, instead of dying of the signal with LLVM's crash report: an
/// integer division by zero or of INT_MIN by -1 (SIGFPE), an access
/// outside the process's memory (SIGSEGV, SIGBUS: an index out of bounds
/// with --bounds-check=false), an illegal instruction (SIGILL).
/// `<tool>: error: kernel 'K' trapped: integer division by zero (SIGFPE)`
/// on stderr, exit status kTrapStatus: the kernel's threads stopped
/// anywhere, and the process cannot go on. Outside launches the signals
/// do what they did before.
class TrapReportingExecutor : public Executor {
public:
  TrapReportingExecutor(std::unique_ptr<Executor> inner, std::string tool)
      : inner(std::move(inner)), tool(std::move(tool)) {}
  llvm::Error launch(llvm::StringRef kernel,
                     std::vector<Argument> &args) override;
  std::string describe() const override { return inner->describe(); }

private:
  std::unique_ptr<Executor> inner;
  std::string tool;
};

} // namespace ksc::runner

#endif // KSC_RUNNER_EXECUTOR_H
