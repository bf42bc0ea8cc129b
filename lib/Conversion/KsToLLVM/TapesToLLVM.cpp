//===- TapesToLLVM.cpp - A GPU thread's tape in local memory --------------===//
//
// Part of ksc. The patterns of convert-ks-to-llvm for the tape of a GPU
// thread (made by convert-ks-to-cuda): `ks.tape_create` allocates, in the
// thread's local memory, a record of the tape's top (i64, offset 0), its
// capacity (i64, offset 8) and `capacity` bytes (from offset 16); a
// `!ks.tape` is a pointer to it. Every value takes its size rounded up to 8
// bytes (as the runtime's `ksc::device_tape`); a push that does not fit
// stops the launch.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
constexpr int64_t kCapacityOffset = 8;
constexpr int64_t kBytesOffset = 16;

/// The address `offset` bytes into the record at `tape`.
Value byteAddress(OpBuilder &b, Location loc, Value tape, Value offset) {
  return LLVM::GEPOp::create(b, loc, tape.getType(), b.getI8Type(), tape,
                             ValueRange{offset});
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), value);
}

/// The capacity the tape record at `tape` holds (ks.tape_create's).
Value loadCapacity(OpBuilder &b, Location loc, Value tape) {
  Value offset = i64Constant(b, loc, kCapacityOffset);
  return LLVM::LoadOp::create(b, loc, b.getI64Type(),
                              byteAddress(b, loc, tape, offset));
}

/// The bytes a value of memory type `type` takes on the tape.
int64_t slotSize(Operation *op, Type type) {
  int64_t size = DataLayout::closest(op).getTypeSize(type);
  return (size + 7) / 8 * 8;
}

struct TapeCreateLowering : KsPattern<ks::TapeCreateOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::TapeCreateOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t capacity = op.getCapacity();
    auto recordType =
        LLVM::LLVMArrayType::get(rewriter.getI8Type(), kBytesOffset + capacity);
    Value one = i64Constant(rewriter, loc, 1);
    Value tape = LLVM::AllocaOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
        recordType, one, /*alignment=*/16);
    Value zero = i64Constant(rewriter, loc, 0);
    LLVM::StoreOp::create(rewriter, loc, zero, tape);
    Value capacityValue = i64Constant(rewriter, loc, capacity);
    Value capacityOffset = i64Constant(rewriter, loc, kCapacityOffset);
    LLVM::StoreOp::create(rewriter, loc, capacityValue,
                          byteAddress(rewriter, loc, tape, capacityOffset));
    rewriter.replaceOp(op, tape);
    return success();
  }
};

struct TapePushLowering : KsPattern<ks::TapePushOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::TapePushOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getTape())
      return rewriter.notifyMatchFailure(op, "the CPU's thread tape");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Value tape = adaptor.getTape();
    Type valueType = op.getValue().getType();
    Value memory = ks.toMemory(rewriter, loc, adaptor.getValue(), valueType);
    int64_t slot = slotSize(op, memory.getType());

    Value top = LLVM::LoadOp::create(rewriter, loc, i64, tape);
    Value slotValue = i64Constant(rewriter, loc, slot);
    Value newTop = LLVM::AddOp::create(rewriter, loc, top, slotValue);
    Value capacity = loadCapacity(rewriter, loc, tape);
    Value full = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sgt,
                                      newTop, capacity);
    auto function = op->getParentOfType<FunctionOpInterface>();
    std::string format =
        "ksc: kernel '" + function.getName().str() +
        "': the thread's tape is full (%lld bytes); compile with a larger "
        "--tape-bytes\n";
    failLaunchIf(rewriter, loc, full, format, {capacity});

    Value bytesOffset = i64Constant(rewriter, loc, kBytesOffset);
    Value offset = LLVM::AddOp::create(rewriter, loc, top, bytesOffset);
    LLVM::StoreOp::create(rewriter, loc, memory,
                          byteAddress(rewriter, loc, tape, offset),
                          /*alignment=*/8);
    LLVM::StoreOp::create(rewriter, loc, newTop, tape);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TapeCapacityLowering : KsPattern<ks::TapeCapacityOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::TapeCapacityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getTape())
      return rewriter.notifyMatchFailure(op, "the CPU's thread tape");
    rewriter.replaceOp(op,
                       loadCapacity(rewriter, op.getLoc(), adaptor.getTape()));
    return success();
  }
};

struct TapePopLowering : KsPattern<ks::TapePopOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::TapePopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getTape())
      return rewriter.notifyMatchFailure(op, "the CPU's thread tape");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Value tape = adaptor.getTape();
    Type memoryType = ks.convertMemoryType(op.getType());
    int64_t slot = slotSize(op, memoryType);

    Value top = LLVM::LoadOp::create(rewriter, loc, i64, tape);
    Value slotValue = i64Constant(rewriter, loc, slot);
    Value newTop = LLVM::SubOp::create(rewriter, loc, top, slotValue);
    Value bytesOffset = i64Constant(rewriter, loc, kBytesOffset);
    Value offset = LLVM::AddOp::create(rewriter, loc, newTop, bytesOffset);
    Value memory = LLVM::LoadOp::create(
        rewriter, loc, memoryType, byteAddress(rewriter, loc, tape, offset), 8);
    LLVM::StoreOp::create(rewriter, loc, newTop, tape);
    rewriter.replaceOp(op, ks.fromMemory(rewriter, loc, memory, op.getType()));
    return success();
  }
};
} // namespace

void ksc::conversion::populateTapesToLLVMPatterns(
    const KsLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TapeCreateLowering, TapePushLowering, TapePopLowering,
               TapeCapacityLowering>(
      converter);
}
