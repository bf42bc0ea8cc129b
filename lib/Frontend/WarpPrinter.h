//===- WarpPrinter.h - Kernel files as NVIDIA Warp Python ---*- C++ -*-===//
//
// Part of ksc. Internal to lib/Frontend.
//
// printWarp writes the structs, device functions and kernels of a kernel
// file, which ModuleBuilder has accepted, as one NVIDIA Warp Python module:
// `@wp.struct` classes, `@wp.func` functions and `@wp.kernel` kernels with
// the source's names and statements, every implicit conversion of C++ made
// explicit (Warp converts nothing implicitly). docs/warp.md lists the
// mapping and what has no Warp counterpart.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_FRONTEND_WARPPRINTER_H
#define KSC_LIB_FRONTEND_WARPPRINTER_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace ksc::frontend {

class ModuleBuilder;

/// Prints the declarations of `file` (the main file when invalid) that
/// `builder` has built as a Warp module into `text`. A construct Warp has
/// no counterpart for makes it fail: `error` is then a clang-style located
/// message ("file:line:col: error: ...").
bool printWarp(ModuleBuilder &builder, clang::FileID file,
               llvm::StringRef fileName, std::string &text, std::string &error);

} // namespace ksc::frontend

#endif // KSC_LIB_FRONTEND_WARPPRINTER_H
