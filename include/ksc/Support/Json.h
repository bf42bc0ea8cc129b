//===- Json.h - Reading JSON that people write --------------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_JSON_H
#define KSC_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>

namespace ksc {

/// Parses `text` as llvm::json::parse does, and also rejects what that
/// accepts silently: an object with the same key twice (json::parse keeps
/// the last), named by its JSON path and line (`duplicate key "y" at
/// $.inputs, line 3`).
llvm::Expected<llvm::json::Value> parseJsonStrictly(llvm::StringRef text);

/// The integer `value` holds, as json::Value::getAsInteger gives it but
/// without its undefined behaviour: that converts a double of exactly 2^63
/// (`9223372036854775808.0`, its bound double(INT64_MAX) rounded up) to
/// int64_t, which is out of range. Inline, for the runner's core, which
/// links LLVM's Support library alone.
inline std::optional<int64_t> getAsInt64(const llvm::json::Value &value) {
  // Stored as an unsigned or non-negative integer: exact, range-checked.
  if (value.getAsUINT64())
    return value.getAsInteger();
  std::optional<double> number = value.getAsNumber();
  if (!number || !(*number >= -0x1p63 && *number < 0x1p63))
    return std::nullopt;
  return value.getAsInteger();
}

} // namespace ksc

#endif // KSC_SUPPORT_JSON_H
