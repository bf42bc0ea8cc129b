//===- Card.cpp - The README of a ksc-synth dataset -----------------------===//
//
// Part of ksc. See Card.h.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Card.h"
#include "ksc/Synth/Dataset.h"
#include "ksc/Synth/Split.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

namespace {

/// The keys of `object` in order (a json::Object is a hash map).
std::vector<std::string> sortedKeys(const json::Object &object) {
  std::vector<std::string> keys;
  for (const auto &entry : object)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  return keys;
}

/// The count `object` holds for `key`.
int64_t countOf(const json::Object &object, StringRef key) {
  return object.getInteger(key).value_or(0);
}

/// What the card says of the records themselves.
struct Contents {
  uint64_t records = 0;
  /// category -> the shortest source of the category.
  std::map<std::string, std::string> shortest;
  /// The forms of the first record, in allForms() order.
  std::vector<std::string> forms;
};

Expected<Contents> readContents(StringRef dataPath) {
  Contents contents;
  if (Error error = forEachRecord(dataPath, [&](const RecordLine &record) {
        if (contents.records++ == 0)
          for (Form form : allForms())
            if (record.object.get(formName(form)))
              contents.forms.push_back(formName(form).str());
        std::string &shortest = contents.shortest[record.category.str()];
        if (shortest.empty() || record.source.size() < shortest.size())
          shortest = record.source.str();
        return Error::success();
      }))
    return std::move(error);
  return contents;
}

/// Whether the statistics are those of a merge of some shards, with no
/// run's settings (a merge of every shard of one run carries that run's).
bool isMergeOfParts(const json::Object &stats) {
  return stats.getArray("merged") && !stats.get("count");
}

/// The ksc-synth command that makes the dataset again, from its settings:
/// the run's (also those of a merge of every shard of one run), or the
/// merge of shards (whose settings are in their own statistics).
std::string commandOf(const json::Object &stats, StringRef dataName) {
  if (isMergeOfParts(stats)) {
    const json::Array *merged = stats.getArray("merged");
    std::string command = "ksc-synth merge -o " + dataName.str();
    for (const json::Value &input : *merged)
      command += " " + input.getAsString().value_or("?").str();
    if (std::optional<StringRef> splits = stats.getString("splits_option"))
      command += " --splits=" + splits->str();
    return command;
  }
  std::string command = "ksc-synth";
  auto integer = [&](StringRef key) {
    return stats.getInteger(key).value_or(0);
  };
  command +=
      formatv(" --count={0} --seed={1}", integer("count"), integer("seed"))
          .str();
  auto list = [&](StringRef key) {
    std::string text;
    if (const json::Array *items = stats.getArray(key))
      for (const json::Value &item : *items)
        text +=
            (text.empty() ? "" : ",") + item.getAsString().value_or("").str();
    return text;
  };
  command += " --categories=" + list("categories");
  command += " --forms=" + list("forms");
  command += formatv(" --max-depth={0} --max-statements={1}",
                     integer("max_depth"), integer("max_statements"))
                 .str();
  if (integer("min_statements"))
    command +=
        formatv(" --min-statements={0}", integer("min_statements")).str();
  if (stats.getBoolean("near_duplicates").value_or(false))
    command += " --near-duplicates";
  if (std::optional<StringRef> splits = stats.getString("splits_option"))
    command += " --splits=" + splits->str();
  return command + " -o " + dataName.str();
}

void writeFrontMatter(raw_ostream &os, const json::Object &stats,
                      StringRef dataName, const CardOptions &options) {
  os << "---\nlicense: " << options.license << "\n"
     << "pretty_name: ksc-synth kernels paired with what ksc makes of them\n"
     << "tags:\n- code\n- compilers\n- automatic-differentiation\n"
     << "- cuda\n- mlir\nconfigs:\n- config_name: default\n  data_files:\n";
  const json::Object *splits = stats.getObject("splits");
  if (splits && !splits->empty()) {
    for (const std::string &name : sortedKeys(*splits))
      os << "  - split: " << name
         << "\n    path: " << sys::path::filename(splitPath(dataName, name))
         << "\n";
  } else {
    os << "  - split: train\n    path: " << dataName << "\n";
  }
  os << "---\n\n";
}

/// The group `group` of the statistics' coverage of all records
/// ("uses", "patterns": key -> records), or null.
const json::Object *coverageOfAll(const json::Object &stats, StringRef group) {
  const json::Object *coverage = stats.getObject("coverage");
  const json::Object *all = coverage ? coverage->getObject("all") : nullptr;
  return all ? all->getObject(group) : nullptr;
}

/// A table of `counts` (key -> records) under `heading` (its lines up to
/// the table's header row), most records first.
void writeCounts(raw_ostream &os, StringRef heading, StringRef column,
                 const json::Object &counts) {
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const std::string &name : sortedKeys(counts))
    ranked.push_back({countOf(counts, name), name});
  llvm::sort(ranked, [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  os << heading << "\n\n| " << column << " | Records |\n|---|---|\n";
  for (const auto &[count, name] : ranked)
    os << "| `" << name << "` | " << count << " |\n";
  os << "\n";
}

void writeCoverage(raw_ostream &os, const json::Object &stats) {
  if (const json::Object *uses = coverageOfAll(stats, "uses"))
    writeCounts(os,
                "## What the records use\n\nRecords using each construct or "
                "builtin (the `coverage` of the statistics, which also has it "
                "per category, the distributions of statements and nesting "
                "depth, and how many adjoints keep a tape):",
                "Construct or builtin", *uses);
  if (const json::Object *patterns = coverageOfAll(stats, "patterns"))
    writeCounts(os,
                "## What the realistic kernels are made of\n\nRecords of "
                "the `realistic` category with each pattern (a record's "
                "`patterns` lists its own, in order):",
                "Pattern", *patterns);
}

} // namespace

Expected<std::string> synth::makeCard(StringRef dataPath,
                                      const CardOptions &options) {
  std::string statsPath = defaultStatsPath(dataPath);
  ErrorOr<std::unique_ptr<MemoryBuffer>> statsText =
      MemoryBuffer::getFile(statsPath);
  if (!statsText)
    return createStringError("cannot read the statistics '" + statsPath +
                             "' (ksc-synth writes them next to -o FILE): " +
                             statsText.getError().message());
  Expected<json::Value> statsValue = json::parse((*statsText)->getBuffer());
  if (!statsValue)
    return createStringError(
        "'" + statsPath + "' is not JSON: " + toString(statsValue.takeError()));
  const json::Object *stats = statsValue->getAsObject();
  if (!stats || !stats->getInteger("records"))
    return createStringError("'" + statsPath +
                             "' is not the statistics of a ksc-synth run");
  Expected<Contents> contents = readContents(dataPath);
  if (!contents)
    return contents.takeError();
  std::string dataName = sys::path::filename(dataPath).str();

  std::string card;
  raw_string_ostream os(card);
  writeFrontMatter(os, *stats, dataName, options);
  os << "# " << dataName << "\n\n"
     << contents->records
     << " GPU-style kernels in ksc's kernel language (a checked subset of "
        "C++), each paired with what the ksc compiler makes of it: "
     << "its ks MLIR, CPU C++, CUDA C++ and PTX, and those of its "
        "derivative kernels (reverse and forward mode). Every form is byte "
        "for byte what the `ksc` command prints for the source; `ksc-synth "
        "validate` re-checks them.\n\n";
  os << "## Made with\n\n```sh\n"
     << commandOf(*stats, dataName) << "\n```\n\n"
     << "ksc " << stats->getString("ksc_version").value_or("?")
     << ". The same command and ksc version make the same bytes"
     << (isMergeOfParts(*stats)
             ? " (the shards' settings are in their .stats.json)"
             : "")
     << ".\n\n";
  os << "## Loading\n\n```python\nfrom datasets import load_dataset\n"
     << "data = load_dataset(\"json\", data_files=\"" << dataName
     << "\")  # or the directory: load_dataset(\"DIR\")\n```\n\n";
  bool patterns = coverageOfAll(*stats, "patterns");
  os << "## Records\n\nOne JSON object a line: `id`, `category`, `seed` "
        "(`ksc-synth --replay=SEED` with the size options of the command "
        "above makes the record again), `kernel`, `file`, `ksc_version`, "
        "`source`, `arguments` (`name`, `type`), "
     << (patterns ? "`patterns` (what a `realistic` kernel is composed of), "
                  : "")
     << "and the forms:";
  for (const std::string &form : contents->forms)
    os << " `" << form << "`";
  os << ". docs/dataset.md of ksc describes each.\n\n";
  if (const json::Object *splits = stats->getObject("splits")) {
    os << "## Splits\n\nBy a hash of each record's normalized source "
          "(stable across runs and sizes; no two records that differ only "
          "in names straddle two splits):\n\n| Split | Records | File |\n"
          "|---|---|---|\n";
    for (const std::string &name : sortedKeys(*splits))
      os << "| " << name << " | " << countOf(*splits, name) << " | "
         << sys::path::filename(splitPath(dataName, name)) << " |\n";
    os << "\n";
  }
  os << "## Categories\n\n| Category | Records |\n|---|---|\n";
  if (const json::Object *perCategory =
          stats->getObject("records_per_category"))
    for (const std::string &name : sortedKeys(*perCategory))
      os << "| `" << name << "` | " << countOf(*perCategory, name) << " |\n";
  os << "\nThe shortest kernel of each:\n\n";
  for (const auto &[category, source] : contents->shortest)
    os << "### `" << category << "`\n\n```cpp\n"
       << StringRef(source).rtrim() << "\n```\n\n";
  writeCoverage(os, *stats);
  os << "## License\n\n"
     << (options.license == "other"
             ? std::string("Not stated: the maker of this dataset chose no "
                           "license (ksc-synth card --license=SPDX-ID).")
             : "The dataset is released under " + options.license + ".")
     << "\n";
  return card;
}
