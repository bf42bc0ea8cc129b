//===- Coverage.h - What the records of a dataset use ----------*- C++ -*-===//
//
// Part of ksc. The coverage statistics of a ksc-synth dataset
// (docs/dataset.md, "Statistics"): per category, how many records use each
// construct of the language and each builtin, the distributions of their
// sizes (statements, nesting depth), and how many adjoints keep a tape.
// Counts only, so that shards' add up (merge) and a checkpoint restores
// them (toJSON / fromJSON).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_COVERAGE_H
#define KSC_SYNTH_COVERAGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ksc::synth {

struct Record;

class Coverage {
public:
  /// Counts `record` (its source, and its adjoint forms if it has any).
  void add(const Record &record);
  /// Counts a record of `category` with `source`, if it has one the CPU or
  /// CUDA C++ of its adjoint, and the patterns a realistic kernel is
  /// composed of.
  void add(llvm::StringRef category, llvm::StringRef source,
           std::optional<llvm::StringRef> adjoint,
           llvm::ArrayRef<std::string> patterns = {});
  void merge(const Coverage &other);
  /// {"all": {...}, "<category>": {...}, ...}: per group ("uses",
  /// "statements", "nesting_depth", "adjoint", "patterns"), key -> records.
  llvm::json::Object toJSON() const;
  /// Reads toJSON's output back ("all" is recomputed); false if it is not
  /// one.
  static bool fromJSON(const llvm::json::Value &value, Coverage &coverage);
  bool empty() const { return counts.empty(); }

private:
  /// category -> group -> key -> records.
  using Groups = std::map<std::string, std::map<std::string, uint64_t>>;
  std::map<std::string, Groups> counts;
};

} // namespace ksc::synth

#endif // KSC_SYNTH_COVERAGE_H
