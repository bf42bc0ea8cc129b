//===- ReductionsToLLVM.cpp - Sums reduced in warps and blocks ------------===//
//
// Part of ksc. The patterns of convert-ks-to-llvm for the sums a GPU
// reduces before its atomics (see "How adjoints accumulate on the GPU" in
// docs/cuda.md), with the same algorithms, in the same order of additions,
// as the runtime's CUDA C++ (runtime/ksc_runtime.h: `block_flush`,
// `block_flush_ordered`, `aggregate_update`):
//
//  * `ks.accumulator` is a zero-filled array in the GPU thread's local
//    memory, which LLVM's SROA keeps in registers when the thread function
//    (inlined) indexes it by constants;
//  * `ks.flush_accumulator block` sums the accumulators of the block's
//    threads: each scalar by a tree of shuffles in each warp, the warps'
//    sums through shared memory (`__ksc_block_sums_<type>`, 8 scalars per
//    warp, one round of up to 8 scalars between two barriers), then by the
//    first warp, whose first lane adds the block's sum into the array with
//    one atomic; without `block`, each thread adds its sums atomically;
//    with `ordered %partials`, the first lane stores the block's sums in
//    the block's partials instead, fences and takes a ticket (an atomic
//    add on element 0, the result broadcast through shared memory,
//    `__ksc_block_last`), and the block with the last ticket sums every
//    block's partials (volatile loads, thread t blocks t, t + ntid.x, ...)
//    with the same block reduction, adds the totals with one atomic each
//    and zeroes the ticket;
//  * `ks.atomic_rmw add|sub aggregate` (aggregateUpdate, called by the
//    ks.atomic_rmw pattern) combines the updates of the lanes of a warp
//    that update the same element together (`match.any.sync`).
//
// Blocks are 1-D: a thread's lane is tid.x & 31 and its warp tid.x >> 5.
// The lanes a block's last warp lacks (blockDim.x % 32 != 0) do not exist,
// and no shuffle names them.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
/// The scalars of a round of a block flush: the slots each warp has in
/// shared memory.
constexpr int64_t kRound = 8;
constexpr int64_t kWarpSize = 32;

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), value);
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), value);
}

/// The scalar type of ks type `type` (a scalar, vector or matrix).
Type scalarOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getElementType();
  return type;
}

/// The scalars of a value of ks type `type`, in order (vectors x, y, z, w;
/// matrices row-major), as positions in its memory type (none: the value
/// is the scalar).
SmallVector<SmallVector<int64_t>> scalarPositions(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return {{}};
  SmallVector<SmallVector<int64_t>> positions;
  SmallVector<int64_t> position(vector.getRank(), 0);
  for (int64_t flat = 0; flat < vector.getNumElements(); ++flat) {
    for (int64_t d = vector.getRank() - 1, rest = flat; d >= 0; --d) {
      position[d] = rest % vector.getDimSize(d);
      rest /= vector.getDimSize(d);
    }
    positions.push_back(position);
  }
  return positions;
}

/// Whether a warp can shuffle and sum the scalars of ks type `type`.
bool isSummable(Type type) {
  Type scalar = scalarOf(type);
  return scalar.isF32() || scalar.isF64() || scalar.isInteger(32) ||
         scalar.isInteger(64);
}

Value scalarAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return LLVM::FAddOp::create(b, loc, x, y);
  return LLVM::AddOp::create(b, loc, x, y);
}

/// The calling thread's lane: tid.x & 31 (blocks are 1-D).
Value laneIndex(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lowBits = i32Constant(b, loc, kWarpSize - 1);
  return LLVM::AndOp::create(b, loc, tid, lowBits);
}

/// `shfl.sync.idx`: `value` (a scalar) of lane `source` among the lanes of
/// `mask`; a 64-bit scalar as its two halves, as CUDA's __shfl_sync.
Value shuffleIdx(OpBuilder &b, Location loc, Value mask, Value value,
                 Value source) {
  Value clamp = i32Constant(b, loc, kWarpSize - 1);
  auto shuffle = [&](Value word) -> Value {
    return NVVM::ShflOp::create(b, loc, word.getType(), mask, word, source,
                                clamp, NVVM::ShflKind::idx, UnitAttr());
  };
  Type type = value.getType();
  if (type.getIntOrFloatBitWidth() == 32)
    return shuffle(value);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits =
      type == i64 ? value : Value(LLVM::BitcastOp::create(b, loc, i64, value));
  Value half = i64Constant(b, loc, 32);
  Value low = LLVM::TruncOp::create(b, loc, i32, bits);
  Value highBits = LLVM::LShrOp::create(b, loc, bits, half);
  Value high = LLVM::TruncOp::create(b, loc, i32, highBits);
  Value lowShuffled = shuffle(low);
  Value highShuffled = shuffle(high);
  Value lowWide = LLVM::ZExtOp::create(b, loc, i64, lowShuffled);
  Value highWide = LLVM::ZExtOp::create(b, loc, i64, highShuffled);
  Value highPart = LLVM::ShlOp::create(b, loc, highWide, half);
  Value result = LLVM::OrOp::create(b, loc, highPart, lowWide);
  if (type == i64)
    return result;
  return LLVM::BitcastOp::create(b, loc, type, result);
}

