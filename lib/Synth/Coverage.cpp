//===- Coverage.cpp - What the records of a dataset use -------------------===//
//
// Part of ksc. See Coverage.h. The source is read as ksc-synth writes it:
// one statement a line, two spaces of indentation per block.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Coverage.h"
#include "ksc/Frontend/Builtins.h"
#include "ksc/Synth/Dataset.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <set>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

namespace {

bool isIdentChar(char c) { return isAlnum(c) || c == '_'; }

/// How a construct is spelled: any of its spellings in the line, one as a
/// whole word, or one as the start of a type name followed by a digit
/// (`vec3`, `mat22d`).
enum class Match { Contains, Word, TypePrefix };

/// The language's constructs a line uses.
struct Construct {
  const char *name;
  Match match;
  /// Up to five; the unused ones empty.
  StringRef spellings[5];
};
const Construct kConstructs[] = {
    {"if", Match::Contains, {"if ("}},
    {"else", Match::Contains, {"} else"}},
    {"?:", Match::Contains, {" ? "}},
    {"for", Match::Contains, {"for ("}},
    {"while", Match::Contains, {"while ("}},
    {"do", Match::Contains, {"do {"}},
    {"break", Match::Contains, {"break;"}},
    {"continue", Match::Contains, {"continue;"}},
    {"KSC_FUNC", Match::Contains, {"KSC_FUNC "}},
    {"template", Match::Contains, {"template <"}},
    {"array<T, 2>", Match::Contains, {", 2>"}},
    {"compound assignment",
     Match::Contains,
     {" += ", " -= ", " *= ", " /= ", " %= "}},
    {"++/--", Match::Contains, {"++", "--"}},
    {"double", Match::Word, {"double"}},
    {"bool", Match::Word, {"bool"}},
    {"quaternions", Match::Word, {"quat", "quatd"}},
    {"vectors", Match::TypePrefix, {"vec"}},
    {"matrices", Match::TypePrefix, {"mat"}},
};

/// Whether `line` spells `word` at `at` as described by `match`.
bool matchesAt(StringRef line, size_t at, StringRef word, Match match) {
  size_t end = at + word.size();
  if (match == Match::Contains)
    return true;
  if (at > 0 && isIdentChar(line[at - 1]))
    return false;
  if (match == Match::Word)
    return end == line.size() || !isIdentChar(line[end]);
  return end < line.size() && isDigit(line[end]);
}

/// Whether `line` uses `construct`.
bool uses(StringRef line, const Construct &construct) {
  for (StringRef word : construct.spellings)
    for (size_t at = word.empty() ? StringRef::npos : line.find(word);
         at != StringRef::npos; at = line.find(word, at + 1))
      if (matchesAt(line, at, word, construct.match))
        return true;
  return false;
}

/// The names called in `line` (an identifier followed by `(` or `<`).
void calledNames(StringRef line, std::set<std::string> &names) {
  for (size_t k = 0; k < line.size();) {
    if (!isAlpha(line[k]) && line[k] != '_') {
      ++k;
      continue;
    }
    size_t end = k;
    while (end < line.size() && isIdentChar(line[end]))
      ++end;
    bool called = end < line.size() && (line[end] == '(' || line[end] == '<');
    if (called && (k == 0 || line[k - 1] != '.'))
      names.insert(line.slice(k, end).str());
    k = end;
  }
}

} // namespace

void Coverage::add(const Record &record) {
  std::optional<StringRef> adjoint;
  for (Form form : {Form::CppAdj, Form::CudaAdj})
    if (!adjoint && record.formSet.contains(form))
      adjoint = StringRef(record.forms[form]);
  add(categoryName(record.category), record.kernel.source, adjoint,
      record.kernel.patterns);
}

void Coverage::add(StringRef category, StringRef source,
                   std::optional<StringRef> adjoint,
                   ArrayRef<std::string> patterns) {
  Groups &groups = counts[category.str()];
  // Records with each pattern (once per record, as for "uses").
  for (const std::string &pattern :
       std::set<std::string>(patterns.begin(), patterns.end()))
    ++groups["patterns"][pattern];
  std::set<std::string> used;
  std::set<std::string> called;
  SmallVector<StringRef> lines;
  source.split(lines, '\n');
  unsigned deepest = 0;
  // Per open brace: whether it opened a loop's body.
  SmallVector<bool> open;
  bool inStruct = false;
  for (StringRef raw : lines) {
    StringRef line = raw.trim();
    if (line.empty())
      continue;
    if (line.starts_with("struct ")) {
      used.insert("struct");
      inStruct = true;
    }
    for (const Construct &construct : kConstructs)
      if (uses(line, construct))
        used.insert(construct.name);
    // A struct's fields are no statements, its braces no blocks.
    if (inStruct) {
      inStruct = line != "};";
      continue;
    }
    calledNames(line, called);
    for (char c : line)
      if (c == '}' && !open.empty())
        open.pop_back();
    bool isLoop = line.starts_with("for (") || line.starts_with("while (") ||
                  line == "do {";
    if (isLoop && llvm::is_contained(open, true))
      used.insert("nested loop");
    // Function bodies are at depth 1: control flow nests below.
    if (!open.empty())
      deepest = std::max(deepest, unsigned(open.size()) - 1);
    if (line.ends_with("{"))
      open.push_back(isLoop);
  }
  for (const std::string &name : called)
    if (lookupBuiltin(name))
      used.insert(name);
  for (const std::string &name : used)
    ++groups["uses"][name];
  ++groups["statements"][std::to_string(countStatements(source))];
  ++groups["nesting_depth"][std::to_string(deepest)];
  // Whether the adjoint keeps values on a tape (loops), and checkpoints
  // them (long loops).
  if (adjoint) {
    std::map<std::string, uint64_t> &adjoints = groups["adjoint"];
    ++adjoints["records"];
    if (adjoint->contains("tape.push("))
      ++adjoints["tape"];
    if (adjoint->contains("bool checkpoint = "))
      ++adjoints["checkpointed"];
  }
}

void Coverage::merge(const Coverage &other) {
  for (const auto &[category, groups] : other.counts)
    for (const auto &[group, keys] : groups)
      for (const auto &[key, count] : keys)
        counts[category][group][key] += count;
}

json::Object Coverage::toJSON() const {
  Groups all;
  for (const auto &[category, groups] : counts)
    for (const auto &[group, keys] : groups)
      for (const auto &[key, count] : keys)
        all[group][key] += count;
  auto toObject = [](const Groups &groups) {
    json::Object object;
    for (const auto &[group, keys] : groups) {
      json::Object counts;
      for (const auto &[key, count] : keys)
        counts[key] = int64_t(count);
      object[group] = std::move(counts);
    }
    return object;
  };
  json::Object result;
  result["all"] = toObject(all);
  for (const auto &[category, groups] : counts)
    result[category] = toObject(groups);
  return result;
}

bool Coverage::fromJSON(const json::Value &value, Coverage &coverage) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return false;
  for (const auto &[category, groups] : *object) {
    if (category == "all")
      continue;
    const json::Object *groupObject = groups.getAsObject();
    if (!groupObject)
      return false;
    for (const auto &[group, keys] : *groupObject) {
      const json::Object *keyObject = keys.getAsObject();
      if (!keyObject)
        return false;
      for (const auto &[key, count] : *keyObject) {
        std::optional<int64_t> n = count.getAsInteger();
        if (!n || *n < 0)
          return false;
        coverage.counts[category.str()][group.str()][key.str()] += *n;
      }
    }
  }
  return true;
}
