//===- ksc-run.cpp - Run a kernel on JSON data ------------------------===//
//
// Part of ksc.
//
//   ksc-run FILE.kdsl --kernel=NAME --dim=N --inputs=IN.json [-o OUT.json]
//
// The tool is lib/Runner/Tool (include/ksc/Runner/Tool.h); see README.md
// for its options.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/Driver.h"
#include "ksc/Runner/Tool.h"
#include "ksc/Support/Signals.h"

int main(int argc, char **argv) {
  ksc::ToolInit init(argc, argv);
  return ksc::runWithLargeStack(
      [&] { return ksc::runner::kscRunMain(argc, argv); });
}