/// The runtime's warp_sum: the sum of the scalar `value` over lanes [0,
/// `lanes`) of the warp (1 <= lanes <= 32), in lane 0, by a tree of
/// shuffles that reads only those lanes; each of them must run it.
Value warpSum(OpBuilder &b, Location loc, Value value, Value lanes,
              Value lane) {
  // The lanes' mask, ~0 >> (32 - lanes): no shift by 32.
  Value all = i32Constant(b, loc, -1);
  Value width = i32Constant(b, loc, kWarpSize);
  Value missing = LLVM::SubOp::create(b, loc, width, lanes);
  Value mask = LLVM::LShrOp::create(b, loc, all, missing);
  for (int64_t distance = kWarpSize / 2; distance >= 1; distance /= 2) {
    Value offset = i32Constant(b, loc, distance);
    Value other = LLVM::AddOp::create(b, loc, lane, offset);
    Value inside =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, other, lanes);
    Value source = LLVM::SelectOp::create(b, loc, inside, other, lane);
    Value shuffled = shuffleIdx(b, loc, mask, value, source);
    Value sum = scalarAdd(b, loc, value, shuffled);
    value = LLVM::SelectOp::create(b, loc, inside, sum, value);
  }
  return value;
}

/// Emits, with `body`, code that only the threads where `condition` holds
/// run; continues after it.
void emitIf(ConversionPatternRewriter &rewriter, Location loc, Value condition,
            llvm::function_ref<void()> body) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then =
      rewriter.createBlock(after->getParent(), Region::iterator(after));
  body();
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, condition, then, after);
  rewriter.setInsertionPointToStart(after);
}

/// What a flush adds up: the accumulator's scalars (contiguous; a vector
/// or matrix element is its scalars without padding) into the array's.
struct Flush {
  /// The array's element type (ks) and its scalars' LLVM type.
  Type element, scalar;
  /// Scalars per element, and the accumulator's elements (its `size`).
  int64_t parts, size;
  /// The accumulator's data and the array (converted).
  Value sums, array;
  /// The scalars to add: the accumulator's extent times `parts` (i64).
  Value count;
};

/// The address of scalar `flat` of the accumulator.
Value sumAddress(OpBuilder &b, Location loc, const Flush &flush,
                 int64_t flat) {
  return LLVM::GEPOp::create(b, loc, flush.sums.getType(), flush.scalar,
                             flush.sums, ArrayRef<LLVM::GEPArg>{int32_t(flat)});
}

/// The address of scalar `flat` of the array's leading elements.
Value targetAddress(OpBuilder &b, Location loc,
                    const KsLLVMTypeConverter &converter, const Flush &flush,
                    int64_t flat) {
  Value data = LLVM::ExtractValueOp::create(b, loc, flush.array, 0);
  Value stride = LLVM::ExtractValueOp::create(b, loc, flush.array,
                                              ArrayRef<int64_t>{2, 0});
  Value index = i64Constant(b, loc, flat / flush.parts);
  Value offset = LLVM::MulOp::create(b, loc, index, stride);
  Type memoryType = converter.convertMemoryType(flush.element);
  Value element = LLVM::GEPOp::create(b, loc, data.getType(), memoryType, data,
                                      ValueRange{offset});
  return LLVM::GEPOp::create(
      b, loc, data.getType(), flush.scalar, element,
      ArrayRef<LLVM::GEPArg>{int32_t(flat % flush.parts)});
}

/// Adds `value` into scalar `flat` of the array atomically, if `flat` is
/// among the scalars to add.
void addIntoTarget(ConversionPatternRewriter &rewriter, Location loc,
                   const KsLLVMTypeConverter &converter, const Flush &flush,
                   int64_t flat, Value value) {
  Value index = i64Constant(rewriter, loc, flat);
  Value inside = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                      index, flush.count);
  emitIf(rewriter, loc, inside, [&] {
    Value address = targetAddress(rewriter, loc, converter, flush, flat);
    auto op = isa<FloatType>(flush.scalar) ? LLVM::AtomicBinOp::fadd
                                           : LLVM::AtomicBinOp::add;
    LLVM::AtomicRMWOp::create(rewriter, loc, op, address, value,
                              LLVM::AtomicOrdering::monotonic);
  });
}

