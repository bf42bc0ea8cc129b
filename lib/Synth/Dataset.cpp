//===- Dataset.cpp - Records, seeds, normalization and statistics -----===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Dataset.h"
#include "ksc/Config.h"
#include "ksc/Support/Json.h"
#include "ksc/Support/Paths.h"
#include "ksc/Support/SplitMix64.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

static_assert(kNumCategories <= 16,
              "a record seed carries its category in its low four bits: a "
              "17th category needs another seed format");

uint64_t synth::recordSeed(uint64_t seed, uint64_t id, Category category) {
  uint64_t bits =
      SplitMix64::mix(SplitMix64::mix(seed) ^ id) >> 12; // 52 bits
  return (bits & ~uint64_t(0xf)) | uint64_t(category);
}

std::optional<Category> synth::categoryOfSeed(uint64_t recordSeed) {
  unsigned index = recordSeed & 0xf;
  if (index >= kNumCategories || recordSeed >> 52)
    return std::nullopt;
  return Category(index);
}

std::pair<uint64_t, uint64_t> synth::shardRange(uint64_t total,
                                                unsigned index,
                                                unsigned count) {
  // Balanced: the first `total % count` shards have one id more.
  uint64_t base = total / count, extra = total % count;
  uint64_t begin = index * base + std::min<uint64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kCppKeywords[] = {
    "alignas", "alignof", "auto", "bool", "break", "case", "char", "class",
    "const", "constexpr", "continue", "decltype", "default", "delete", "do",
    "double", "else", "enum", "extern", "false", "float", "for", "goto", "if",
    "inline", "int", "long", "namespace", "new", "nullptr", "operator",
    "private", "public", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this",
    "true", "typedef", "typename", "union", "unsigned", "using", "void",
    "volatile", "while", "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t"};

namespace {
/// A C-like token: an identifier, a number, or one punctuation character.
struct Token {
  StringRef text;
  bool identifier;
};
} // namespace

/// The tokens of `source`, comments and preprocessor lines dropped
/// (`#include "ksc/dsl.h"` is optional in kernel files).
static std::vector<Token> tokenize(StringRef source) {
  std::vector<Token> tokens;
  size_t i = 0, n = source.size();
  bool lineStart = true;
  while (i < n) {
    char c = source[i];
    if (c == '\n') {
      lineStart = true;
      ++i;
      continue;
    }
    if (isSpace(c)) {
      ++i;
      continue;
    }
    if (lineStart && c == '#') {
      i = source.find('\n', i);
      i = i == StringRef::npos ? n : i;
      continue;
    }
    lineStart = false;
    if (source.substr(i).starts_with("//")) {
      i = source.find('\n', i);
      i = i == StringRef::npos ? n : i;
      continue;
    }
    if (source.substr(i).starts_with("/*")) {
      size_t end = source.find("*/", i + 2);
      i = end == StringRef::npos ? n : end + 2;
      continue;
    }
    size_t start = i;
    if (isAlpha(c) || c == '_') {
      while (i < n && (isAlnum(source[i]) || source[i] == '_'))
        ++i;
      tokens.push_back({source.slice(start, i), true});
    } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(source[i + 1]))) {
      // A pp-number: digits, letters, '.', and a sign after an exponent.
      while (i < n &&
             (isAlnum(source[i]) || source[i] == '.' || source[i] == '_' ||
              ((source[i] == '+' || source[i] == '-') &&
               (source[i - 1] == 'e' || source[i - 1] == 'E' ||
                source[i - 1] == 'p' || source[i - 1] == 'P'))))
        ++i;
      tokens.push_back({source.slice(start, i), false});
    } else {
      ++i;
      tokens.push_back({source.slice(start, i), false});
    }
  }
  return tokens;
}

