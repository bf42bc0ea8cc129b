//===- ChecksToLLVM.cpp - Bounds checks as printf and trap ----------------===//
//
// Part of ksc. The patterns of convert-ks-to-llvm for `ks.check_bounds` and
// `ks.check_index`: a failed check prints the runtime's message for the GPU
// (runtime/ksc_runtime.h: one printf, so that the messages of threads that
// fail together do not interleave) and traps, which ends the launch with
// an error.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
/// `text` as printf prints it.
std::string escapeForPrintf(StringRef text) {
  std::string result;
  for (char c : text) {
    result += c;
    if (c == '%')
      result += '%';
  }
  return result;
}

/// "%lld, %lld, ..." for `count` values.
std::string integerList(size_t count) {
  std::string result;
  for (size_t i = 0; i < count; ++i)
    result += i ? ", %lld" : "%lld";
  return result;
}

struct CheckBoundsLowering : public ConvertOpToLLVMPattern<ks::CheckBoundsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ks::CheckBoundsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value array = adaptor.getArray();
    SmallVector<Value> indices, shape;
    Value outside;
    for (auto [dim, index] : llvm::enumerate(adaptor.getIndices())) {
      index = signExtendIndex(rewriter, loc, index);
      indices.push_back(index);
      Value extent = LLVM::ExtractValueOp::create(
          rewriter, loc, array, ArrayRef<int64_t>{1, int64_t(dim)});
      // Unsigned: a negative index is a huge one.
      Value bad = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::uge,
                                       index, extent);
      outside = outside ? Value(LLVM::OrOp::create(rewriter, loc, outside, bad))
                        : bad;
    }
    unsigned rank = op.getArray().getType().getRank();
    for (unsigned dim = 0; dim < rank; ++dim)
      shape.push_back(LLVM::ExtractValueOp::create(
          rewriter, loc, array, ArrayRef<int64_t>{1, int64_t(dim)}));
    bool tuple = indices.size() > 1;
    std::string format = "ksc: " + escapeForPrintf(op.getWhere()) + ": index " +
                         (tuple ? "(" : "") + integerList(indices.size()) +
                         (tuple ? ")" : "") + " is out of bounds for array '" +
                         escapeForPrintf(op.getName()) + "' of shape [" +
                         integerList(rank) + "]\n";
    SmallVector<Value> args(indices);
    llvm::append_range(args, shape);
    failLaunchIf(rewriter, loc, outside, format, args);
    rewriter.eraseOp(op);
    return success();
  }
};

struct CheckIndexLowering : public ConvertOpToLLVMPattern<ks::CheckIndexOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ks::CheckIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Value index = adaptor.getIndex();
    index = signExtendIndex(rewriter, loc, index);
    // Unsigned: a negative index is a huge one.
    Value extent =
        LLVM::ConstantOp::create(rewriter, loc, i64, int64_t(op.getExtent()));
    Value outside = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::uge, index, extent);
    std::string format = "ksc: " + escapeForPrintf(op.getWhere()) +
                         ": component index %lld is out of range for '" +
                         escapeForPrintf(op.getType()) + "' (valid: 0 to " +
                         std::to_string(op.getExtent() - 1) + ")\n";
    failLaunchIf(rewriter, loc, outside, format, {index});
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void ksc::conversion::populateChecksToLLVMPatterns(
    const KsLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CheckBoundsLowering, CheckIndexLowering>(converter);
}
