//===- Escape.h - User text in ksc's outputs --------------------*- C++ -*-===//
//
// Part of ksc. The one way each kind of output takes text the user chose (a
// file name, a path, a source string): no byte of it reaches an output
// except through one of these functions, so that it cannot become code, a
// second line or a Make recipe.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_ESCAPE_H
#define KSC_SUPPORT_ESCAPE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace ksc {

/// `text` for the inside of a line comment of C, C++, CUDA C++ (`//`) or
/// Python (`#`): printable ASCII as it is but for the backslash, which is
/// doubled, and every other byte (line breaks, other control characters,
/// the bytes of UTF-8 or of no encoding) as `\xNN`. The comment ends where
/// its line does, and no backslash can splice the next line into it.
std::string escapeLineComment(llvm::StringRef text);

/// `text` as a C or C++ string literal, quotes included: `"` and `\`
/// escaped, bytes outside printable ASCII as three-digit octal escapes
/// (which, unlike `\x`, end after three digits).
std::string cppStringLiteral(llvm::StringRef text);

/// `path` as a target or prerequisite of a Make rule, as Clang writes
/// them in a dependency file and Make and Ninja read them back: spaces and
/// tabs after a backslash (the backslashes just before them doubled), `#`
/// as `\#`, `$` as `$$`. A line break cannot be written in such a rule:
/// check with canWriteMakePath first.
std::string quoteMakePath(llvm::StringRef path);

/// Whether a Make rule can name `path` (no line feed or carriage return).
bool canWriteMakePath(llvm::StringRef path);

/// Whether `name` is one of Python's keywords (`lambda`, `None`, ...),
/// which cannot name a Python function, parameter or variable: generated
/// Python and Python modules spell such a name with a trailing `_`.
bool isPythonKeyword(llvm::StringRef name);

} // namespace ksc

#endif // KSC_SUPPORT_ESCAPE_H
