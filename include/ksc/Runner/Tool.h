//===- Tool.h - The ksc-run tool -------------------------------*- C++ -*-===//
//
// Part of ksc. ksc-run as a library (lib/Runner/Tool), as MLIR's
// MlirOptMain is mlir-opt: tools/ksc-run/ksc-run.cpp is a main that calls
// it.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_TOOL_H
#define KSC_RUNNER_TOOL_H

namespace ksc::runner {

/// Runs ksc-run on its command line (see README.md, docs/cuda.md): parses
/// and checks the options, compiles the kernel file, and runs, checks or
/// records the kernel. Returns the exit status. Call it from a thread with
/// a large stack (ksc::runWithLargeStack), after ksc::ToolInit.
int kscRunMain(int argc, char **argv);

} // namespace ksc::runner

#endif // KSC_RUNNER_TOOL_H
