//===- Card.h - The README of a ksc-synth dataset ---------------*- C++ -*-===//
//
// Part of ksc. `ksc-synth card DATA.jsonl` (docs/dataset.md, "Dataset
// card"): a README.md next to the data that describes it from the data and
// its statistics: the schema, the forms, one example per category, the
// coverage, the command and ksc version that made it, the license, and a
// Hugging Face `datasets` front matter that names the split files.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_CARD_H
#define KSC_SYNTH_CARD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ksc::synth {

struct CardOptions {
  /// An SPDX license identifier for the front matter, or "other".
  std::string license = "other";
};

/// The card of the dataset `dataPath` (with its `.stats.json`), as
/// Markdown with a YAML front matter.
llvm::Expected<std::string> makeCard(llvm::StringRef dataPath,
                                     const CardOptions &options);

} // namespace ksc::synth

#endif // KSC_SYNTH_CARD_H
