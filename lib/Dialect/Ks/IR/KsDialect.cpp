//===- KsDialect.cpp - The ks dialect ---------------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

using namespace mlir;
using namespace ksc::ks;

#include "ksc/Dialect/Ks/IR/KsOpsDialect.cpp.inc"

void KsDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "ksc/Dialect/Ks/IR/KsOps.cpp.inc"
      >();
}
