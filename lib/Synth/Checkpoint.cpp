//===- Checkpoint.cpp - Resumable ksc-synth runs ----------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Checkpoint.h"
#include "ksc/Support/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

static constexpr StringLiteral kFormat = "ksc-synth checkpoint 1";

std::string synth::checkpointPath(StringRef dataPath) {
  return (dataPath + ".checkpoint").str();
}

Checkpointer::Checkpointer(StreamedOutput &output, json::Object settings)
    : output(output), settings(std::move(settings)),
      path(checkpointPath(output.path())) {}

/// The checkpoint at `path`: nullopt when there is none.
static Expected<std::optional<json::Object>> readCheckpoint(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(path);
  if (!text) {
    if (text.getError() == std::errc::no_such_file_or_directory)
      return std::nullopt;
    return createStringError(text.getError(), "cannot read '" + path +
                                                  "': " +
                                                  text.getError().message());
  }
  Expected<json::Value> value = json::parse((*text)->getBuffer());
  const json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object || object->getString("format") != kFormat) {
    if (!value)
      consumeError(value.takeError());
    return createStringError("'" + path + "' is not a ksc-synth checkpoint");
  }
  return *object;
}

/// The first setting, in name order, in which `checkpoint` and `now`
/// differ, as "'NAME' is A in the checkpoint and B in this run"; empty when
/// they are equal.
static std::string firstDifference(const json::Object &checkpoint,
                                   const json::Object &now) {
  auto show = [](const json::Value *value) {
    return value ? formatv("{0}", *value).str() : std::string("(none)");
  };
  std::vector<std::string> keys;
  for (const auto &entry : checkpoint)
    keys.push_back(entry.first.str());
  for (const auto &entry : now)
    if (!checkpoint.get(entry.first))
      keys.push_back(entry.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys) {
    const json::Value *a = checkpoint.get(key), *b = now.get(key);
    if (!a || !b || *a != *b)
      return "'" + key + "' is " + show(a) + " in the checkpoint and " +
             show(b) + " in this run";
  }
  return "";
}

Error Checkpointer::start(bool resume, uint64_t begin, uint64_t end,
                          RunState &state, raw_ostream &notes) {
  state = RunState();
  state.nextId = begin;
  Expected<std::optional<json::Object>> checkpoint = readCheckpoint(path);
  if (!checkpoint && resume)
    return createStringError("cannot resume '" + output.path() + "': " +
                             toString(checkpoint.takeError()) +
                             "; run without --resume to start over");
  // An unreadable one is replaced below.
  bool leftCheckpoint = !checkpoint || checkpoint->has_value();
  if (!checkpoint)
    consumeError(checkpoint.takeError());
  Expected<uint64_t> leftBytes = output.flush();
  if (!leftBytes)
    return leftBytes.takeError();
  if (resume && leftCheckpoint) {
    if (Error error = resumeFrom(**checkpoint, begin, end, state))
      return error;
    notes << formatv("ksc-synth: resuming '{0}' at id {1} ({2} records "
                     "made, {3} ids to go)\n",
                     output.path(), state.nextId, state.stats.records,
                     end - state.nextId);
    return Error::success();
  }
  if (resume)
    notes << "ksc-synth: nothing to resume for '" << output.path()
          << "' (no " << path << "): starting from the first id\n";
  else if (leftCheckpoint || *leftBytes)
    notes << "ksc-synth: note: starting over: the interrupted run left in '"
          << output.partialPath() << "' is discarded (--resume continues it)\n";
  if (Error error = output.truncate(0))
    return error;
  if (std::error_code ec = sys::fs::remove(path))
    return createStringError(ec, "cannot remove '" + path +
                                     "': " + ec.message());
  return Error::success();
}

