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

/// The language's constructs a line uses, by the words that spell them.
struct Construct {
  const char *name;
  const char *spelling;
};
const Construct kConstructs[] = {
    {"if", "if ("},
    {"else", "} else"},
    {"?:", " ? "},
    {"for", "for ("},
    {"while", "while ("},
    {"do", "do {"},
    {"break", "break;"},
    {"continue", "continue;"},
    {"KSC_FUNC", "KSC_FUNC "},
    {"template", "template <"},
    {"double", "double"},
    {"bool", "bool "},
    {"array<T, 2>", ", 2>"},
    {"compound assignment", "= "},
    {"++/--", "++"},
    {"vectors", "vec"},
    {"matrices", "mat"},
    {"quaternions", "quat"},
};

bool isIdentChar(char c) { return isAlnum(c) || c == '_'; }

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

/// Whether `line` holds the construct: "compound assignment" is `x op= e`,
/// "++/--" an increment or decrement, the others their spelling.
bool uses(StringRef line, const Construct &construct) {
  StringRef name = construct.name;
  if (name == "compound assignment")
    return line.contains(" += ") || line.contains(" -= ") ||
           line.contains(" *= ") || line.contains(" /= ") ||
           line.contains(" %= ");
  if (name == "++/--")
    return line.contains("++") || line.contains("--");
  if (name == "vectors" || name == "matrices" || name == "quaternions") {
    // A type name: vec3, vec2d, mat33, quat, quatd.
    StringRef prefix = construct.spelling;
    for (size_t at = line.find(prefix); at != StringRef::npos;
         at = line.find(prefix, at + 1)) {
      size_t end = at + prefix.size();
      bool start = at == 0 || !isIdentChar(line[at - 1]);
      bool suffix = name == "quaternions"
                        ? end == line.size() || !isIdentChar(line[end]) ||
                              line[end] == 'd'
                        : end < line.size() && isDigit(line[end]);
      if (start && suffix)
        return true;
    }
    return false;
  }
  if (name == "double" || name == "bool") {
    size_t at = line.find(name);
    return at != StringRef::npos && (at == 0 || !isIdentChar(line[at - 1])) &&
           (at + name.size() == line.size() ||
            !isIdentChar(line[at + name.size()]));
  }
  return line.contains(construct.spelling);
}

} // namespace

void Coverage::add(const Record &record) {
  std::optional<StringRef> adjoint;
  for (Form form : {Form::CppAdj, Form::CudaAdj})
    if (!adjoint && record.formSet.contains(form))
      adjoint = StringRef(record.forms[form]);
  add(categoryName(record.category), record.kernel.source, adjoint);
}

void Coverage::add(StringRef category, StringRef source,
                   std::optional<StringRef> adjoint) {
  Groups &groups = counts[category.str()];
  std::set<std::string> used;
  std::set<std::string> called;
  SmallVector<StringRef> lines;
  source.split(lines, '\n');
  unsigned deepest = 0, loopDepth = 0;
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
      if (c == '}' && !open.empty()) {
        loopDepth -= open.back();
        open.pop_back();
      }
    bool isLoop = line.starts_with("for (") || line.starts_with("while (") ||
                  line == "do {";
    if (isLoop && loopDepth > 0)
      used.insert("nested loop");
    // Function bodies are at depth 1: control flow nests below.
    if (!open.empty())
      deepest = std::max(deepest, unsigned(open.size()) - 1);
    if (line.ends_with("{")) {
      open.push_back(isLoop);
      loopDepth += isLoop;
    }
  }
  for (const BuiltinInfo &builtin : getBuiltins())
    if (called.count(builtin.name.str()))
      used.insert(builtin.name.str());
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
