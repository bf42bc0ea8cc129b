//===- Dataset.h - ksc-synth datasets: records, ids, statistics -*- C++ -*-===//
//
// Part of ksc. The pieces of a ksc-synth dataset (docs/dataset.md): the id
// space and the seed of each record, the record's JSON line, the normalized
// source that duplicates are detected by, and the statistics written next
// to the data.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_DATASET_H
#define KSC_SYNTH_DATASET_H

#include "ksc/Synth/Coverage.h"
#include "ksc/Synth/Forms.h"
#include "ksc/Synth/Generator.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ksc::synth {

/// The seed of record `id` of a dataset made with `seed`, for `category`: a
/// 52-bit number (exact in JSON) whose low four bits are the category's
/// index in allCategories(), so that the seed alone regenerates the kernel.
uint64_t recordSeed(uint64_t seed, uint64_t id, Category category);
/// The category a record seed was made for; nullopt if none.
std::optional<Category> categoryOfSeed(uint64_t recordSeed);

/// The ids [begin, end) that shard `index` of `count` covers of the id
/// space [0, total): contiguous ranges, in order, that partition it.
std::pair<uint64_t, uint64_t> shardRange(uint64_t total, unsigned index,
                                         unsigned count);

/// Recognizes sources that differ only in layout and local names: the
/// normalized source has comments removed, one space between tokens, and
/// every identifier that is not a C++ keyword, a name the kernel language
/// declares (types and builtins, read from the prelude) or a member after
/// `.` renamed `v0`, `v1`, ... in order of first appearance.
class SourceNormalizer {
public:
  /// Reads the vocabulary from the prelude ksc uses; empty after an error.
  SourceNormalizer();
  bool valid() const { return !vocabulary.empty(); }
  std::string normalize(llvm::StringRef source) const;
  /// A 128-bit hash of the normalized source.
  llvm::XXH128_hash_t fingerprint(llvm::StringRef source) const;

private:
  llvm::StringSet<> vocabulary;
};

/// Recognizes kernels of one structure (near-duplicates): their ks IR
/// (`ksc --emit=mlir`) alike but for the values of constants, the names of
/// values, functions and variables, and string attributes. The normalized
/// IR keeps every operation, type, operand and attribute else.
std::string normalizeStructure(llvm::StringRef ksMlir);
/// A 128-bit hash of the normalized IR.
llvm::XXH128_hash_t structureFingerprint(llvm::StringRef ksMlir);
/// A fingerprint as the 32 hex digits records carry ("structure").
std::string fingerprintHex(llvm::XXH128_hash_t fingerprint);
std::optional<llvm::XXH128_hash_t> parseFingerprintHex(llvm::StringRef hex);

/// DenseMapInfo of fingerprints (already hashes).
struct FingerprintInfo {
  static llvm::XXH128_hash_t getEmptyKey() { return {~0ull, 0}; }
  static llvm::XXH128_hash_t getTombstoneKey() { return {~0ull - 1, 0}; }
  static unsigned getHashValue(const llvm::XXH128_hash_t &hash) {
    return unsigned(hash.low64);
  }
  static bool isEqual(const llvm::XXH128_hash_t &a,
                      const llvm::XXH128_hash_t &b) {
    return a == b;
  }
};
/// The fingerprints of the sources seen so far: 16 bytes a record.
using FingerprintSet = llvm::DenseSet<llvm::XXH128_hash_t, FingerprintInfo>;

/// One record of a dataset.
struct Record {
  uint64_t id = 0;
  Category category = Category::Arithmetic;
  uint64_t seed = 0;
  GeneratedKernel kernel;
  /// The file name the forms were compiled as (banners name it).
  std::string fileName;
  /// With --near-duplicates: fingerprintHex of its structure; else empty.
  std::string structure;
  FormSet formSet;
  CompiledForms forms;
};

/// The file name a kernel is compiled as: `<kernel>.kdsl`.
std::string recordFileName(const GeneratedKernel &kernel);

/// Writes `record` as one JSON line (keys in a fixed order).
void writeRecord(llvm::raw_ostream &os, const Record &record);

/// The record keys every record has, in order, before its forms.
llvm::ArrayRef<llvm::StringLiteral> recordKeys();

/// A line of a dataset file, parsed, with the fields every record has.
struct RecordLine {
  llvm::StringRef text;
  const llvm::json::Object &object;
  llvm::StringRef source;
  llvm::StringRef category;
};

/// Calls `fn` on the records of the dataset `data` (read from `path`) in
/// order, blank lines skipped; stops at the first error: `fn`'s, or
/// "PATH:LINE: not a ksc-synth record (...)" for a line that is not a JSON
/// object with a string "source" and "category".
llvm::Error
forEachRecord(llvm::StringRef path, llvm::StringRef data,
              llvm::function_ref<llvm::Error(const RecordLine &)> fn);
/// As above, for the dataset in the file `path` (read mapped, whole).
llvm::Error
forEachRecord(llvm::StringRef path,
              llvm::function_ref<llvm::Error(const RecordLine &)> fn);

/// A failure to compile a generated kernel: a bug in the generator or in
/// ksc, reproduced by `ksc-synth --replay=SEED`.
struct Failure {
  uint64_t id = 0;
  uint64_t seed = 0;
  Category category = Category::Arithmetic;
  /// "frontend", or the form that failed.
  std::string reason;
  std::string message;
};

/// What a run made, written as JSON next to the data.
struct Stats {
  uint64_t records = 0;
  uint64_t duplicates = 0;
  /// Records whose structure repeats an earlier one's, dropped
  /// (--near-duplicates).
  uint64_t nearDuplicates = 0;
  /// Kernels below --min-statements after every draw, dropped.
  uint64_t tooSmall = 0;
  uint64_t failures = 0;
  std::map<std::string, uint64_t> recordsPerCategory;
  std::map<std::string, uint64_t> failuresByReason;
  /// The first failures (at most kMaxListedFailures).
  std::vector<Failure> failed;
  double wallSeconds = 0;
  /// The workers' time by stage: "generate", "normalize" (for duplicates)
  /// and the compiler's stages (RecordCompiler::stageSeconds).
  StageSeconds stageSeconds;
  /// What the records use.
  Coverage coverage;
  static constexpr size_t kMaxListedFailures = 100;

  void addFailure(const Failure &failure);
  /// Adds the counts and stage times of `other` (wall time: the longest).
  void merge(const Stats &other);
  /// The counts and timing as JSON; `extra` (the run's settings) first.
  llvm::json::Object toJSON(llvm::json::Object extra) const;
  /// Reads the counts back from toJSON's output; false if it is not one.
  static bool fromJSON(const llvm::json::Value &value, Stats &stats);
};

/// `X.jsonl` -> `X.stats.json` (any other name: `NAME.stats.json`).
std::string defaultStatsPath(llvm::StringRef dataPath);
/// A file that goes with the dataset `X.jsonl`: `X.<suffix>` (any other
/// name: `NAME.<suffix>`).
std::string companionPath(llvm::StringRef dataPath, llvm::StringRef suffix);

} // namespace ksc::synth

#endif // KSC_SYNTH_DATASET_H