SourceNormalizer::SourceNormalizer() {
  SmallString<256> path(getPreludeIncludeDir());
  sys::path::append(path, "ksc", "dsl.h");
  ErrorOr<std::unique_ptr<MemoryBuffer>> prelude = MemoryBuffer::getFile(path);
  if (!prelude)
    return;
  for (StringRef keyword : kCppKeywords)
    vocabulary.insert(keyword);
  // The names the prelude declares: functions (and macro-declared
  // builtins), types and macros. Its parameter names are neither.
  std::vector<Token> tokens = tokenize((*prelude)->getBuffer());
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!tokens[i].identifier)
      continue;
    bool called = i + 1 < tokens.size() && tokens[i + 1].text == "(";
    bool declared = i > 0 && (tokens[i - 1].text == "struct" ||
                              tokens[i - 1].text == "class" ||
                              tokens[i - 1].text == "using");
    bool macroArgument = i > 1 && tokens[i - 1].text == "(" &&
                         tokens[i - 2].text.starts_with("KSC_");
    if (called || declared || macroArgument ||
        tokens[i].text.starts_with("KSC_"))
      vocabulary.insert(tokens[i].text);
  }
  // Macros come from #define lines, which tokenize() skips.
  for (StringRef line : split((*prelude)->getBuffer(), '\n')) {
    line = line.trim();
    if (line.consume_front("#define"))
      vocabulary.insert(line.trim().take_while(
          [](char c) { return isAlnum(c) || c == '_'; }));
  }
}

std::string SourceNormalizer::normalize(StringRef source) const {
  std::vector<Token> tokens = tokenize(source);
  StringMap<unsigned> renamed;
  std::string result;
  raw_string_ostream os(result);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i)
      os << ' ';
    const Token &token = tokens[i];
    bool member = i > 0 && tokens[i - 1].text == ".";
    if (!token.identifier || member || vocabulary.contains(token.text)) {
      os << token.text;
      continue;
    }
    auto inserted = renamed.try_emplace(token.text, renamed.size());
    os << 'v' << inserted.first->second;
  }
  return result;
}

XXH128_hash_t SourceNormalizer::fingerprint(StringRef source) const {
  std::string normalized = normalize(source);
  return xxh3_128bits(arrayRefFromStringRef(normalized));
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

/// The end of the name that starts at `i` (after `%`, `@` or `^`).
static size_t nameEnd(StringRef text, size_t i) {
  while (i < text.size() &&
         (isAlnum(text[i]) || StringRef("_.$#-").contains(text[i])))
    ++i;
  return i;
}

std::string synth::normalizeStructure(StringRef ksMlir) {
  std::string out;
  out.reserve(ksMlir.size());
  SmallVector<StringRef> lines;
  ksMlir.split(lines, '\n');
  for (StringRef line : lines) {
    // The value of a constant: `%c3_i32 = arith.constant 3 : i32`.
    static constexpr StringLiteral kConstant = "arith.constant ";
    size_t constant = line.find(kConstant);
    std::string text = line.str();
    if (constant != StringRef::npos) {
      size_t begin = constant + kConstant.size();
      size_t end = line.find(" : ", begin);
      text = (line.take_front(begin) + "C" +
              (end == StringRef::npos ? StringRef() : line.drop_front(end)))
                 .str();
    }
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '%' || c == '@') {
        out += c;
        i = nameEnd(text, i + 1) - 1;
      } else if (c == '"') {
        size_t close = text.find('"', i + 1);
        while (close != std::string::npos && text[close - 1] == '\\')
          close = text.find('"', close + 1);
        out += "\"s\"";
        i = close == std::string::npos ? text.size() : close;
      } else {
        out += c;
      }
    }
    out += '\n';
  }
  return out;
}

XXH128_hash_t synth::structureFingerprint(StringRef ksMlir) {
  std::string normalized = normalizeStructure(ksMlir);
  return xxh3_128bits(arrayRefFromStringRef(normalized));
}

std::string synth::fingerprintHex(XXH128_hash_t fingerprint) {
  return formatv("{0:x-16}{1:x-16}", fingerprint.high64, fingerprint.low64)
      .str();
}

