//===- ToolOptions.cpp - Options ksc and ksc-run share ------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/ToolOptions.h"

#include "ksc/Target/PTX/PtxEmitter.h"

using namespace llvm;
using namespace ksc;

SourceOptions::SourceOptions(cl::OptionCategory &category)
    : includeDirs("I", cl::Prefix,
                  cl::desc("Add a directory to search for #include \"...\""),
                  cl::value_desc("dir"), cl::cat(category)),
      defines("D", cl::Prefix,
              cl::desc("Define a macro (NAME or NAME=VALUE)"),
              cl::value_desc("macro"), cl::cat(category)) {}

Expected<FrontendOptions> SourceOptions::getFrontendOptions() const {
  for (const std::string &dir : includeDirs)
    if (dir.empty())
      return createStringError("-I needs a directory");
  for (const std::string &define : defines)
    if (define.empty() || define[0] == '=')
      return createStringError("-D needs a macro name (NAME or NAME=VALUE)");
  FrontendOptions options;
  options.includeDirs.assign(includeDirs.begin(), includeDirs.end());
  options.defines.assign(defines.begin(), defines.end());
  return options;
}

Error ksc::checkGpuArch(StringRef arch) {
  if (isKnownCudaArch(arch))
    return Error::success();
  return createStringError(
      "unknown GPU architecture '" + arch + "' for --" + kGpuArchOption +
      " (expected sm_XX or sm_XXa, such as sm_80, sm_90 or sm_90a)");
}
