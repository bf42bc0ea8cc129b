//===- Json.h - Reading JSON that people write --------------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_JSON_H
#define KSC_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace ksc {

/// Parses `text` as llvm::json::parse does, and also rejects what that
/// accepts silently: an object with the same key twice (json::parse keeps
/// the last), named by its JSON path and line (`duplicate key "y" at
/// $.inputs, line 3`).
llvm::Expected<llvm::json::Value> parseJsonStrictly(llvm::StringRef text);

} // namespace ksc

#endif // KSC_SUPPORT_JSON_H
