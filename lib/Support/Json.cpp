//===- Json.cpp - Reading JSON that people write ----------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Json.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace {
/// An object or a list being scanned: the keys seen so far and the member
/// being read (object), or the index of the element being read (list).
struct Container {
  bool object;
  StringSet<> keys;
  std::string key;
  size_t index = 0;
  bool expectKey = true;
};
} // namespace

/// `$` followed by the members and elements of `stack` down to the value
/// being read, as in `$.x.data[3]`.
static std::string pathOf(ArrayRef<Container> stack) {
  std::string path = "$";
  for (const Container &c : stack)
    path += c.object ? "." + c.key : "[" + std::to_string(c.index) + "]";
  return path;
}

/// The first duplicate key in `text`, which json::parse accepted.
static Error findDuplicateKey(StringRef text) {
  SmallVector<Container, 8> stack;
  unsigned line = 1;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      size_t end = i + 1;
      while (end < e && text[end] != '"')
        end += text[end] == '\\' ? 2 : 1;
      if (!stack.empty() && stack.back().object && stack.back().expectKey) {
        // The key as JSON spells it (escapes decoded), from the parser.
        Expected<json::Value> key = json::parse(text.slice(i, end + 1));
        if (!key)
          return key.takeError();
        std::string name = key->getAsString()->str();
        Container &object = stack.back();
        if (!object.keys.insert(name).second) {
          std::string where = pathOf(ArrayRef(stack).drop_back());
          return createStringError(
              inconvertibleErrorCode(),
              formatv("duplicate key \"{0}\" in the object at {1}, line {2}",
                      name, where, line));
        }
        object.key = std::move(name);
        object.expectKey = false;
      }
      i = end;
    } else if (c == '{' || c == '[') {
      stack.emplace_back();
      stack.back().object = c == '{';
    } else if (c == '}' || c == ']') {
      stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      if (stack.back().object)
        stack.back().expectKey = true;
      else
        ++stack.back().index;
    }
  }
  return Error::success();
}

Expected<json::Value> ksc::parseJsonStrictly(StringRef text) {
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return value.takeError();
  if (Error error = findDuplicateKey(text))
    return std::move(error);
  return value;
}
