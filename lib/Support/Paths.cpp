//===- Paths.cpp - Where ksc finds its files at run time --------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Paths.h"
#include "ksc/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

std::string ksc::getInstallPrefix() {
  // On Linux this reads /proc/self/exe; the arguments are fallbacks.
  static int anchor;
  std::string exe = sys::fs::getMainExecutable(nullptr, &anchor);
  SmallString<256> prefix(exe);
  sys::path::remove_filename(prefix); // bin/
  sys::path::remove_filename(prefix); // <prefix>
  return std::string(prefix);
}

static std::string underPrefix(StringRef relative) {
  SmallString<256> path(ksc::getInstallPrefix());
  sys::path::append(path, relative);
  return std::string(path);
}

std::string ksc::getPreludeIncludeDir() { return underPrefix("include"); }

std::string ksc::getClangResourceDir() {
  std::string local = underPrefix(KSC_CLANG_RESOURCE_SUBDIR);
  SmallString<256> probe(local);
  sys::path::append(probe, "include", "stdint.h");
  if (sys::fs::exists(probe))
    return local;
  return KSC_SYSTEM_CLANG_RESOURCE_DIR;
}

std::string ksc::getRuntimeDir() { return underPrefix(KSC_RUNTIME_SUBDIR); }

std::string ksc::getPythonDir() { return underPrefix(KSC_PYTHON_SUBDIR); }

std::string ksc::getDataDir() { return underPrefix("share/ksc"); }