/// The module's internal global `name` of type `type` in shared memory,
/// made on first use.
Value sharedGlobal(ConversionPatternRewriter &rewriter, Location loc,
                   Operation *op, StringRef name, Type type,
                   uint64_t alignment) {
  auto module = op->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    global = LLVM::GlobalOp::create(rewriter, loc, type, /*isConstant=*/false,
                                    LLVM::Linkage::Internal, name, Attribute(),
                                    alignment, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(rewriter, loc, global);
}

/// The shared memory of block flushes of `scalar`s: 8 per warp.
Value sharedSums(ConversionPatternRewriter &rewriter, Location loc,
                 Operation *op, Type scalar) {
  std::string name;
  llvm::raw_string_ostream(name) << "__ksc_block_sums_" << scalar;
  auto type = LLVM::LLVMArrayType::get(scalar, kWarpSize * kRound);
  return sharedGlobal(rewriter, loc, op, name, type,
                      scalar.getIntOrFloatBitWidth() / 8);
}

/// The values of a block flush that every round uses.
struct BlockLanes {
  /// The thread's lane and warp, the block's warps, the lanes of the
  /// thread's warp and of the first warp (i32).
  Value lane, warp, warps, lanes, firstLanes;
  /// Whether the thread is its warp's lane 0, in the block's first warp.
  Value isLaneZero, isWarpZero;
  /// The shared memory of the warps' sums.
  Value shared;
};

/// min(value, 32), of a positive i32.
Value atMostWarp(OpBuilder &b, Location loc, Value value) {
  Value width = i32Constant(b, loc, kWarpSize);
  Value less =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, value, width);
  return LLVM::SelectOp::create(b, loc, less, value, width);
}

BlockLanes blockLanes(ConversionPatternRewriter &rewriter, Location loc,
                      Operation *op, Type scalar) {
  Type i32 = rewriter.getI32Type();
  BlockLanes block;
  Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
  Value threads = NVVM::BlockDimXOp::create(rewriter, loc, i32);
  Value lowBits = i32Constant(rewriter, loc, kWarpSize - 1);
  Value shift = i32Constant(rewriter, loc, 5);
  block.lane = LLVM::AndOp::create(rewriter, loc, tid, lowBits);
  block.warp = LLVM::LShrOp::create(rewriter, loc, tid, shift);
  Value roundedUp = LLVM::AddOp::create(rewriter, loc, threads, lowBits);
  block.warps = LLVM::LShrOp::create(rewriter, loc, roundedUp, shift);
  Value warpStart = LLVM::ShlOp::create(rewriter, loc, block.warp, shift);
  Value left = LLVM::SubOp::create(rewriter, loc, threads, warpStart);
  block.lanes = atMostWarp(rewriter, loc, left);
  block.firstLanes = atMostWarp(rewriter, loc, threads);
  Value zero = i32Constant(rewriter, loc, 0);
  block.isLaneZero = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::eq, block.lane, zero);
  block.isWarpZero = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::eq, block.warp, zero);
  block.shared = sharedSums(rewriter, loc, op, scalar);
  return block;
}

/// The address of slot `slot` + `j` of the shared sums.
Value sharedAddress(OpBuilder &b, Location loc, const BlockLanes &block,
                    Type scalar, Value slot, int64_t j) {
  Value offset = i32Constant(b, loc, j);
  Value index = LLVM::AddOp::create(b, loc, slot, offset);
  return LLVM::GEPOp::create(b, loc, block.shared.getType(), scalar,
                             block.shared, ValueRange{index});
}

/// The calling thread's values of scalars [begin, begin + size) of a block
/// reduction.
using RoundValues =
    llvm::function_ref<SmallVector<Value>(int64_t begin, int64_t size)>;
/// What the block's first thread does with the block's sum of scalar
/// `flat`.
using BlockSink = llvm::function_ref<void(int64_t flat, Value sum)>;

