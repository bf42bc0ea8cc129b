//===- Executor.cpp - What runs kernels for ksc-run --------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Executor.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

Executor::~Executor() = default;