std::optional<XXH128_hash_t> synth::parseFingerprintHex(StringRef hex) {
  XXH128_hash_t fingerprint;
  if (hex.size() != 32 ||
      hex.take_front(16).getAsInteger(16, fingerprint.high64) ||
      hex.drop_front(16).getAsInteger(16, fingerprint.low64))
    return std::nullopt;
  return fingerprint;
}

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kRecordKeys[] = {
    "id", "category", "seed", "kernel", "arguments", "file", "ksc_version",
    "source"};

ArrayRef<StringLiteral> synth::recordKeys() { return kRecordKeys; }

std::string synth::recordFileName(const GeneratedKernel &kernel) {
  return kernel.kernelName + ".kdsl";
}

void synth::writeRecord(raw_ostream &os, const Record &record) {
  json::OStream out(os);
  out.object([&] {
    out.attribute("id", int64_t(record.id));
    out.attribute("category", categoryName(record.category));
    out.attribute("seed", int64_t(record.seed));
    out.attribute("kernel", record.kernel.kernelName);
    out.attributeArray("arguments", [&] {
      for (const KernelArgument &argument : record.kernel.arguments)
        out.object([&] {
          out.attribute("name", argument.name);
          out.attribute("type", argument.type);
        });
    });
    out.attribute("file", record.fileName);
    out.attribute("ksc_version", KSC_VERSION);
    out.attribute("source", record.kernel.source);
    if (!record.structure.empty())
      out.attribute("structure", record.structure);
    if (!record.kernel.patterns.empty())
      out.attributeArray("patterns", [&] {
        for (const std::string &pattern : record.kernel.patterns)
          out.value(pattern);
      });
    for (Form form : allForms())
      if (record.formSet.contains(form))
        out.attribute(formName(form), record.forms[form]);
  });
  os << '\n';
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

void Stats::addFailure(const Failure &failure) {
  ++failures;
  ++failuresByReason[failure.reason];
  if (failed.size() < kMaxListedFailures)
    failed.push_back(failure);
}

void Stats::merge(const Stats &other) {
  records += other.records;
  duplicates += other.duplicates;
  nearDuplicates += other.nearDuplicates;
  tooSmall += other.tooSmall;
  failures += other.failures;
  for (const auto &[name, count] : other.recordsPerCategory)
    recordsPerCategory[name] += count;
  for (const auto &[reason, count] : other.failuresByReason)
    failuresByReason[reason] += count;
  for (const Failure &failure : other.failed)
    if (failed.size() < kMaxListedFailures)
      failed.push_back(failure);
  wallSeconds = std::max(wallSeconds, other.wallSeconds);
  mergeStageSeconds(stageSeconds, other.stageSeconds);
  coverage.merge(other.coverage);
}

json::Object Stats::toJSON(json::Object extra) const {
  json::Object result = std::move(extra);
  result["records"] = int64_t(records);
  json::Object perCategory;
  for (const auto &[name, count] : recordsPerCategory)
    perCategory[name] = int64_t(count);
  result["records_per_category"] = std::move(perCategory);
  result["duplicates_dropped"] = int64_t(duplicates);
  result["near_duplicates_dropped"] = int64_t(nearDuplicates);
  result["too_small_dropped"] = int64_t(tooSmall);
  result["failures"] = int64_t(failures);
  json::Object byReason;
  for (const auto &[reason, count] : failuresByReason)
    byReason[reason] = int64_t(count);
  result["failures_by_reason"] = std::move(byReason);
  json::Array list;
  for (const Failure &failure : failed)
    list.push_back(json::Object{
        {"id", int64_t(failure.id)},
        {"seed", int64_t(failure.seed)},
        {"category", categoryName(failure.category)},
        {"reason", failure.reason},
        {"replay", "ksc-synth --replay=" + std::to_string(failure.seed)},
        {"message", failure.message}});
  result["failed"] = std::move(list);
  result["wall_seconds"] = wallSeconds;
  result["records_per_second"] =
      wallSeconds > 0 ? double(records) / wallSeconds : 0.0;
  json::Object byStage;
  for (const auto &[stage, seconds] : stageSeconds)
    byStage[stage] = seconds;
  result["seconds_by_stage"] = std::move(byStage);
  result["coverage"] = coverage.toJSON();
  return result;
}

/// The non-negative integer `value` holds, if it holds one.
static std::optional<uint64_t> getCount(const json::Value *value) {
  std::optional<int64_t> count = value ? getAsInt64(*value) : std::nullopt;
  if (!count || *count < 0)
    return std::nullopt;
  return uint64_t(*count);
}

bool Stats::fromJSON(const json::Value &value, Stats &stats) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return false;
  std::optional<uint64_t> records = getCount(object->get("records"));
  std::optional<uint64_t> duplicates =
      getCount(object->get("duplicates_dropped"));
  std::optional<uint64_t> failures = getCount(object->get("failures"));
  if (!records || !duplicates || !failures)
    return false;
  stats.records = *records;
  stats.duplicates = *duplicates;
  stats.tooSmall = getCount(object->get("too_small_dropped")).value_or(0);
  stats.nearDuplicates =
      getCount(object->get("near_duplicates_dropped")).value_or(0);
  stats.failures = *failures;
  if (const json::Object *perCategory =
          object->getObject("records_per_category"))
    for (const auto &[name, count] : *perCategory)
      stats.recordsPerCategory[name.str()] = getCount(&count).value_or(0);
  if (const json::Object *byReason = object->getObject("failures_by_reason"))
    for (const auto &[reason, count] : *byReason)
      stats.failuresByReason[reason.str()] = getCount(&count).value_or(0);
  if (const json::Array *list = object->getArray("failed"))
    for (const json::Value &entry : *list) {
      const json::Object *failure = entry.getAsObject();
      if (!failure || stats.failed.size() >= kMaxListedFailures)
        continue;
      Failure item;
      item.id = getCount(failure->get("id")).value_or(0);
      item.seed = getCount(failure->get("seed")).value_or(0);
      item.category =
          parseCategory(failure->getString("category").value_or(""))
              .value_or(Category::Arithmetic);
      item.reason = failure->getString("reason").value_or("").str();
      item.message = failure->getString("message").value_or("").str();
      stats.failed.push_back(std::move(item));
    }
  stats.wallSeconds = object->getNumber("wall_seconds").value_or(0);
  if (const json::Object *byStage = object->getObject("seconds_by_stage"))
    for (const auto &[stage, seconds] : *byStage)
      stats.stageSeconds[stage.str()] = seconds.getAsNumber().value_or(0);
  // Statistics of ksc-synth versions before coverage have none.
  if (const json::Value *coverage = object->get("coverage"))
    if (!Coverage::fromJSON(*coverage, stats.coverage))
      return false;
  return true;
}

