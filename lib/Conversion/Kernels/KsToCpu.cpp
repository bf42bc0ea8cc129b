//===- KsToCpu.cpp - Lower kernels to CPU functions and launch loops --===//
//
// Part of ksc. See the description of `convert-ks-to-cpu` in
// include/ksc/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "ksc/Conversion/Passes.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ksc {
#define GEN_PASS_DEF_CONVERTKSTOCPU
#include "ksc/Conversion/Passes.h.inc"
} // namespace ksc

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
/// The most leading elements of an array a launch sums privately.
static constexpr int64_t kMaxAccumulatorSize = 16;

/// The size of the `ks.accumulator` a launch can pass in place of the
/// kernel's array argument `arg`: 1 + the largest index when `arg` is 1-D
/// and every use of it is an atomic add or sub at a constant index in
/// [0, kMaxAccumulatorSize) whose old value is unused, or the bounds check
/// of such an index; else 0 (no accumulator).
static int64_t accumulatorSize(BlockArgument arg) {
  auto type = dyn_cast<ks::ArrayType>(arg.getType());
  if (!type || type.getRank() != 1 || type.getIsConst())
    return 0;
  int64_t size = 0;
  for (Operation *user : arg.getUsers()) {
    Value index;
    if (auto atomic = dyn_cast<ks::AtomicRMWOp>(user)) {
      if (atomic.getKind() != ks::AtomicKind::add &&
          atomic.getKind() != ks::AtomicKind::sub)
        return 0;
      if (!atomic.getResult().use_empty())
        return 0;
      index = atomic.getIndices().front();
    } else if (auto check = dyn_cast<ks::CheckBoundsOp>(user)) {
      index = check.getIndices().front();
    } else {
      return 0;
    }
    APInt value;
    if (!matchPattern(index, m_ConstantInt(&value)) || value.isNegative() ||
        value.sge(kMaxAccumulatorSize))
      return 0;
    size = std::max(size, value.getSExtValue() + 1);
  }
  return size;
}

/// `ks.kernel @k` becomes `func.func private @k(<indices>, ...)`, one thread
/// of the kernel, which receives the thread indices it reads as leading
/// `i32` arguments, plus the launcher `func.func @launch_k(%dim: !ks.grid,
/// ...)`, which runs every thread of the grid.
struct KernelOpLowering : public OpConversionPattern<ks::KernelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ks::KernelOp kernel, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = kernel.getLoc();
    MLIRContext *ctx = getContext();
    Type i32 = rewriter.getI32Type();

    SmallVector<int64_t> accumulatorSizes =
        llvm::map_to_vector(kernel.getArguments(), [](BlockArgument arg) {
          return accumulatorSize(arg);
        });
    ThreadFunction thread = createThreadFunction(rewriter, kernel);
    ArrayRef<int> kinds = thread.kinds;
    const std::string *nameOf = thread.nameOf;

    // The launcher runs the threads one after another in row-major order:
    // one loop over all of them when the kernel reads only tid(), else a
    // loop per dimension of the grid.
    rewriter.setInsertionPointAfter(thread.func);
    func::FuncOp launcher = createLauncher(rewriter, kernel);
    Block *body = launcher.addEntryBlock();
    rewriter.setInsertionPointToStart(body);
    // Sums over all threads go to accumulators of the launch.
    SmallVector<Value> kernelArgs(body->getArguments().drop_front());
    SmallVector<std::pair<Value, Value>> accumulators;
    for (auto [index, size] : llvm::enumerate(accumulatorSizes)) {
      if (!size)
        continue;
      Value array = kernelArgs[index];
      StringRef argName = kernel.getArgName(index);
      std::string sumName =
          argName.empty() ? std::string("sum") : (argName + "_sum").str();
      kernelArgs[index] = ks::AccumulatorOp::create(
          rewriter, NameLoc::get(rewriter.getStringAttr(sumName), loc), array,
          size);
      accumulators.push_back({kernelArgs[index], array});
    }
    Value grid = body->getArgument(0);
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
    // The launch entry points check that these fit an int.
    auto extent = [&](std::optional<int64_t> dim) -> Value {
      Value value =
          dim ? ks::GridExtentOp::create(rewriter, loc, grid, *dim).getResult()
              : ks::GridSizeOp::create(rewriter, loc, grid).getResult();
      return arith::TruncIOp::create(rewriter, loc, i32, value);
    };
    auto loopOver = [&](Value count, StringRef var) {
      auto loop = scf::ForOp::create(
          rewriter, NameLoc::get(rewriter.getStringAttr(var), loc), zero, count,
          one);
      rewriter.setInsertionPointToStart(loop.getBody());
      return loop.getInductionVar();
    };
    SmallVector<Value> args;
    if (llvm::all_of(kinds, [](int kind) { return kind == kFlat; })) {
      Value flat = loopOver(extent(std::nullopt), "tid");
      if (!kinds.empty())
        args.push_back(flat);
    } else {
      // Each extent is read where it is used (a member read), so that the
      // C++ reads `c < int(dim.y)` rather than naming temporaries.
      SmallVector<Value> coords;
      for (int64_t dim = 0; dim < 3; ++dim)
        coords.push_back(loopOver(extent(dim), nameOf[dim + 1]));
      for (int kind : kinds) {
        if (kind != kFlat) {
          args.push_back(coords[kind]);
          continue;
        }
        // tid() = (x * Y + y) * Z + z, which fits an int (the launch
        // entry points check the number of threads): no signed wrap.
        auto nsw = arith::IntegerOverflowFlagsAttr::get(
            ctx, arith::IntegerOverflowFlags::nsw);
        Value flat =
            arith::MulIOp::create(rewriter, loc, coords[0], extent(1), nsw);
        flat = arith::AddIOp::create(rewriter, loc, flat, coords[1], nsw);
        flat = arith::MulIOp::create(rewriter, loc, flat, extent(2), nsw);
        flat = arith::AddIOp::create(
            rewriter, NameLoc::get(rewriter.getStringAttr(nameOf[0]), loc),
            flat, coords[2], nsw);
        args.push_back(flat);
      }
    }
    llvm::append_range(args, kernelArgs);
    func::CallOp::create(rewriter, loc, thread.func, args);
    rewriter.setInsertionPointToEnd(body);
    for (auto [sum, array] : accumulators)
      ks::FlushAccumulatorOp::create(rewriter, loc, sum, array);
    func::ReturnOp::create(rewriter, loc);

    rewriter.eraseOp(kernel);
    return success();
  }
};

struct ConvertKsToCpu : public ksc::impl::ConvertKsToCpuBase<ConvertKsToCpu> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkLauncherNames(module)))
      return signalPassFailure();

    ConversionTarget target(getContext());
    addLegalKsOps(target);
    target.addLegalOp<ks::AccumulatorOp, ks::FlushAccumulatorOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<KernelOpLowering>(&getContext());
    populateFunctionLoweringPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