/// One round of a block reduction (the runtime's block_reduce): scalars
/// [begin, begin + size) summed in each warp, the warps' sums stored in
/// shared memory, summed by the first warp and given to `sink` by its
/// lane 0.
void blockRound(ConversionPatternRewriter &rewriter, Location loc, Type scalar,
                const BlockLanes &block, int64_t begin, int64_t size,
                RoundValues values, BlockSink sink) {
  Value perWarp = i32Constant(rewriter, loc, kRound);
  // The first warp has read the previous round.
  NVVM::Barrier0Op::create(rewriter, loc);
  SmallVector<Value> threadValues = values(begin, size);
  SmallVector<Value> warpSums;
  for (Value value : threadValues)
    warpSums.push_back(warpSum(rewriter, loc, value, block.lanes, block.lane));
  emitIf(rewriter, loc, block.isLaneZero, [&] {
    Value slot = LLVM::MulOp::create(rewriter, loc, block.warp, perWarp);
    for (int64_t j = 0; j < size; ++j) {
      Value address = sharedAddress(rewriter, loc, block, scalar, slot, j);
      LLVM::StoreOp::create(rewriter, loc, warpSums[j], address);
    }
  });
  NVVM::Barrier0Op::create(rewriter, loc);
  emitIf(rewriter, loc, block.isWarpZero, [&] {
    Value slot = LLVM::MulOp::create(rewriter, loc, block.lane, perWarp);
    Value hasWarp = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::slt, block.lane, block.warps);
    Value zero = LLVM::ConstantOp::create(rewriter, loc, scalar,
                                          rewriter.getZeroAttr(scalar));
    SmallVector<Value> blockSums;
    for (int64_t j = 0; j < size; ++j) {
      Value address = sharedAddress(rewriter, loc, block, scalar, slot, j);
      Value stored = LLVM::LoadOp::create(rewriter, loc, scalar, address);
      Value value =
          LLVM::SelectOp::create(rewriter, loc, hasWarp, stored, zero);
      blockSums.push_back(
          warpSum(rewriter, loc, value, block.firstLanes, block.lane));
    }
    emitIf(rewriter, loc, block.isLaneZero, [&] {
      for (int64_t j = 0; j < size; ++j)
        sink(begin + j, blockSums[j]);
    });
  });
}

/// The runtime's block_reduce of `total` scalars: rounds of up to 8. Every
/// thread of the block runs it, at a point all of them reach.
void blockReduce(ConversionPatternRewriter &rewriter, Location loc, Type scalar,
                 const BlockLanes &block, int64_t total, RoundValues values,
                 BlockSink sink) {
  for (int64_t begin = 0; begin < total; begin += kRound)
    blockRound(rewriter, loc, scalar, block, begin,
               std::min(kRound, total - begin), values, sink);
}

/// The address of element `word` (i64) of the (1-D) partials.
Value partialsAddress(OpBuilder &b, Location loc, Value partials, Value word) {
  Value data = LLVM::ExtractValueOp::create(b, loc, partials, 0);
  Value stride =
      LLVM::ExtractValueOp::create(b, loc, partials, ArrayRef<int64_t>{2, 0});
  Value offset = LLVM::MulOp::create(b, loc, word, stride);
  return LLVM::GEPOp::create(b, loc, data.getType(), b.getI64Type(), data,
                             ValueRange{offset});
}

/// The address of the sums of block `blockIndex` (i64) in the partials:
/// element 1 + blockIndex * words.
Value blockPartials(OpBuilder &b, Location loc, Value partials, int64_t words,
                    Value blockIndex) {
  Value perBlock = i64Constant(b, loc, words);
  Value one = i64Constant(b, loc, 1);
  Value start = LLVM::MulOp::create(b, loc, blockIndex, perBlock);
  Value word = LLVM::AddOp::create(b, loc, start, one);
  return partialsAddress(b, loc, partials, word);
}

/// The block's first thread makes the partials it stored visible and
/// takes a ticket (element 0 of the partials); whether the block took the
/// last one (the grid's blocks less one were before it), for every thread
/// of the block, through shared memory.
Value takeTicket(ConversionPatternRewriter &rewriter, Location loc,
                 Operation *op, const BlockLanes &block, Value partials) {
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Value flag = sharedGlobal(rewriter, loc, op, "__ksc_block_last", i32,
                            /*alignment=*/4);
  Value isFirst =
      LLVM::AndOp::create(rewriter, loc, block.isLaneZero, block.isWarpZero);
  emitIf(rewriter, loc, isFirst, [&] {
    NVVM::MembarOp::create(rewriter, loc, NVVM::MemScopeKind::GPU);
    Value zero = i64Constant(rewriter, loc, 0);
    Value ticket = partialsAddress(rewriter, loc, partials, zero);
    Value one = i64Constant(rewriter, loc, 1);
    Value before = LLVM::AtomicRMWOp::create(
        rewriter, loc, LLVM::AtomicBinOp::add, ticket, one,
        LLVM::AtomicOrdering::monotonic, "device");
    Value blocks = NVVM::GridDimXOp::create(rewriter, loc, i32);
    Value blocksWide = LLVM::ZExtOp::create(rewriter, loc, i64, blocks);
    Value lastTicket = LLVM::SubOp::create(rewriter, loc, blocksWide, one);
    Value isLast = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                        before, lastTicket);
    Value isLastWord = LLVM::ZExtOp::create(rewriter, loc, i32, isLast);
    LLVM::StoreOp::create(rewriter, loc, isLastWord, flag);
  });
  NVVM::Barrier0Op::create(rewriter, loc);
  Value stored = LLVM::LoadOp::create(rewriter, loc, i32, flag);
  Value zero = i32Constant(rewriter, loc, 0);
  return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, stored,
                              zero);
}

