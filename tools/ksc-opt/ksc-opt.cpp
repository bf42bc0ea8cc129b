//===- ksc-opt.cpp - The ksc optimizer driver -------------------------===//
//
// Part of ksc. `mlir-opt` for ksc's dialects and passes: parses IR, runs a
// pass pipeline, prints IR. Used by the lit tests of the dialect and passes.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/Driver.h"
#include "ksc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ksc::registerAllDialects(registry);
  ksc::registerAllPasses();
  ksc::registerPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ksc optimizer driver\n", registry));
}
