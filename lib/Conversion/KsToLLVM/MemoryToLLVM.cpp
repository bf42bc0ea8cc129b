//===- MemoryToLLVM.cpp - Arrays, atomics and grids as LLVM ---------------===//
//
// Part of ksc. The patterns of convert-ks-to-llvm for the operations on
// arrays (`ks.load`, `ks.store`, `ks.atomic_rmw`, `ks.slice`, `ks.dim`,
// `ks.as_const`) and grids (`ks.grid_size`, `ks.grid_extent`). An array is
// the struct {data, shape[N], strides[N]} of `ksc::array`. An atomic update
// is an `atomicrmw` (a compare-and-swap loop for a float min or max), with
// `exclusive` a plain load and store, with `aggregate` combined with the
// warp's other updates first (ReductionsToLLVM.cpp).
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
/// The fields of an array struct.
enum ArrayField : int64_t { kData = 0, kShape = 1, kStrides = 2 };

/// The element offset of `indices` (in the leading dimensions) of `array`:
/// the sum of index * stride, in i64.
Value elementOffset(OpBuilder &b, Location loc, Value array,
                    ValueRange indices) {
  Value offset;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    index = signExtendIndex(b, loc, index);
    Value stride = LLVM::ExtractValueOp::create(
        b, loc, array, ArrayRef<int64_t>{kStrides, int64_t(dim)});
    Value term = LLVM::MulOp::create(b, loc, index, stride);
    offset = offset ? Value(LLVM::AddOp::create(b, loc, offset, term)) : term;
  }
  return offset;
}

/// The address of the element (or first element of the slice) of `array`
/// (of type `type`) at `indices`.
Value elementAddress(OpBuilder &b, Location loc,
                     const KsLLVMTypeConverter &converter, ks::ArrayType type,
                     Value array, ValueRange indices) {
  Value data = LLVM::ExtractValueOp::create(b, loc, array, kData);
  Type elementType = converter.convertMemoryType(type.getElementType());
  return LLVM::GEPOp::create(b, loc, data.getType(), elementType, data,
                             ValueRange{elementOffset(b, loc, array, indices)});
}

struct LoadLowering : KsPattern<ks::LoadOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ks::ArrayType type = op.getArray().getType();
    Value address = elementAddress(rewriter, loc, ks, type, adaptor.getArray(),
                                   adaptor.getIndices());
    Value memory = LLVM::LoadOp::create(
        rewriter, loc, ks.convertMemoryType(type.getElementType()), address);
    rewriter.replaceOp(
        op, ks.fromMemory(rewriter, loc, memory, type.getValueType()));
    return success();
  }
};

struct StoreLowering : KsPattern<ks::StoreOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ks::ArrayType type = op.getArray().getType();
    Value address = elementAddress(rewriter, loc, ks, type, adaptor.getArray(),
                                   adaptor.getIndices());
    Value memory =
        ks.toMemory(rewriter, loc, adaptor.getValue(), type.getValueType());
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, memory, address);
    return success();
  }
};

struct AtomicRMWLowering : KsPattern<ks::AtomicRMWOp> {
  using KsPattern::KsPattern;

  LogicalResult
  matchAndRewrite(ks::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ks::ArrayType type = op.getArray().getType();
    Value address = elementAddress(rewriter, loc, ks, type, adaptor.getArray(),
                                   adaptor.getIndices());
    // A field of a struct element.
    if (std::optional<ArrayRef<int64_t>> fields = op.getFields()) {
      SmallVector<LLVM::GEPArg> gepIndices{0};
      for (int64_t field : *fields)
        gepIndices.push_back(int32_t(field));
      address = LLVM::GEPOp::create(
          rewriter, loc, address.getType(),
          ks.convertMemoryType(type.getElementType()), address, gepIndices);
    }
    Type element = op.getTargetType();
    if (op.getAggregate()) {
      // The old value of an aggregated update is unspecified.
      aggregateUpdate(rewriter, loc, ks, op.getKind(), element, address,
                      adaptor.getValue());
      rewriter.replaceOpWithNewOp<LLVM::PoisonOp>(
          op, ks.convertType(op.getType()));
      return success();
    }
    rewriter.replaceOp(op, updateElement(rewriter, loc, ks, op.getKind(),
                                         element, address, adaptor.getValue(),
                                         op.getExclusive()));
    return success();
  }
};

