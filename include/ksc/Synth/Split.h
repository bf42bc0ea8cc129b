//===- Split.h - Train / validation / test splits of a dataset -*- C++ -*-===//
//
// Part of ksc. `--splits=train:0.98,val:0.01,test:0.01` (docs/dataset.md,
// "Splits"): each record goes to a split chosen by the fingerprint of its
// normalized source, so that the assignment is stable across runs, shards
// and --count, and two records whose sources differ only in layout and
// names (which a run keeps at most one of) can never straddle two splits.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_SPLIT_H
#define KSC_SYNTH_SPLIT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ksc::synth {

struct Split {
  /// Letters, digits, `_` and `-`: it names a file.
  std::string name;
  /// Of the records, in (0, 1]; the fractions of a list add up to 1.
  double fraction = 0;
  /// Records written to it.
  uint64_t records = 0;
};

/// Parses `name:fraction,...`; an error says what is wrong.
llvm::Expected<std::vector<Split>> parseSplits(llvm::StringRef text);

/// The index of the split of a record whose normalized source has
/// `fingerprint`: the point high64 / 2^64 of [0, 1) falls in the split
/// whose cumulative fraction interval holds it.
unsigned splitOf(const llvm::XXH128_hash_t &fingerprint,
                 llvm::ArrayRef<Split> splits);

/// `data.jsonl` -> `data.NAME.jsonl` (any other name: `NAME.<split>.jsonl`).
std::string splitPath(llvm::StringRef dataPath, llvm::StringRef split);

/// Writes the records of the dataset `input` to one file per split
/// (splitPath), each put in place whole, and counts them in `splits`.
llvm::Error splitDataset(llvm::StringRef input, std::vector<Split> &splits);

} // namespace ksc::synth

#endif // KSC_SYNTH_SPLIT_H
