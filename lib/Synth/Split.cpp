//===- Split.cpp - Train / validation / test splits of a dataset ----------===//
//
// Part of ksc. See Split.h.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Split.h"
#include "ksc/Support/Output.h"
#include "ksc/Synth/Dataset.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

Expected<std::vector<Split>> synth::parseSplits(StringRef text) {
  std::vector<Split> splits;
  StringSet<> names;
  SmallVector<StringRef> items;
  text.split(items, ',');
  double total = 0;
  for (StringRef item : items) {
    auto [name, fraction] = item.trim().split(':');
    Split split;
    split.name = name.trim().str();
    if (split.name.empty() || !llvm::all_of(split.name, [](char c) {
          return isAlnum(c) || c == '_' || c == '-';
        }))
      return createStringError("'" + item.trim() +
                               "' is not NAME:FRACTION with a name of "
                               "letters, digits, '_' and '-'");
    if (!names.insert(split.name).second)
      return createStringError("the split '" + split.name + "' is named twice");
    if (fraction.trim().getAsDouble(split.fraction) ||
        !(split.fraction > 0 && split.fraction <= 1))
      return createStringError("the fraction of '" + split.name +
                               "' must be a number in (0, 1], not '" +
                               fraction.trim() + "'");
    total += split.fraction;
    splits.push_back(std::move(split));
  }
  if (std::abs(total - 1) > 1e-9)
    return createStringError(
        formatv("the fractions add up to {0}, not 1", total).str());
  return splits;
}

unsigned synth::splitOf(const XXH128_hash_t &fingerprint,
                        ArrayRef<Split> splits) {
  double point = double(fingerprint.high64) / 18446744073709551616.0;
  double end = 0;
  for (unsigned k = 0; k + 1 < splits.size(); ++k) {
    end += splits[k].fraction;
    if (point < end)
      return k;
  }
  return unsigned(splits.size() - 1);
}

std::string synth::splitPath(StringRef dataPath, StringRef split) {
  return companionPath(dataPath, (split + ".jsonl").str());
}

Error synth::splitDataset(StringRef input, std::vector<Split> &splits) {
  SourceNormalizer normalizer;
  if (!normalizer.valid())
    return createStringError("cannot read the kernel-language prelude");
  std::vector<std::unique_ptr<StreamedOutput>> outputs;
  for (Split &split : splits) {
    split.records = 0;
    std::string path = splitPath(input, split.name);
    if (path == input)
      return createStringError("the split '" + split.name + "' of '" + input +
                               "' would be the file itself");
    Expected<std::unique_ptr<StreamedOutput>> output =
        StreamedOutput::create(path);
    if (!output)
      return createStringError("cannot write '" + path +
                               "': " + toString(output.takeError()));
    outputs.push_back(std::move(*output));
  }
  if (Error error = forEachRecord(input, [&](const RecordLine &record) {
        unsigned k = splitOf(normalizer.fingerprint(record.source), splits);
        outputs[k]->os() << record.text << "\n";
        ++splits[k].records;
        return Error::success();
      }))
    return error;
  // The files are put in place once every record is written.
  for (auto &output : outputs)
    if (Error error = output->commit())
      return createStringError("cannot write '" + output->path() +
                               "': " + toString(std::move(error)));
  return Error::success();
}