/// Whether `value` replaces the float `old` in a min or max as
/// ks.atomic_rmw defines it: value < old (> for max), or old is NaN and
/// value is not.
Value floatReplaces(OpBuilder &b, Location loc, ks::AtomicKind kind,
                    Value old, Value value) {
  auto better = kind == ks::AtomicKind::min ? LLVM::FCmpPredicate::olt
                                            : LLVM::FCmpPredicate::ogt;
  Value isBetter = LLVM::FCmpOp::create(b, loc, better, value, old);
  Value oldIsNaN =
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, old, old);
  Value valueIsNumber =
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::ord, value, value);
  Value replacesNaN = LLVM::AndOp::create(b, loc, oldIsNaN, valueIsNumber);
  return LLVM::OrOp::create(b, loc, isBetter, replacesNaN);
}

/// An atomic add, sub, exchange, or integer min or max of `value` into the
/// scalar at `address`, of ks type `element`; returns the old value.
Value scalarUpdate(OpBuilder &b, Location loc, ks::AtomicKind kind,
                   Type element, Value address, Value value) {
  using LLVM::AtomicBinOp;
  AtomicBinOp op = AtomicBinOp::fadd;
  if (kind == ks::AtomicKind::exchange) {
    op = AtomicBinOp::xchg;
  } else if (isa<FloatType>(element)) {
    // old - value is old + -value, exactly.
    if (kind == ks::AtomicKind::sub)
      value = LLVM::FNegOp::create(b, loc, value);
  } else {
    bool isUnsigned = element.isUnsignedInteger();
    switch (kind) {
    case ks::AtomicKind::add:
      op = AtomicBinOp::add;
      break;
    case ks::AtomicKind::sub:
      op = AtomicBinOp::sub;
      break;
    case ks::AtomicKind::min:
      op = isUnsigned ? AtomicBinOp::umin : AtomicBinOp::min;
      break;
    case ks::AtomicKind::max:
      op = isUnsigned ? AtomicBinOp::umax : AtomicBinOp::max;
      break;
    case ks::AtomicKind::exchange:
      llvm_unreachable("exchanges are handled above");
    }
  }
  return LLVM::AtomicRMWOp::create(b, loc, op, address, value,
                                   LLVM::AtomicOrdering::monotonic);
}