/// The calling thread's sums of scalars [begin, begin + size) of the
/// blocks tid.x, tid.x + ntid.x, ... below nctaid.x, in that order, by
/// volatile loads of the partials (`words` elements per block).
SmallVector<Value> sumPartials(ConversionPatternRewriter &rewriter,
                               Location loc, Type scalar, Value partials,
                               int64_t words, int64_t begin, int64_t size) {
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
  Value first = LLVM::ZExtOp::create(rewriter, loc, i64, tid);
  Value threads = NVVM::BlockDimXOp::create(rewriter, loc, i32);
  Value step = LLVM::ZExtOp::create(rewriter, loc, i64, threads);
  Value blocks = NVVM::GridDimXOp::create(rewriter, loc, i32);
  Value end = LLVM::ZExtOp::create(rewriter, loc, i64, blocks);
  Value zero = LLVM::ConstantOp::create(rewriter, loc, scalar,
                                        rewriter.getZeroAttr(scalar));
  SmallVector<Value> initial = {first};
  initial.append(size, zero);

  // before -> header(b, sums) -> body -> header(b + ntid, sums') ...;
  // header -> after when b >= nctaid.
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  SmallVector<Type> types = {i64};
  types.append(size, scalar);
  SmallVector<Location> locs(types.size(), loc);
  Block *header = rewriter.createBlock(after->getParent(),
                                       Region::iterator(after), types, locs);
  Block *body =
      rewriter.createBlock(after->getParent(), Region::iterator(after));
  rewriter.setInsertionPointToEnd(before);
  LLVM::BrOp::create(rewriter, loc, initial, header);

  rewriter.setInsertionPointToStart(header);
  Value blockIndex = header->getArgument(0);
  Value inside = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                      blockIndex, end);
  LLVM::CondBrOp::create(rewriter, loc, inside, body, after);

  rewriter.setInsertionPointToStart(body);
  Value sums = blockPartials(rewriter, loc, partials, words, blockIndex);
  SmallVector<Value> next = {
      LLVM::AddOp::create(rewriter, loc, blockIndex, step)};
  for (int64_t j = 0; j < size; ++j) {
    Value address =
        LLVM::GEPOp::create(rewriter, loc, sums.getType(), scalar, sums,
                            ArrayRef<LLVM::GEPArg>{int32_t(begin + j)});
    Value value = LLVM::LoadOp::create(rewriter, loc, scalar, address,
                                       scalar.getIntOrFloatBitWidth() / 8,
                                       /*isVolatile=*/true);
    next.push_back(scalarAdd(rewriter, loc, header->getArgument(1 + j), value));
  }
  LLVM::BrOp::create(rewriter, loc, next, header);

  rewriter.setInsertionPointToStart(after);
  return SmallVector<Value>(header->getArguments().drop_front());
}

struct AccumulatorLowering : KsPattern<ks::AccumulatorOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::AccumulatorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ks::ArrayType type = op.getArray().getType();
    Type memoryType = ks.convertMemoryType(type.getElementType());
    auto storageType = LLVM::LLVMArrayType::get(memoryType, op.getSize());
    Value one = i64Constant(rewriter, loc, 1);
    Value storage = LLVM::AllocaOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
        storageType, one);
    Value zeros = LLVM::ZeroOp::create(rewriter, loc, storageType);
    LLVM::StoreOp::create(rewriter, loc, zeros, storage);
    // Of extent min(size, dim(array, 0)), contiguous.
    Value dim = LLVM::ExtractValueOp::create(
        rewriter, loc, adaptor.getArray(), ArrayRef<int64_t>{1, 0});
    Value size = i64Constant(rewriter, loc, op.getSize());
    Value extent = LLVM::SMinOp::create(rewriter, loc, dim, size);
    Value array = LLVM::PoisonOp::create(rewriter, loc, ks.convertType(type));
    array = LLVM::InsertValueOp::create(rewriter, loc, array, storage,
                                        ArrayRef<int64_t>{0});
    array = LLVM::InsertValueOp::create(rewriter, loc, array, extent,
                                        ArrayRef<int64_t>{1, 0});
    array = LLVM::InsertValueOp::create(rewriter, loc, array, one,
                                        ArrayRef<int64_t>{2, 0});
    rewriter.replaceOp(op, array);
    return success();
  }
};

