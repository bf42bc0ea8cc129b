//===- Checkpoint.h - Resumable ksc-synth runs ---------------*- C++ -*-===//
//
// Part of ksc. A dataset written to a file is made in `DATA.partial` (a
// StreamedOutput::createResumable), and every few seconds the run writes
// `DATA.checkpoint`: how many bytes of the partial file are whole records,
// the id the run goes on with after them, and the statistics of those
// records. A run interrupted in any way (a signal, SIGKILL, a full disk, a
// crash) leaves both; `ksc-synth --resume` with the same settings cuts the
// partial file back to the checkpoint and continues from there, and since
// every record is a function of its id, the dataset it ends with is the
// one an uninterrupted run makes, byte for byte (docs/dataset.md,
// "Interrupted runs"). The checkpoint itself is replaced atomically.
//
//   {"format": "ksc-synth checkpoint 1",
//    "settings": {"seed": 1, "count": 1000000, ...},
//    "next_id": 5120, "bytes": 104857600,
//    "stats": {"records": 5071, "duplicates_dropped": 49, ...}}
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_CHECKPOINT_H
#define KSC_SYNTH_CHECKPOINT_H

#include "ksc/Support/Output.h"
#include "ksc/Synth/Generate.h"

#include "llvm/Support/JSON.h"

namespace ksc::synth {

/// `DATA` -> `DATA.checkpoint`.
std::string checkpointPath(llvm::StringRef dataPath);

/// The checkpoints of one run into a resumable output.
class Checkpointer {
public:
  /// `settings`: what the records depend on (seed, ids, categories, forms,
  /// generator options, ksc version); a run resumes only a checkpoint with
  /// equal settings.
  Checkpointer(StreamedOutput &output, llvm::json::Object settings);

  /// Starts the run over the ids [begin, end): with `resume`, where the
  /// checkpoint of an earlier run stopped (its partial file cut back to
  /// the checkpoint, its records' fingerprints read back), or from `begin`
  /// with an empty partial file when there is none; without, from `begin`,
  /// discarding what an earlier run left. Says what it does on `notes`.
  /// Errors (the partial file and its checkpoint kept): a checkpoint of
  /// other settings, one that is not a checkpoint, a partial file that does
  /// not hold what its checkpoint says.
  llvm::Error start(bool resume, uint64_t begin, uint64_t end,
                    RunState &state, llvm::raw_ostream &notes);
  /// Flushes the records and writes the checkpoint of `state`.
  llvm::Error write(const RunState &state);
  /// Removes the checkpoint: the run is complete, its output about to be
  /// put in place.
  llvm::Error finish();

private:
  llvm::Error resumeFrom(const llvm::json::Object &checkpoint, uint64_t begin,
                         uint64_t end, RunState &state);

  StreamedOutput &output;
  llvm::json::Object settings;
  std::string path;
};

} // namespace ksc::synth

#endif // KSC_SYNTH_CHECKPOINT_H