/// A float min or max as ks.atomic_rmw defines it (a NaN value leaves the
/// element alone, a NaN element is replaced, -0 and 0 stay): a
/// compare-and-swap loop on the bits, which replaces the element only
/// while the value should replace what it holds.
Value floatMinMax(ConversionPatternRewriter &rewriter, Location loc,
                  ks::AtomicKind kind, Value address, Value value) {
  Type floatType = value.getType();
  Type bitsType = rewriter.getIntegerType(floatType.getIntOrFloatBitWidth());
  unsigned alignment = floatType.getIntOrFloatBitWidth() / 8;
  Block *before = rewriter.getInsertionBlock();
  Block *done = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  BlockArgument result = done->addArgument(floatType, loc);
  Region *region = before->getParent();
  Block *loop = rewriter.createBlock(region, Region::iterator(done),
                                     {floatType}, {loc});
  Block *exchange = rewriter.createBlock(region, Region::iterator(done));

  rewriter.setInsertionPointToEnd(before);
  Value initial = LLVM::LoadOp::create(
      rewriter, loc, floatType, address, alignment, /*isVolatile=*/false,
      /*isNonTemporal=*/false, /*isInvariant=*/false,
      /*isInvariantGroup=*/false, LLVM::AtomicOrdering::monotonic);
  LLVM::BrOp::create(rewriter, loc, ValueRange{initial}, loop);

  // loop(old): replace the element while the value replaces it.
  rewriter.setInsertionPointToStart(loop);
  Value old = loop->getArgument(0);
  Value replace = floatReplaces(rewriter, loc, kind, old, value);
  LLVM::CondBrOp::create(rewriter, loc, replace, exchange, ValueRange{}, done,
                         ValueRange{old});

  // exchange: swap in value if the element still holds old; else retry
  // with what it holds.
  rewriter.setInsertionPointToStart(exchange);
  Value oldBits = LLVM::BitcastOp::create(rewriter, loc, bitsType, old);
  Value newBits = LLVM::BitcastOp::create(rewriter, loc, bitsType, value);
  Value pair = LLVM::AtomicCmpXchgOp::create(
      rewriter, loc, address, oldBits, newBits,
      LLVM::AtomicOrdering::monotonic, LLVM::AtomicOrdering::monotonic);
  Value seenBits = LLVM::ExtractValueOp::create(rewriter, loc, pair, 0);
  Value swapped = LLVM::ExtractValueOp::create(rewriter, loc, pair, 1);
  Value seen = LLVM::BitcastOp::create(rewriter, loc, floatType, seenBits);
  LLVM::CondBrOp::create(rewriter, loc, swapped, done, ValueRange{old}, loop,
                         ValueRange{seen});

  rewriter.setInsertionPointToStart(done);
  return result;
}

/// The update of the scalar at `address` (of ks type `element`) as a plain
/// read and write (`exclusive`), with the result the atomic update would
/// have; returns the old value.
Value exclusiveUpdate(OpBuilder &b, Location loc, ks::AtomicKind kind,
                      Type element, Value address, Value value) {
  Value old = LLVM::LoadOp::create(b, loc, value.getType(), address);
  bool isFloat = isa<FloatType>(element);
  Value updated = value;
  switch (kind) {
  case ks::AtomicKind::add:
    updated = isFloat ? Value(LLVM::FAddOp::create(b, loc, old, value))
                      : Value(LLVM::AddOp::create(b, loc, old, value));
    break;
  case ks::AtomicKind::sub:
    updated = isFloat ? Value(LLVM::FSubOp::create(b, loc, old, value))
                      : Value(LLVM::SubOp::create(b, loc, old, value));
    break;
  case ks::AtomicKind::min:
  case ks::AtomicKind::max: {
    Value replace;
    if (isFloat) {
      replace = floatReplaces(b, loc, kind, old, value);
    } else {
      bool isMin = kind == ks::AtomicKind::min;
      bool isUnsigned = element.isUnsignedInteger();
      auto predicate = isMin ? (isUnsigned ? LLVM::ICmpPredicate::ult
                                           : LLVM::ICmpPredicate::slt)
                             : (isUnsigned ? LLVM::ICmpPredicate::ugt
                                           : LLVM::ICmpPredicate::sgt);
      replace = LLVM::ICmpOp::create(b, loc, predicate, value, old);
    }
    updated = LLVM::SelectOp::create(b, loc, replace, value, old);
    break;
  }
  case ks::AtomicKind::exchange:
    break;
  }
  LLVM::StoreOp::create(b, loc, updated, address);
  return old;
}

/// The update of the scalar at `address`, of ks type `element`; returns
/// the old value.
Value scalarElementUpdate(ConversionPatternRewriter &rewriter, Location loc,
                          ks::AtomicKind kind, Type element, Value address,
                          Value value, bool exclusive) {
  if (exclusive)
    return exclusiveUpdate(rewriter, loc, kind, element, address, value);
  if (isa<FloatType>(element) &&
      (kind == ks::AtomicKind::min || kind == ks::AtomicKind::max))
    return floatMinMax(rewriter, loc, kind, address, value);
  return scalarUpdate(rewriter, loc, kind, element, address, value);
}

