//===- Merge.cpp - Concatenate dataset shards -------------------------===//
//
// Part of ksc. Shards cover contiguous id ranges, so their records in id
// order are the records of one unsharded run, less the duplicates across
// shards, which merging drops: merging every shard of a run gives the bytes
// of the unsharded run.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Generate.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

namespace {
struct Input {
  std::string path;
  std::unique_ptr<MemoryBuffer> buffer;
  int64_t firstId = INT64_MAX;
};
} // namespace

/// The settings of the unsharded run whose shards have the statistics
/// `shards` (every shard "i/n" of one n, each once, with equal settings but
/// for their shard and ids), or none. The setting keys are runSettings'.
static std::optional<json::Object>
wholeRunSettings(ArrayRef<std::optional<json::Object>> shards) {
  if (shards.empty())
    return std::nullopt;
  json::Object keys = runSettings(GenerateOptions());
  auto settingsOf = [&](const json::Object &stats) {
    json::Object settings;
    for (const auto &[key, unused] : keys)
      if (const json::Value *value = stats.get(key))
        settings[key] = *value;
    return settings;
  };
  std::vector<bool> seen(shards.size());
  std::optional<json::Object> whole;
  for (const std::optional<json::Object> &stats : shards) {
    if (!stats || stats->size() == 0)
      return std::nullopt;
    json::Object settings = settingsOf(*stats);
    if (settings.size() != keys.size())
      return std::nullopt;
    auto [index, count] =
        settings.getString("shard").value_or("").split('/');
    unsigned i = 0, n = 0;
    if (index.getAsInteger(10, i) || count.getAsInteger(10, n) ||
        n != shards.size() || i >= n || seen[i])
      return std::nullopt;
    seen[i] = true;
    settings.erase("shard");
    settings.erase("ids");
    if (whole && settings != *whole)
      return std::nullopt;
    whole = std::move(settings);
  }
  std::optional<int64_t> total = whole->getInteger("count");
  (*whole)["shard"] = "0/1";
  (*whole)["ids"] = json::Array{int64_t(0), total.value_or(0)};
  return whole;
}

bool synth::mergeDatasets(ArrayRef<std::string> paths, raw_ostream &out,
                          Stats &stats, std::string &error,
                          std::optional<json::Object> &wholeRun) {
  wholeRun.reset();
  SourceNormalizer normalizer;
  if (!normalizer.valid()) {
    error = "cannot read the kernel-language prelude";
    return false;
  }
  std::vector<Input> inputs;
  for (const std::string &path : paths) {
    // Read whole but mapped: pages of lines already written can go.
    ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
        MemoryBuffer::getFile(path, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      error = "cannot read '" + path + "': " + buffer.getError().message();
      return false;
    }
    Input input{path, std::move(*buffer)};
    StringRef first = (*input.buffer).getBuffer().split('\n').first;
    if (!first.trim().empty()) {
      Expected<json::Value> record = json::parse(first);
      const json::Object *object = record ? record->getAsObject() : nullptr;
      std::optional<int64_t> id =
          object ? object->getInteger("id") : std::nullopt;
      if (!id) {
        if (!record)
          consumeError(record.takeError());
        error = path + ":1: not a ksc-synth record (no integer \"id\")";
        return false;
      }
      input.firstId = *id;
    }
    inputs.push_back(std::move(input));
  }
  llvm::stable_sort(inputs, [](const Input &a, const Input &b) {
    return a.firstId < b.firstId;
  });

  FingerprintSet seen, structures;
  std::vector<std::optional<json::Object>> shardStats;
  for (const Input &input : inputs) {
    Stats shard;
    std::string statsPath = defaultStatsPath(input.path);
    bool haveStats = false;
    std::optional<json::Object> statsObject;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> text =
            MemoryBuffer::getFile(statsPath)) {
      Expected<json::Value> value = json::parse((*text)->getBuffer());
      if (value) {
        haveStats = Stats::fromJSON(*value, shard);
        if (const json::Object *object = value->getAsObject())
          statsObject = *object;
      } else {
        consumeError(value.takeError());
      }
    }
    shardStats.push_back(haveStats ? std::move(statsObject) : std::nullopt);
    Stats counted;
    Error failed = forEachRecord(
        input.path, input.buffer->getBuffer(), [&](const RecordLine &record) {
          if (!seen.insert(normalizer.fingerprint(record.source)).second) {
            ++counted.duplicates;
            return Error::success();
          }
          // Records made with --near-duplicates carry their structure.
          std::optional<StringRef> hex = record.object.getString("structure");
          std::optional<XXH128_hash_t> structure =
              hex ? parseFingerprintHex(*hex) : std::nullopt;
          if (structure && !structures.insert(*structure).second) {
            ++counted.nearDuplicates;
            return Error::success();
          }
          out << record.text << '\n';
          ++counted.records;
          ++counted.recordsPerCategory[record.category.str()];
          std::optional<StringRef> adjoint = record.object.getString("cpp_adj");
          if (!adjoint)
            adjoint = record.object.getString("cuda_adj");
          std::vector<std::string> patterns;
          if (const json::Array *list = record.object.getArray("patterns"))
            for (const json::Value &pattern : *list)
              if (std::optional<StringRef> name = pattern.getAsString())
                patterns.push_back(name->str());
          counted.coverage.add(record.category, record.source, adjoint,
                               patterns);
          return Error::success();
        });
    if (failed) {
      error = toString(std::move(failed));
      return false;
    }
    if (haveStats) {
      // The shard's own duplicates and failures, and those across shards.
      shard.duplicates += counted.duplicates;
      shard.nearDuplicates += counted.nearDuplicates;
      shard.records = counted.records;
      shard.recordsPerCategory = counted.recordsPerCategory;
      shard.coverage = counted.coverage;
      stats.merge(shard);
    } else {
      stats.merge(counted);
    }
  }
  wholeRun = wholeRunSettings(shardStats);
  return true;
}