Error Checkpointer::resumeFrom(const json::Object &checkpoint, uint64_t begin,
                               uint64_t end, RunState &state) {
  std::string cannot = "cannot resume '" + output.path().str() + "': ";
  std::string startOver = "; run without --resume to start over";
  auto fail = [&](const Twine &why) {
    return createStringError(cannot + why + startOver);
  };
  const json::Object *saved = checkpoint.getObject("settings");
  if (!saved)
    return fail("'" + path + "' has no settings");
  std::string difference = firstDifference(*saved, settings);
  if (!difference.empty())
    return createStringError(cannot + "it was started with other settings: " + difference +
            " (resume with the interrupted run's options, or run without "
            "--resume to start over)");
  const json::Value *nextId = checkpoint.get("next_id");
  const json::Value *bytes = checkpoint.get("bytes");
  std::optional<int64_t> next = nextId ? getAsInt64(*nextId) : std::nullopt;
  std::optional<int64_t> size = bytes ? getAsInt64(*bytes) : std::nullopt;
  const json::Value *stats = checkpoint.get("stats");
  if (!next || !size || *next < int64_t(begin) || uint64_t(*next) > end ||
      *size < 0 || !stats || !Stats::fromJSON(*stats, state.stats))
    return fail("'" + path + "' is not a checkpoint of this run");
  uint64_t stop = *next, length = *size;

  Expected<std::unique_ptr<MemoryBuffer>> partial = output.readPartial();
  if (!partial)
    return partial.takeError();
  StringRef data = (*partial)->getBuffer();
  if (data.size() < length)
    return fail(formatv("'{0}' has {1} bytes, fewer than the {2} its "
                        "checkpoint says were written",
                        output.partialPath(), data.size(), length));
  data = data.take_front(length);
  if (!data.empty() && !data.ends_with("\n"))
    return fail("'" + output.partialPath() +
                "' does not end in a whole record where its checkpoint says");

  // The records' fingerprints, for the duplicates of the ids to come; and
  // a check that the partial file holds what the checkpoint counted.
  SourceNormalizer normalizer;
  if (!normalizer.valid())
    return fail("cannot read the kernel-language prelude");
  uint64_t records = 0;
  int64_t lastId = int64_t(begin) - 1;
  for (size_t line = 1; !data.empty(); ++line) {
    auto [text, rest] = data.split('\n');
    data = rest;
    Expected<json::Value> value = json::parse(text);
    const json::Object *record = value ? value->getAsObject() : nullptr;
    std::optional<int64_t> id;
    if (const json::Value *field = record ? record->get("id") : nullptr)
      id = getAsInt64(*field);
    std::optional<StringRef> source =
        record ? record->getString("source") : std::nullopt;
    if (!value)
      consumeError(value.takeError());
    std::optional<StringRef> structure =
        record ? record->getString("structure") : std::nullopt;
    if (structure)
      if (std::optional<XXH128_hash_t> fingerprint =
              parseFingerprintHex(*structure))
        state.structures.insert(*fingerprint);
    if (!id || !source || *id <= lastId || uint64_t(*id) >= stop ||
        !state.seen.insert(normalizer.fingerprint(*source)).second)
      return fail(formatv("line {0} of '{1}' is not the record its "
                          "checkpoint follows",
                          line, output.partialPath()));
    lastId = *id;
    ++records;
  }
  if (records != state.stats.records)
    return fail(formatv("'{0}' holds {1} records, its checkpoint counted {2}",
                        output.partialPath(), records, state.stats.records));
  if (Error error = output.truncate(length))
    return error;
  state.nextId = stop;
  return Error::success();
}

Error Checkpointer::write(const RunState &state) {
  Expected<uint64_t> bytes = output.flush();
  if (!bytes)
    return bytes.takeError();
  json::Object checkpoint{{"format", kFormat},
                          {"settings", json::Object(settings)},
                          {"next_id", int64_t(state.nextId)},
                          {"bytes", int64_t(*bytes)},
                          {"stats", state.stats.toJSON({})}};
  return writeFileIfChanged(
      path, formatv("{0:2}\n", json::Value(std::move(checkpoint))).str());
}

Error Checkpointer::finish() {
  if (std::error_code ec = sys::fs::remove(path))
    return createStringError(ec, "cannot remove '" + path +
                                     "': " + ec.message());
  return Error::success();
}
