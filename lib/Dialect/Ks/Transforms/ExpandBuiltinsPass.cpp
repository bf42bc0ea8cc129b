//===- ExpandBuiltinsPass.cpp - The ks-expand-builtins pass ---------------===//
//
// Part of ksc. See the description of `ks-expand-builtins` in
// include/ksc/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ExpandBuiltins.h"

#include "ksc/Conversion/Passes.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace ksc {
#define GEN_PASS_DEF_KSEXPANDBUILTINS
#include "ksc/Conversion/Passes.h.inc"
} // namespace ksc

using namespace mlir;

namespace {
struct KsExpandBuiltins
    : public ksc::impl::KsExpandBuiltinsBase<KsExpandBuiltins> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    ksc::conversion::populateExpandLinalgPatterns(patterns);
    ksc::conversion::populateExpandRandomPatterns(patterns);
    // Every pattern replaces its operation by others it does not match:
    // one walk applies them all.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