struct FlushAccumulatorLowering : KsPattern<ks::FlushAccumulatorOp> {
  using KsPattern::KsPattern;
  LogicalResult
  matchAndRewrite(ks::FlushAccumulatorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // checkReductions reported any other.
    auto accumulator =
        op.getAccumulator().getDefiningOp<ks::AccumulatorOp>();
    if (!accumulator)
      return rewriter.notifyMatchFailure(op, "not of a ks.accumulator");
    Location loc = op.getLoc();
    Flush flush;
    flush.element = op.getArray().getType().getElementType();
    flush.scalar = ks.convertType(scalarOf(flush.element));
    flush.parts = scalarPositions(flush.element).size();
    flush.size = accumulator.getSize();
    flush.sums = LLVM::ExtractValueOp::create(rewriter, loc,
                                              adaptor.getAccumulator(), 0);
    flush.array = adaptor.getArray();
    Value extent = LLVM::ExtractValueOp::create(
        rewriter, loc, adaptor.getAccumulator(), ArrayRef<int64_t>{1, 0});
    Value parts = i64Constant(rewriter, loc, flush.parts);
    flush.count = LLVM::MulOp::create(rewriter, loc, extent, parts);
    int64_t total = flush.size * flush.parts;
    if (!op.getBlock()) {
      // Each thread adds its own sums.
      for (int64_t flat = 0; flat < total; ++flat) {
        Value address = sumAddress(rewriter, loc, flush, flat);
        Value value =
            LLVM::LoadOp::create(rewriter, loc, flush.scalar, address);
        addIntoTarget(rewriter, loc, ks, flush, flat, value);
      }
      rewriter.eraseOp(op);
      return success();
    }
    BlockLanes block = blockLanes(rewriter, loc, op, flush.scalar);
    // Every round sums scalars the accumulator has (zero past its extent)
    // and adds those of the array's extent.
    auto threadSums = [&](int64_t begin, int64_t size) {
      SmallVector<Value> values;
      for (int64_t flat = begin; flat < begin + size; ++flat) {
        Value address = sumAddress(rewriter, loc, flush, flat);
        values.push_back(
            LLVM::LoadOp::create(rewriter, loc, flush.scalar, address));
      }
      return values;
    };
    auto addInto = [&](int64_t flat, Value sum) {
      addIntoTarget(rewriter, loc, ks, flush, flat, sum);
    };
    if (Value partials = adaptor.getPartials())
      flushOrdered(rewriter, loc, op, flush, block, partials, threadSums,
                   addInto);
    else
      blockReduce(rewriter, loc, flush.scalar, block, total, threadSums,
                  addInto);
    rewriter.eraseOp(op);
    return success();
  }

  /// The runtime's block_flush_ordered: the block's sums stored in its
  /// partials by its first thread, which then takes a ticket; the block
  /// with the last one sums every block's partials in block order and adds
  /// the totals into the array (`addInto`), then zeroes the ticket. The
  /// partials have `words` elements per block for the accumulator's
  /// `size` elements (all of them stored: zero past its extent).
  static void flushOrdered(ConversionPatternRewriter &rewriter, Location loc,
                           ks::FlushAccumulatorOp op, const Flush &flush,
                           const BlockLanes &block, Value partials,
                           RoundValues threadSums, BlockSink addInto) {
    int64_t total = flush.size * flush.parts;
    int64_t words = ks::FlushAccumulatorOp::getPartialWords(
        total, flush.scalar.getIntOrFloatBitWidth() / 8);
    Value blockId =
        NVVM::BlockIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value blockIndex =
        LLVM::ZExtOp::create(rewriter, loc, rewriter.getI64Type(), blockId);
    Value mine = blockPartials(rewriter, loc, partials, words, blockIndex);
    blockReduce(
        rewriter, loc, flush.scalar, block, total, threadSums,
        [&](int64_t flat, Value sum) {
          Value address =
              LLVM::GEPOp::create(rewriter, loc, mine.getType(), flush.scalar,
                                  mine, ArrayRef<LLVM::GEPArg>{int32_t(flat)});
          LLVM::StoreOp::create(rewriter, loc, sum, address,
                                flush.scalar.getIntOrFloatBitWidth() / 8);
        });
    Value isLast = takeTicket(rewriter, loc, op, block, partials);
    // The other blocks are done.
    emitIf(rewriter, loc, isLast, [&] {
      NVVM::MembarOp::create(rewriter, loc, NVVM::MemScopeKind::GPU);
      auto blockSums = [&](int64_t begin, int64_t size) {
        return sumPartials(rewriter, loc, flush.scalar, partials, words, begin,
                           size);
      };
      blockReduce(rewriter, loc, flush.scalar, block, total, blockSums,
                  addInto);
      Value isFirst = LLVM::AndOp::create(rewriter, loc, block.isLaneZero,
                                          block.isWarpZero);
      emitIf(rewriter, loc, isFirst, [&] {
        Value zero = i64Constant(rewriter, loc, 0);
        Value ticket = partialsAddress(rewriter, loc, partials, zero);
        LLVM::StoreOp::create(rewriter, loc, zero, ticket, /*alignment=*/8);
      });
    });
  }
};

