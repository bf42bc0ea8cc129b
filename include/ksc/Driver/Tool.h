//===- Tool.h - The ksc tool -----------------------------------*- C++ -*-===//
//
// Part of ksc. ksc as a library (lib/Driver/Tool), as MLIR's MlirOptMain is
// mlir-opt: tools/ksc/ksc.cpp is a main that calls it.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DRIVER_TOOL_H
#define KSC_DRIVER_TOOL_H

namespace ksc {

/// Runs ksc on its command line (see README.md): parses and checks the
/// options, compiles the input and writes what --emit asks for. Returns the
/// exit status. Call it from a thread with a large stack
/// (ksc::runWithLargeStack), after ksc::ToolInit.
int kscMain(int argc, char **argv);

} // namespace ksc

#endif // KSC_DRIVER_TOOL_H
