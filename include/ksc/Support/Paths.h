//===- Paths.h - Where ksc finds its files at run time ------*- C++ -*-===//
//
// Part of ksc. Every path is found relative to the running executable, so
// that the build tree (build/bin/ksc) and an installed tree (<prefix>/bin/ksc)
// behave the same: <prefix>/include holds the kernel-language prelude,
// <prefix>/lib/clang/<major> Clang's builtin headers, and
// <prefix>/lib/ksc/runtime the runtime header of emitted C++.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_PATHS_H
#define KSC_SUPPORT_PATHS_H

#include <string>

namespace ksc {

/// The directory above the one holding the running executable.
std::string getInstallPrefix();

/// The directory to pass to `-I` for `#include "ksc/dsl.h"`.
std::string getPreludeIncludeDir();

/// Clang's resource directory (holding include/stdint.h, ...): the copy next
/// to ksc, else the system Clang's.
std::string getClangResourceDir();

/// The directory holding ksc_runtime.h.
std::string getRuntimeDir();

/// The directory holding the Python helpers (the package `ksc`: ksc.torch,
/// ksc.jax; docs/python.md).
std::string getPythonDir();

/// The directory of ksc's other data files (`ksc-synth validate --warp`'s
/// warp_run.py): <prefix>/share/ksc.
std::string getDataDir();

} // namespace ksc

#endif // KSC_SUPPORT_PATHS_H
