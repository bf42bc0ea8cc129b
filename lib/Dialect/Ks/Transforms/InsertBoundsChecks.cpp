//===- InsertBoundsChecks.cpp - Guard array accesses ------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace ksc::ks {
#define GEN_PASS_DEF_KSINSERTBOUNDSCHECKS
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

/// `type` as the kernel language spells it: vec3, vec2d, vec4i, mat33,
/// mat22d (a quaternion is a vec4 here).
static std::string spellVectorType(VectorType type) {
  Type element = type.getElementType();
  std::string suffix = element.isF64() ? "d" : element.isInteger(32) ? "i" : "";
  std::string n = std::to_string(type.getDimSize(0));
  if (type.getRank() == 2)
    return "mat" + n + n + suffix;
  return "vec" + n + suffix;
}

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
    // Component positions that are values (not constants) of extracts and
    // inserts, each checked against its dimension of the vector type.
    auto guardPositions = [&](Operation *access, VectorType type,
                              ArrayRef<OpFoldResult> positions) {
      for (auto [dim, position] : llvm::enumerate(positions)) {
        auto index = dyn_cast<Value>(position);
        if (!index)
          continue;
        if (auto prev = dyn_cast_or_null<CheckIndexOp>(access->getPrevNode());
            prev && prev.getIndex() == index)
          continue;
        builder.setInsertionPoint(access);
        CheckIndexOp::create(builder, access->getLoc(), index,
                             type.getDimSize(dim), spellVectorType(type),
                             formatFileLoc(access->getLoc()));
      }
    };
    getOperation().walk([&](Operation *op) {
      if (auto extract = dyn_cast<vector::ExtractOp>(op))
        guardPositions(op, extract.getSourceVectorType(),
                       extract.getMixedPosition());
      else if (auto insert = dyn_cast<vector::InsertOp>(op))
        guardPositions(op, insert.getDestVectorType(),
                       insert.getMixedPosition());
      else if (auto load = dyn_cast<LoadOp>(op))
        guard(op, load.getArray(), load.getIndices());
      else if (auto store = dyn_cast<StoreOp>(op))
        guard(op, store.getArray(), store.getIndices());
      else if (auto atomic = dyn_cast<AtomicRMWOp>(op))
        guard(op, atomic.getArray(), atomic.getIndices());
      else if (auto slice = dyn_cast<SliceOp>(op))
        guard(op, slice.getArray(), slice.getIndices());
    });
  }
};
} // namespace
