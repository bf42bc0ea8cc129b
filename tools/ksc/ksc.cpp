//===- ksc.cpp - The ksc compiler driver ------------------------------===//
//
// Part of ksc.
//
//   ksc FILE.kdsl [--target=cpu|cuda] [--emit=cpp|cuda|ptx|mlir] [-o OUT]
//
// The tool is lib/Driver/Tool (include/ksc/Driver/Tool.h); see README.md
// for its options.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/Driver.h"
#include "ksc/Driver/Tool.h"
#include "ksc/Support/Signals.h"

int main(int argc, char **argv) {
  ksc::ToolInit init(argc, argv);
  return ksc::runWithLargeStack([&] { return ksc::kscMain(argc, argv); });
}
