//===- Escape.cpp - User text in ksc's outputs ----------------------------===//
//
// Part of ksc. See Escape.h.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Escape.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

static bool isPrintableAscii(unsigned char c) { return c >= 0x20 && c < 0x7f; }

std::string ksc::escapeLineComment(StringRef text) {
  std::string result;
  for (unsigned char c : text) {
    if (c == '\\') {
      result += "\\\\";
    } else if (isPrintableAscii(c)) {
      result += char(c);
    } else {
      result += "\\x";
      result += hexdigit(c >> 4, /*LowerCase=*/true);
      result += hexdigit(c & 15, /*LowerCase=*/true);
    }
  }
  return result;
}

std::string ksc::cppStringLiteral(StringRef text) {
  std::string result = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += char(c);
    } else if (isPrintableAscii(c)) {
      result += char(c);
    } else {
      result += '\\';
      result += char('0' + (c >> 6));
      result += char('0' + ((c >> 3) & 7));
      result += char('0' + (c & 7));
    }
  }
  return result + "\"";
}

std::string ksc::quoteMakePath(StringRef path) {
  std::string quoted;
  for (size_t i = 0, e = path.size(); i != e; ++i) {
    char c = path[i];
    if (c == ' ' || c == '\t') {
      // The backslashes just before a blank are doubled.
      for (size_t j = i; j > 0 && path[j - 1] == '\\'; --j)
        quoted += '\\';
      quoted += '\\';
    } else if (c == '$') {
      quoted += '$';
    } else if (c == '#') {
      quoted += '\\';
    }
    quoted += c;
  }
  return quoted;
}

bool ksc::canWriteMakePath(StringRef path) {
  return path.find_first_of("\n\r") == StringRef::npos;
}

bool ksc::isPythonKeyword(StringRef name) {
  static const llvm::StringSet<> keywords = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async",
      "await",  "break",  "class",   "continue", "def",      "del",    "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",
      "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  return keywords.contains(name);
}