Error synth::forEachRecord(StringRef path, StringRef data,
                           function_ref<Error(const RecordLine &)> fn) {
  size_t lineNumber = 0;
  while (!data.empty()) {
    auto [text, rest] = data.split('\n');
    data = rest;
    ++lineNumber;
    if (text.trim().empty())
      continue;
    Expected<json::Value> value = json::parse(text);
    const json::Object *object = value ? value->getAsObject() : nullptr;
    std::optional<StringRef> source =
        object ? object->getString("source") : std::nullopt;
    std::optional<StringRef> category =
        object ? object->getString("category") : std::nullopt;
    if (!source || !category) {
      if (!value)
        consumeError(value.takeError());
      return createStringError(
          path + ":" + Twine(lineNumber) +
          ": not a ksc-synth record (no \"source\" or \"category\")");
    }
    if (Error error = fn(RecordLine{text, *object, *source, *category}))
      return error;
  }
  return Error::success();
}

Error synth::forEachRecord(StringRef path,
                           function_ref<Error(const RecordLine &)> fn) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError("cannot read '" + path +
                             "': " + buffer.getError().message());
  return forEachRecord(path, (*buffer)->getBuffer(), fn);
}

std::string synth::companionPath(StringRef dataPath, StringRef suffix) {
  StringRef base = dataPath;
  base.consume_back(".jsonl");
  return (base + "." + suffix).str();
}

std::string synth::defaultStatsPath(StringRef dataPath) {
  return companionPath(dataPath, "stats.json");
}
