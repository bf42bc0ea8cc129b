//===- FailLaunch.cpp - Stopping a launch with a message ------------------===//
//
// Part of ksc. What ks-to-LLVM patterns do when a run-time check fails (a
// bounds check, a full tape): print the runtime's message and trap.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

void ksc::conversion::failLaunchIf(ConversionPatternRewriter &rewriter,
                                   Location loc, Value failed, StringRef format,
                                   ValueRange args) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *fail =
      rewriter.createBlock(after->getParent(), Region::iterator(after));
  gpu::PrintfOp::create(rewriter, loc, rewriter.getStringAttr(format), args);
  LLVM::Trap::create(rewriter, loc);
  LLVM::UnreachableOp::create(rewriter, loc);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, failed, fail, after);
  rewriter.setInsertionPointToStart(after);
}
