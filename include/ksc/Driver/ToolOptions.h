//===- ToolOptions.h - Options ksc and ksc-run share ------------*- C++ -*-===//
//
// Part of ksc. The command-line options both tools take with the same
// meaning, defined and checked here once: -I and -D (how the kernel file
// is preprocessed), --precision (Driver.h, precisionOption) and the GPU
// architecture's check.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DRIVER_TOOLOPTIONS_H
#define KSC_DRIVER_TOOLOPTIONS_H

#include "ksc/Frontend/Frontend.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ksc {

/// -I DIR and -D NAME[=VALUE] in a tool's option category.
class SourceOptions {
public:
  explicit SourceOptions(llvm::cl::OptionCategory &category);

  /// The frontend options they give, or the error of an -I without a
  /// directory or a -D without a macro name.
  llvm::Expected<FrontendOptions> getFrontendOptions() const;

private:
  llvm::cl::list<std::string> includeDirs;
  llvm::cl::list<std::string> defines;
};

/// The name of the option that selects the GPU architecture in both tools.
inline constexpr llvm::StringLiteral kGpuArchOption = "gpu-arch";

/// An error unless `arch` is a GPU architecture LLVM's NVPTX backend knows
/// (sm_XX or sm_XXa).
llvm::Error checkGpuArch(llvm::StringRef arch);

} // namespace ksc

#endif // KSC_DRIVER_TOOLOPTIONS_H