/// What the lanes of a warp updating an element together share.
struct Peers {
  /// The active lanes, those among them updating the same element, the
  /// calling thread's lane, its rank among its peers, its peers above it
  /// and how many peers it has (i32).
  Value active, peers, lane, rank, above, count;
};

/// Step `step` of the tree of an aggregated update: block `check(v)`
/// continues to `leader(v)` if no lane has more than `step` peers, else
/// each lane of rank r with r % (2 step) == 0 adds the values of the peer
/// `step` ranks above it, if any, and continues to `next`.
void treeStep(ConversionPatternRewriter &rewriter, Location loc,
              const Peers &peers, Type element, int64_t step, Block *check,
              Block *next, Block *leader) {
  rewriter.setInsertionPointToStart(check);
  Value value = check->getArgument(0);
  Value stepValue = i32Constant(rewriter, loc, step);
  Value more = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ugt,
                                    peers.count, stepValue);
  Value anyMore = NVVM::VoteSyncOp::create(rewriter, loc, rewriter.getI1Type(),
                                           peers.active, more,
                                           NVVM::VoteSyncKind::any);
  Block *body = rewriter.createBlock(check->getParent(), Region::iterator(next));
  rewriter.setInsertionPointToEnd(check);
  LLVM::CondBrOp::create(rewriter, loc, anyMore, body, ValueRange{}, leader,
                         ValueRange{value});

  // The peers above the lane less the lowest step - 1 of them: the lowest
  // left is the source.
  rewriter.setInsertionPointToStart(body);
  Value one = i32Constant(rewriter, loc, 1);
  Value above = peers.above;
  for (int64_t i = 1; i < step; ++i) {
    Value lessOne = LLVM::SubOp::create(rewriter, loc, above, one);
    above = LLVM::AndOp::create(rewriter, loc, above, lessOne);
  }
  Value zero = i32Constant(rewriter, loc, 0);
  Value hasSource = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::ne, above, zero);
  Value first = LLVM::CountTrailingZerosOp::create(rewriter, loc, above,
                                                   /*is_zero_poison=*/false);
  Value source =
      LLVM::SelectOp::create(rewriter, loc, hasSource, first, peers.lane);
  Value rankMask = i32Constant(rewriter, loc, 2 * step - 1);
  Value rankBits = LLVM::AndOp::create(rewriter, loc, peers.rank, rankMask);
  Value receives = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::eq, rankBits, zero);
  Value adds = LLVM::AndOp::create(rewriter, loc, hasSource, receives);
  for (ArrayRef<int64_t> position : scalarPositions(element)) {
    Value component =
        position.empty()
            ? value
            : Value(LLVM::ExtractValueOp::create(rewriter, loc, value,
                                                 position));
    Value other =
        shuffleIdx(rewriter, loc, peers.active, component, source);
    Value sum = scalarAdd(rewriter, loc, component, other);
    Value updated =
        LLVM::SelectOp::create(rewriter, loc, adds, sum, component);
    value = position.empty() ? updated
                             : Value(LLVM::InsertValueOp::create(
                                   rewriter, loc, value, updated, position));
  }
  LLVM::BrOp::create(rewriter, loc, ValueRange{value}, next);
}

