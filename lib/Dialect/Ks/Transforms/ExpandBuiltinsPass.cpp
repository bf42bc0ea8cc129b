//===- ExpandBuiltinsPass.cpp - The ks-expand-builtins pass ---------------===//
//
// Part of ksc. See the description of `ks-expand-builtins` in
// include/ksc/Dialect/Ks/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ExpandBuiltins.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace ksc::ks {
#define GEN_PASS_DEF_KSEXPANDBUILTINS
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;

namespace {
struct KsExpandBuiltins
    : public ksc::ks::impl::KsExpandBuiltinsBase<KsExpandBuiltins> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    ksc::ks::populateExpandLinalgPatterns(patterns);
    ksc::ks::populateExpandRandomPatterns(patterns);
    // Every pattern replaces its operation by others it does not match:
    // one walk applies them all.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
