//===- Output.h - Writing generated files -------------------*- C++ -*-===//
//
// Part of ksc. How the tools write the files a build depends on.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_OUTPUT_H
#define KSC_SUPPORT_OUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace ksc {

/// Writes `contents` to `path` ("-" for standard output) the way a build
/// step should: through a temporary file renamed into place, so that a
/// failure never leaves a partial file; and not at all when `path` is a
/// regular file that already holds exactly `contents`, so that its
/// timestamp stays and build systems that check it (Ninja's `restat`,
/// which CMake sets on custom commands) skip what depends on it.
llvm::Error writeFileIfChanged(llvm::StringRef path, llvm::StringRef contents);

} // namespace ksc

#endif // KSC_SUPPORT_OUTPUT_H
