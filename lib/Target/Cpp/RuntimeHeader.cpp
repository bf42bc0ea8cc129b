//===- RuntimeHeader.cpp - The embedded CPU runtime header ------------===//
//
// Part of ksc. `--standalone` copies runtime/ksc_runtime.h into the output;
// the text is compiled into ksc so that it needs no file at run time.
//
//===----------------------------------------------------------------------===//

#include "ksc/Target/Cpp/CppEmitter.h"

#include "CpuRuntimeHeader.inc"

llvm::StringRef ksc::getCpuRuntimeHeader() {
  return llvm::StringRef(kCpuRuntimeHeader).rtrim('\n');
}
