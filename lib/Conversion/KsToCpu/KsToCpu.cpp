//===- KsToCpu.cpp - Lower kernels to CPU functions and launch loops --===//
//
// Part of ksc. See the description of `convert-ks-to-cpu` in
// include/ksc/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

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

/// The name of the public function that launches kernel `kernel`.
static std::string launcherName(StringRef kernel) {
  return ("launch_" + kernel).str();
}

/// A private `func.func` named and typed like `op` whose arguments carry
/// `ks.name` attributes: `leading` first (if given), then the names of `op`.
template <typename OpT>
static func::FuncOp createFunction(ConversionPatternRewriter &rewriter, OpT op,
                                   StringRef name, FunctionType type,
                                   StringRef leading = "") {
  auto func = func::FuncOp::create(rewriter, op.getLoc(), name, type);
  unsigned offset = leading.empty() ? 0 : 1;
  if (!leading.empty())
    func.setArgAttr(0, kNameAttr, rewriter.getStringAttr(leading));
  for (unsigned i = 0, e = op.getFunctionType().getNumInputs(); i < e; ++i) {
    if (StringRef argName = op.getArgName(i); !argName.empty())
      func.setArgAttr(i + offset, kNameAttr, rewriter.getStringAttr(argName));
    for (StringRef attr : {ks::kInoutAttr, ks::kUnsignedAttr})
      if (Attribute value = op.getArgAttr(i, attr))
        func.setArgAttr(i + offset, attr, value);
  }
  for (unsigned i = 0, e = op.getFunctionType().getNumResults(); i < e; ++i)
    if (Attribute value = op.getResultAttr(i, ks::kUnsignedAttr))
      func.setResultAttr(i, ks::kUnsignedAttr, value);
  return func;
}

namespace {
struct FuncOpLowering : public OpConversionPattern<ks::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ks::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    func::FuncOp func =
        createFunction(rewriter, op, op.getSymName(), op.getFunctionType());
    func.setPrivate();
    if (Attribute names = op->getAttr(kUnsignedNamesAttr))
      func->setAttr(kUnsignedNamesAttr, names);
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The thread indices a kernel reads: `tid()` (kFlat) and the coordinates
/// `tid(0)`, `tid(1)`, `tid(2)`.
static constexpr int kFlat = -1;
static int tidKind(ks::TidOp op) {
  std::optional<uint64_t> dim = op.getDim();
  return dim ? static_cast<int>(*dim) : kFlat;
}

/// The name of the thread function's parameter for index `kind`: the
/// variable the source keeps it in (`int i = tid();`) when every use agrees.
static std::string tidParamName(ArrayRef<ks::TidOp> tids, int kind) {
  static const char *defaults[] = {"tid", "tid_x", "tid_y", "tid_z"};
  std::optional<StringRef> common;
  for (ks::TidOp op : tids) {
    if (tidKind(op) != kind)
      continue;
    StringRef name = getNameFromLoc(op.getLoc());
    if (common && *common != name)
      return defaults[kind + 1];
    common = name;
  }
  return common && !common->empty() ? common->str() : defaults[kind + 1];
}

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
    FunctionType kernelType = kernel.getFunctionType();
    StringRef name = kernel.getSymName();

    SmallVector<int64_t> accumulatorSizes = llvm::map_to_vector(
        kernel.getArguments(), [](BlockArgument arg) {
          return accumulatorSize(arg);
        });
    SmallVector<ks::TidOp> tids;
    kernel.walk([&](ks::TidOp op) { tids.push_back(op); });
    // The indices the thread function receives, in the order flat, x, y, z.
    SmallVector<int> kinds;
    for (int kind : {kFlat, 0, 1, 2})
      if (llvm::any_of(tids, [&](ks::TidOp op) { return tidKind(op) == kind; }))
        kinds.push_back(kind);
    // The name of each index, flat first: for the parameters of the thread
    // function and the loops of the launcher.
    std::string nameOf[4];
    for (int kind : {kFlat, 0, 1, 2})
      nameOf[kind + 1] = tidParamName(tids, kind);