/// The active lanes, the peers of the calling lane updating `address` too,
/// its lane and rank, and whether every active lane updates an element of
/// its own.
std::pair<Peers, Value> findPeers(OpBuilder &b, Location loc, Value address) {
  Type i32 = b.getI32Type();
  Peers peers;
  peers.active =
      LLVM::CallIntrinsicOp::create(b, loc, i32,
                                    b.getStringAttr("llvm.nvvm.activemask"),
                                    ValueRange{})
          ->getResult(0);
  Value key = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
  peers.peers = NVVM::MatchSyncOp::create(b, loc, i32, peers.active, key,
                                          NVVM::MatchSyncKind::any);
  peers.lane = laneIndex(b, loc);
  Value one = i32Constant(b, loc, 1);
  Value laneBit = LLVM::ShlOp::create(b, loc, one, peers.lane);
  Value below = LLVM::SubOp::create(b, loc, laneBit, one);
  Value peersBelow = LLVM::AndOp::create(b, loc, peers.peers, below);
  peers.rank = LLVM::CtPopOp::create(b, loc, peersBelow);
  // None above lane 31: 2 << 31 is 0.
  Value two = i32Constant(b, loc, 2);
  Value all = i32Constant(b, loc, -1);
  Value upTo = LLVM::ShlOp::create(b, loc, two, peers.lane);
  Value upToMask = LLVM::SubOp::create(b, loc, upTo, one);
  Value aboveMask = LLVM::XOrOp::create(b, loc, upToMask, all);
  peers.above = LLVM::AndOp::create(b, loc, peers.peers, aboveMask);
  peers.count = LLVM::CtPopOp::create(b, loc, peers.peers);
  Value alone = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                     peers.peers, laneBit);
  Value allAlone = NVVM::VoteSyncOp::create(
      b, loc, b.getI1Type(), peers.active, alone, NVVM::VoteSyncKind::all);
  return {peers, allAlone};
}
} // namespace

void ksc::conversion::aggregateUpdate(ConversionPatternRewriter &rewriter,
                                      Location loc,
                                      const KsLLVMTypeConverter &converter,
                                      ks::AtomicKind kind, Type element,
                                      Value address, Value value) {
  auto [peers, allAlone] = findPeers(rewriter, loc, address);
  Value memory = converter.toMemory(rewriter, loc, value, element);
  Type memoryType = memory.getType();

  // before -> update(v) if every lane is alone, else the tree's steps
  // check_1(v) ... check_16(v) -> leader(v) -> update(v) for rank 0 ->
  // done.
  Block *before = rewriter.getInsertionBlock();
  Block *done = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Region *region = done->getParent();
  Block *update = rewriter.createBlock(region, Region::iterator(done),
                                       {memoryType}, {loc});
  Value total =
      converter.fromMemory(rewriter, loc, update->getArgument(0), element);
  updateElement(rewriter, loc, converter, kind, element, address, total,
                /*exclusive=*/false);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, done);

  Block *leader = rewriter.createBlock(region, Region::iterator(update),
                                       {memoryType}, {loc});
  Value zero = i32Constant(rewriter, loc, 0);
  Value isLeader = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                        peers.rank, zero);
  LLVM::CondBrOp::create(rewriter, loc, isLeader, update,
                         ValueRange{leader->getArgument(0)}, done,
                         ValueRange{});

  SmallVector<int64_t> steps = {1, 2, 4, 8, 16};
  SmallVector<Block *> checks;
  for (size_t i = 0; i < steps.size(); ++i)
    checks.push_back(rewriter.createBlock(region, Region::iterator(leader),
                                          {memoryType}, {loc}));
  for (auto [i, step] : llvm::enumerate(steps)) {
    Block *next = i + 1 < checks.size() ? checks[i + 1] : leader;
    treeStep(rewriter, loc, peers, element, step, checks[i], next, leader);
  }

  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, allAlone, update, ValueRange{memory},
                         checks.front(), ValueRange{memory});
  rewriter.setInsertionPointToStart(done);
}

LogicalResult ksc::conversion::checkReductions(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (auto flush = dyn_cast<ks::FlushAccumulatorOp>(op)) {
      if (!flush.getAccumulator().getDefiningOp<ks::AccumulatorOp>()) {
        flush.emitOpError("can be lowered to LLVM only for a ks.accumulator "
                          "of the same function");
        return WalkResult::interrupt();
      }
      if (!isSummable(flush.getArray().getType().getElementType())) {
        flush.emitOpError("cannot sum elements of type ")
            << flush.getArray().getType().getElementType() << " on a GPU";
        return WalkResult::interrupt();
      }
    }
    if (auto atomic = dyn_cast<ks::AtomicRMWOp>(op))
      if (atomic.getAggregate() && !isSummable(atomic.getTargetType())) {
        atomic.emitOpError("cannot aggregate updates of type ")
            << atomic.getTargetType() << " on a GPU";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void ksc::conversion::populateReductionsToLLVMPatterns(
    const KsLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AccumulatorLowering, FlushAccumulatorLowering>(converter);
}
