//===- InsertBoundsChecks.cpp - Guard array accesses ------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace ksc::ks {
#define GEN_PASS_DEF_KSINSERTBOUNDSCHECKS
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

namespace {
struct InsertBoundsChecks
    : public ks::impl::KsInsertBoundsChecksBase<InsertBoundsChecks> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    auto guard = [&](Operation *access, TypedValue<ArrayType> array,
                     ValueRange indices) {
      // Accesses that are already guarded (the pass ran before) keep their
      // single check.
      if (auto prev = dyn_cast_or_null<CheckBoundsOp>(access->getPrevNode()))
        if (prev.getArray() == array && prev.getIndices() == indices)
          return;
      StringRef name = getSourceName(array);
      builder.setInsertionPoint(access);
      CheckBoundsOp::create(builder, access->getLoc(), array, indices,
                            name.empty() ? "array" : name,
                            formatFileLoc(access->getLoc()));
    };
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op))
        guard(op, load.getArray(), load.getIndices());
      else if (auto store = dyn_cast<StoreOp>(op))
        guard(op, store.getArray(), store.getIndices());
      else if (auto atomic = dyn_cast<AtomicRMWOp>(op))
        guard(op, atomic.getArray(), atomic.getIndices());
    });
  }
};
} // namespace
