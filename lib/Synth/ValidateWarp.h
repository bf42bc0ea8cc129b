//===- ValidateWarp.h - Records against NVIDIA Warp ---------*- C++ -*-===//
//
// Part of ksc. Private to lib/Synth: the random kernel inputs `validate`
// runs kernels on, and `validate --warp`, which runs a sample of records'
// `warp` form on Warp's CPU backend (tools/ksc-synth/warp_run.py) and the
// same kernels through ksc-run on the same inputs, and compares outputs
// and input adjoints (docs/dataset.md, "Checking against Warp").
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_SYNTH_VALIDATEWARP_H
#define KSC_LIB_SYNTH_VALIDATEWARP_H

#include "ksc/Runner/Runner.h"
#include "ksc/Support/SplitMix64.h"
#include "ksc/Synth/Generate.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ksc::synth {

/// A random value of `type` in ksc-run's JSON: reals in [-2, 2], integers
/// in [0, 3] (indices and counts stay small), vectors and matrices as
/// (nested) lists, structs as objects keyed by field.
llvm::json::Value randomValue(const runner::ValueType &type,
                              SplitMix64 &random);
/// A random value for `param` for a launch of `n` threads: an array has n
/// elements along dimension 0 and 3 along the others.
llvm::json::Value randomArgument(const runner::Param &param, unsigned n,
                                 SplitMix64 &random);
/// The signature of the kernel of a record, from its ks IR (`ksMlir`).
llvm::Expected<runner::Signature> signatureOf(llvm::StringRef ksMlir);

/// What `validate --warp` found.
struct WarpSummary {
  /// Why the check did not run (no Python with warp); empty if it ran.
  std::string skipped;
  unsigned kernels = 0;
  /// Records whose gradients were compared (they have float arrays).
  unsigned gradients = 0;
  /// Records where Warp's adjoints differ from ksc's and ksc's match
  /// finite differences (Warp's known wrong gradients).
  std::vector<std::string> warpGradientWrong;
  /// Records where Warp's adjoints differ from ksc's and, along three
  /// random directions, neither or both match finite differences.
  std::vector<std::string> unexplained;
  /// Records where the kernel jumps at the sampled inputs: central
  /// differences grow as 1/step along every direction (a piecewise
  /// function such as int(x) at a jump), so that no side can be judged.
  std::vector<std::string> atJump;
  /// Records whose warp form Warp cannot build or run (its message).
  std::vector<std::string> warpFailed;
};

/// Runs the records at `sample` (indices into `lines`) through Warp and
/// ksc-run; appends what is a ksc failure (outputs or adjoints that differ
/// where Warp's match) to `errors` of the record. `kscRun` is ksc-run's
/// path, `tempDir` a scratch directory.
WarpSummary checkAgainstWarp(llvm::ArrayRef<llvm::StringRef> lines,
                             llvm::ArrayRef<size_t> sample,
                             const ValidateOptions &options,
                             llvm::StringRef kscRun, llvm::StringRef tempDir,
                             std::vector<std::vector<std::string>> &errors);

void printWarpSummary(const WarpSummary &summary, llvm::raw_ostream &os);

} // namespace ksc::synth

#endif // KSC_LIB_SYNTH_VALIDATEWARP_H
