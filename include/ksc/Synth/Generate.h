//===- Generate.h - Make, validate and merge datasets --------*- C++ -*-===//
//
// Part of ksc. The three things ksc-synth does (docs/dataset.md).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_GENERATE_H
#define KSC_SYNTH_GENERATE_H

#include "ksc/Synth/Dataset.h"

#include <functional>

namespace ksc::synth {

struct RunState;

struct GenerateOptions {
  /// The size of the id space: ids 0 .. count-1 (before sharding).
  uint64_t count = 1000;
  uint64_t seed = 1;
  /// The categories, taken in turn by id (id % size); by default the basic
  /// profile's (every category but realistic).
  std::vector<Category> categories;
  FormSet forms;
  /// Worker threads; the output does not depend on it.
  unsigned jobs = 1;
  unsigned shardIndex = 0, shardCount = 1;
  /// Drop records whose structure (normalizeStructure of their ks IR)
  /// repeats an earlier record's; records carry it as "structure".
  bool nearDuplicates = false;
  GeneratorOptions generator;
  FormsOptions compile;
  /// A progress bar on standard error.
  bool progress = false;
  /// Called by the writer with the run's state after the records before
  /// its `nextId` are written to the output, every `checkpointSeconds`
  /// seconds (after every id when 0); an error stops the run (Checkpoint.h).
  std::function<llvm::Error(const RunState &)> checkpoint;
  double checkpointSeconds = 5;
};

/// How far a run has come: the next id it makes, what the records before
/// it counted, and the fingerprints of their sources (for duplicates). A
/// run starts at its shard's first id, or where an interrupted run's
/// checkpoint says it stopped (Checkpoint.h).
struct RunState {
  uint64_t nextId = 0;
  Stats stats;
  FingerprintSet seen;
  /// With --near-duplicates: the structures of the records written.
  FingerprintSet structures;
};

/// What the records of a run depend on (docs/dataset.md, "Interrupted
/// runs"): the ksc version, seed, count, shard and its ids, categories,
/// forms and generator sizes. A run resumes only the checkpoint of a run
/// with the same; its statistics start with them.
llvm::json::Object runSettings(const GenerateOptions &options);

/// Generates and compiles the records of the options' shard from
/// `state.nextId` on and writes them, in id order and without duplicates,
/// to `out`, counting them in `state`; the error of options.checkpoint if
/// it failed.
llvm::Error generateDataset(const FrontendSession &session,
                            const GenerateOptions &options,
                            llvm::raw_ostream &out, RunState &state);

/// Makes the one record of `seed` (a record seed); false with `error` if it
/// does not compile.
bool replayRecord(const FrontendSession &session, uint64_t seed,
                  const GenerateOptions &options, Record &record,
                  std::string &error);

struct ValidateOptions {
  /// Compile every record's C++ and assemble every PTX, not a sample.
  bool full = false;
  /// Records compiled and assembled without `full`: every record whose
  /// position in the file is a multiple of ceil(records / sample).
  unsigned sample = 50;
  /// Records whose CUDA C++ nvcc compiles (when nvcc is found).
  unsigned nvccSample = 8;
  /// Records with arguments to differentiate whose gradients ksc-run checks.
  unsigned gradSample = 8;
  /// Records whose `warp` form runs on NVIDIA Warp against ksc-run
  /// (`--warp`); 0: none.
  unsigned warpSample = 0;
  /// The Python that imports warp; empty: python3 on the PATH.
  std::string python;
  unsigned jobs = 1;
  /// The ksc-run executable; empty: next to ksc-synth.
  std::string kscRun;
  FormsOptions compile;
};

/// Checks the dataset at `path` (docs/dataset.md, "Validating"); prints a
/// line per bad record and a summary on `os`. Returns whether every record
/// is good.
bool validateDataset(const FrontendSession &session, llvm::StringRef path,
                     const ValidateOptions &options, llvm::raw_ostream &os);

/// Concatenates the datasets `inputs` in id order into `out`, dropping
/// records whose source repeats one before it, and adds up their
/// statistics (read from each input's stats file when there is one).
/// Returns false with `error` when an input cannot be read.
/// `wholeRun` is set to the settings of the one unsharded run the inputs
/// are the shards of (shard "0/1", every id), when their statistics say
/// they are every shard of one run's settings, each once; else reset.
bool mergeDatasets(llvm::ArrayRef<std::string> inputs, llvm::raw_ostream &out,
                   Stats &stats, std::string &error,
                   std::optional<llvm::json::Object> &wholeRun);

} // namespace ksc::synth

#endif // KSC_SYNTH_GENERATE_H
