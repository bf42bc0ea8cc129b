//===- StructsToLLVM.cpp - Structs as LLVM structs ------------------------===//
//
// Part of ksc. The patterns of convert-ks-to-llvm for `ks.struct_make`,
// `ks.struct_extract` and `ks.struct_insert`. A struct value has its memory
// layout (KsLLVMTypeConverter): a vector or matrix field is converted
// between its LLVM value type and its memory type on the way in and out.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
struct StructMakeLowering : KsPattern<ks::StructMakeOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::StructMakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ks::StructType type = op.getType();
    Value result = LLVM::PoisonOp::create(rewriter, loc, ks.convertType(type));
    for (auto [index, field] : llvm::enumerate(adaptor.getFields())) {
      Value memory =
          ks.toMemory(rewriter, loc, field, type.getFieldValueType(index));
      result = LLVM::InsertValueOp::create(rewriter, loc, result, memory,
                                           int64_t(index));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StructExtractLowering : KsPattern<ks::StructExtractOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::StructExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t index = op.getIndex();
    Value memory =
        LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getInput(), index);
    rewriter.replaceOp(op, ks.fromMemory(rewriter, loc, memory, op.getType()));
    return success();
  }
};

struct StructInsertLowering : KsPattern<ks::StructInsertOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::StructInsertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value memory =
        ks.toMemory(rewriter, loc, adaptor.getValue(), op.getValue().getType());
    rewriter.replaceOpWithNewOp<LLVM::InsertValueOp>(
        op, adaptor.getInput(), memory, int64_t(op.getIndex()));
    return success();
  }
};
} // namespace

void ksc::conversion::populateStructsToLLVMPatterns(
    const KsLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<StructMakeLowering, StructExtractLowering, StructInsertLowering>(
      converter);
}
