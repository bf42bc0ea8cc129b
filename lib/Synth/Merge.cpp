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

bool synth::mergeDatasets(ArrayRef<std::string> paths, raw_ostream &out,
                          Stats &stats, std::string &error) {
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
  for (const Input &input : inputs) {
    Stats shard;
    std::string statsPath = defaultStatsPath(input.path);
    bool haveStats = false;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> text =
            MemoryBuffer::getFile(statsPath)) {
      Expected<json::Value> value = json::parse((*text)->getBuffer());
      if (value)
        haveStats = Stats::fromJSON(*value, shard);
      else
        consumeError(value.takeError());
    }
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
  return true;
}