    SmallVector<Type> threadInputs(kinds.size(), i32);
    llvm::append_range(threadInputs, kernelType.getInputs());
    auto thread = func::FuncOp::create(
        rewriter, loc, name, FunctionType::get(ctx, threadInputs, {}));
    thread.setPrivate();
    for (auto [index, kind] : llvm::enumerate(kinds))
      thread.setArgAttr(index, kNameAttr,
                        rewriter.getStringAttr(nameOf[kind + 1]));
    for (unsigned i = 0, e = kernelType.getNumInputs(); i < e; ++i) {
      if (StringRef argName = kernel.getArgName(i); !argName.empty())
        thread.setArgAttr(i + kinds.size(), kNameAttr,
                          rewriter.getStringAttr(argName));
      if (Attribute value = kernel.getArgAttr(i, ks::kUnsignedAttr))
        thread.setArgAttr(i + kinds.size(), ks::kUnsignedAttr, value);
    }
    if (Attribute names = kernel->getAttr(kUnsignedNamesAttr))
      thread->setAttr(kUnsignedNamesAttr, names);
    rewriter.inlineRegionBefore(kernel.getBody(), thread.getBody(),
                                thread.end());
    TypeConverter::SignatureConversion signature(kernelType.getNumInputs());
    signature.addInputs(SmallVector<Type>(kinds.size(), i32));
    for (auto [index, type] : llvm::enumerate(kernelType.getInputs()))
      signature.addInputs(index, type);
    Block *entry =
        rewriter.applySignatureConversion(&thread.getBody().front(), signature);
    for (ks::TidOp op : tids)
      rewriter.replaceOp(op, entry->getArgument(llvm::find(kinds, tidKind(op)) -
                                                kinds.begin()));

    // The launcher runs the threads one after another in row-major order:
    // one loop over all of them when the kernel reads only tid(), else a
    // loop per dimension of the grid.
    rewriter.setInsertionPointAfter(thread);
    SmallVector<Type> launchInputs = {ks::GridType::get(ctx)};
    llvm::append_range(launchInputs, kernelType.getInputs());
    func::FuncOp launcher =
        createFunction(rewriter, kernel, launcherName(name),
                       FunctionType::get(ctx, launchInputs, {}), "dim");
    launcher->setAttr("ks.launch_of", rewriter.getStringAttr(name));
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
          rewriter, NameLoc::get(rewriter.getStringAttr(var), loc), zero,
          count, one);
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
    func::CallOp::create(rewriter, loc, thread, args);
    rewriter.setInsertionPointToEnd(body);
    for (auto [sum, array] : accumulators)
      ks::FlushAccumulatorOp::create(rewriter, loc, sum, array);
    func::ReturnOp::create(rewriter, loc);

    rewriter.eraseOp(kernel);
    return success();
  }
};

struct ReturnOpLowering : public OpConversionPattern<ks::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ks::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

struct CallOpLowering : public OpConversionPattern<ks::CallOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ks::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto call = rewriter.replaceOpWithNewOp<func::CallOp>(
        op, op.getCalleeAttr(), op.getResultTypes(), adaptor.getOperands());
    // The source names of in-out results.
    if (Attribute names = op->getAttr(kNamesAttr))
      call->setAttr(kNamesAttr, names);
    return success();
  }
};

struct ConvertKsToCpu : public ksc::impl::ConvertKsToCpuBase<ConvertKsToCpu> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    bool clash = false;
    for (auto kernel : module.getOps<ks::KernelOp>())
      if (Operation *other =
              symbols.lookup(launcherName(kernel.getSymName()))) {
        other->emitError() << "the name '" << launcherName(kernel.getSymName())
                           << "' is reserved for the launcher of kernel '"
                           << kernel.getSymName() << "'";
        clash = true;
      }
    if (clash)
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                           math::MathDialect, scf::SCFDialect>();
    target.addLegalOp<ModuleOp, ks::LoadOp, ks::StoreOp, ks::AtomicRMWOp,
                      ks::DimOp, ks::SliceOp, ks::CheckBoundsOp, ks::CheckIndexOp,
                      ks::AsConstOp,
                      ks::GridExtentOp, ks::GridSizeOp, ks::RandInitOp,
                      ks::RandIOp, ks::RandFOp, ks::RandNOp,
                      ks::StructMakeOp, ks::StructExtractOp,
                      ks::StructInsertOp, ks::TapePushOp, ks::TapePopOp,
                      ks::AccumulatorOp, ks::FlushAccumulatorOp>();
    target.addIllegalOp<ks::KernelOp, ks::FuncOp, ks::ReturnOp, ks::CallOp,
                        ks::TidOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<KernelOpLowering, FuncOpLowering, ReturnOpLowering,
                 CallOpLowering>(&getContext());
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
