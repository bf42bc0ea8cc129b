//===- KsDialect.cpp - The ks dialect ---------------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

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

namespace {
/// `arith.addf %x, 0.0 fastmath<nsz>` is `%x`: the sum differs from `%x`
/// only when `%x` is -0.0, and `nsz` says the sign of a zero does not
/// matter. (`arith` folds only `%x + -0.0`.) The adjoint code of
/// `ks-reverse-ad` accumulates with `nsz` additions, and its accumulators
/// often start at zero: `adj_y[i] = 0; adj_y[i] += v` becomes
/// `adj_y[i] = v` after store-to-load forwarding.
struct AddZeroNoSignedZeros : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    if (!bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::nsz))
      return failure();
    for (auto [zero, other] : {std::pair(op.getLhs(), op.getRhs()),
                               std::pair(op.getRhs(), op.getLhs())}) {
      if (matchPattern(zero, m_AnyZeroFloat())) {
        rewriter.replaceOp(op, other);
        return success();
      }
    }
    return failure();
  }
};
} // namespace

void KsDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  results.add<AddZeroNoSignedZeros>(getContext());
  populateDeadLoopValuePatterns(results);
}