struct SliceLowering : KsPattern<ks::SliceOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value array = adaptor.getArray();
    Value address = elementAddress(rewriter, loc, ks, op.getArray().getType(),
                                   array, adaptor.getIndices());
    Type resultType = ks.convertType(op.getType());
    Value slice = LLVM::PoisonOp::create(rewriter, loc, resultType);
    slice = LLVM::InsertValueOp::create(rewriter, loc, slice, address, kData);
    int64_t fixed = op.getIndices().size();
    for (int64_t d = 0; d < int64_t(op.getType().getRank()); ++d)
      for (int64_t field : {kShape, kStrides}) {
        Value extent = LLVM::ExtractValueOp::create(
            rewriter, loc, array, ArrayRef<int64_t>{field, fixed + d});
        slice = LLVM::InsertValueOp::create(rewriter, loc, slice, extent,
                                            ArrayRef<int64_t>{field, d});
      }
    rewriter.replaceOp(op, slice);
    return success();
  }
};

struct DimLowering : KsPattern<ks::DimOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(
        op, adaptor.getArray(),
        ArrayRef<int64_t>{kShape, int64_t(op.getDim())});
    return success();
  }
};

struct AsConstLowering : KsPattern<ks::AsConstOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::AsConstOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getArray());
    return success();
  }
};

struct GridExtentLowering : KsPattern<ks::GridExtentOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::GridExtentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(
        op, adaptor.getGrid(), ArrayRef<int64_t>{int64_t(op.getDim())});
    return success();
  }
};

struct GridSizeLowering : KsPattern<ks::GridSizeOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::GridSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value size;
    for (int64_t d = 0; d < 3; ++d) {
      Value extent =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getGrid(), d);
      size = size ? Value(LLVM::MulOp::create(rewriter, loc, size, extent))
                  : extent;
    }
    rewriter.replaceOp(op, size);
    return success();
  }
};
} // namespace

Value ksc::conversion::updateElement(ConversionPatternRewriter &rewriter,
                                     Location loc,
                                     const KsLLVMTypeConverter &converter,
                                     ks::AtomicKind kind, Type element,
                                     Value address, Value value,
                                     bool exclusive) {
  auto vector = dyn_cast<VectorType>(element);
  if (!vector)
    return scalarElementUpdate(rewriter, loc, kind, element, address, value,
                               exclusive);
  // Component by component, each atomically.
  Value memory = converter.toMemory(rewriter, loc, value, element);
  Type memoryType = converter.convertMemoryType(element);
  Value old = LLVM::PoisonOp::create(rewriter, loc, memoryType);
  SmallVector<int64_t> position(vector.getRank(), 0);
  Type scalar = vector.getElementType();
  for (int64_t flat = 0; flat < vector.getNumElements(); ++flat) {
    for (int64_t d = vector.getRank() - 1, rest = flat; d >= 0; --d) {
      position[d] = rest % vector.getDimSize(d);
      rest /= vector.getDimSize(d);
    }
    SmallVector<LLVM::GEPArg> gepIndices{0};
    for (int64_t p : position)
      gepIndices.push_back(int32_t(p));
    Value componentAddress = LLVM::GEPOp::create(
        rewriter, loc, address.getType(), memoryType, address, gepIndices);
    Value component =
        LLVM::ExtractValueOp::create(rewriter, loc, memory, position);
    Value previous = scalarElementUpdate(rewriter, loc, kind, scalar,
                                         componentAddress, component,
                                         exclusive);
    old = LLVM::InsertValueOp::create(rewriter, loc, old, previous, position);
  }
  return converter.fromMemory(rewriter, loc, old, element);
}

void ksc::conversion::populateMemoryToLLVMPatterns(
    const KsLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<LoadLowering, StoreLowering, AtomicRMWLowering, SliceLowering,
           DimLowering, AsConstLowering, GridExtentLowering, GridSizeLowering>(
          converter);
}
