//===- KsToCuda.cpp - Lower kernels to CUDA thread functions and kernels ===//
//
// Part of ksc. See the description of `convert-ks-to-cuda` in
// include/ksc/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "ksc/Conversion/Accumulations.h"
#include "ksc/Conversion/Passes.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ksc {
#define GEN_PASS_DEF_CONVERTKSTOCUDA
#include "ksc/Conversion/Passes.h.inc"
} // namespace ksc

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
/// The launch of each kernel (Accumulations.h): the sums at constant
/// indices are summed per thread in a `ks.accumulator` and then across the
/// block (`ks.flush_accumulator block`).
using LaunchPlans = llvm::DenseMap<Operation *, GpuLaunchPlan>;

struct KernelOpLowering : public OpConversionPattern<ks::KernelOp> {
  KernelOpLowering(MLIRContext *ctx, bool gridStride, const LaunchPlans &plans)
      : OpConversionPattern(ctx), gridStride(gridStride), plans(plans) {}

  LogicalResult
  matchAndRewrite(ks::KernelOp kernel, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = kernel.getLoc();
    MLIRContext *ctx = getContext();
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    auto nsw = arith::IntegerOverflowFlagsAttr::get(
        ctx, arith::IntegerOverflowFlags::nsw);
    auto named = [&](StringRef name) {
      return NameLoc::get(rewriter.getStringAttr(name), loc);
    };

    // A kernel whose threads sum across the block loops over the grid: its
    // launches have at most getMaxSumBlocks blocks (ksc/Support/CudaLaunch.h).
    // A serial launch runs the loop over the grid on one GPU thread.
    const GpuLaunchPlan &plan = plans.at(kernel);
    bool loopOverGrid = gridStride || plan.blockSums || plan.serial;
    ThreadFunction thread = createThreadFunction(rewriter, kernel);
    rewriter.setInsertionPointAfter(thread.func);
    func::FuncOp launcher = createLauncher(rewriter, kernel);
    launcher->setAttr(ks::kCudaLaunchAttr,
                      rewriter.getStringAttr(plan.serial    ? "serial"
                                             : loopOverGrid ? "grid-stride"
                                                            : "guarded"));
    unsigned numArgs = launcher.getNumArguments();
    addPartials(rewriter, kernel, launcher, plan);
    Block *body = launcher.addEntryBlock();
    rewriter.setInsertionPointToStart(body);
    Value grid = body->getArgument(0);

    // Every GPU thread sums into accumulators of its own; the block adds
    // them up where all its threads arrive, after the loop over the grid.
    SmallVector<Value> kernelArgs(body->getArguments().slice(1, numArgs - 1));
    ValueRange partials = body->getArguments().drop_front(numArgs);
    SmallVector<std::pair<Value, Value>> accumulators;
    for (auto [index, sums] : llvm::enumerate(plan.args)) {
      if (sums.kind != SumClass::Uniform)
        continue;
      StringRef argName = kernel.getArgName(index);
      Location sumLoc = named(argName.empty() ? std::string("sum")
                                              : (argName + "_sum").str());
      Value array = kernelArgs[index];
      kernelArgs[index] =
          ks::AccumulatorOp::create(rewriter, sumLoc, array, sums.size);
      accumulators.push_back({kernelArgs[index], array});
    }

    auto dim = [&](auto op) {
      return arith::IndexCastOp::create(rewriter, loc, i64, op.getResult());
    };
    Value blockId =
        dim(gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value blockSize =
        dim(gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x));
    Value threadId =
        dim(gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value first = arith::AddIOp::create(
        rewriter, named(thread.nameOf[0]),
        arith::MulIOp::create(rewriter, loc, blockId, blockSize, nsw), threadId,
        nsw);
    Value count = ks::GridSizeOp::create(rewriter, loc, grid);

    // The body run for the flat index `flat` (i64, below `count`).
    auto callThread = [&](Value flat) {
      SmallVector<Value> args;
      // The coordinates in row-major order: flat = (x * Y + y) * Z + z.
      SmallVector<Value, 3> coords;
      if (llvm::any_of(thread.kinds, [](int kind) { return kind != kFlat; }))
        coords = gridCoordinates(rewriter, loc, grid, flat, nullptr);
      // The grid has at most 2^31 - 1 threads (the host launch function
      // checks): every index fits the kernel's int.
      // (The flat index keeps its name in 64 bits, `flat`.)
      for (int kind : thread.kinds)
        args.push_back(arith::TruncIOp::create(
            rewriter, kind == kFlat ? loc : named(thread.nameOf[kind + 1]), i32,
            kind == kFlat ? flat : coords[kind]));
      llvm::append_range(args, kernelArgs);
      func::CallOp::create(rewriter, loc, thread.func, args);
    };

    if (loopOverGrid) {
      Value gridSize =
          dim(gpu::GridDimOp::create(rewriter, loc, gpu::Dimension::x));
      Value stride =
          arith::MulIOp::create(rewriter, loc, gridSize, blockSize, nsw);
      auto loop = scf::ForOp::create(rewriter, named(thread.nameOf[0]), first,
                                     count, stride);
      rewriter.setInsertionPointToStart(loop.getBody());
      callThread(loop.getInductionVar());
    } else {
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt, first, count);
      auto guard = scf::IfOp::create(rewriter, loc, inside);
      rewriter.setInsertionPointToStart(guard.thenBlock());
      callThread(first);
    }
    rewriter.setInsertionPointToEnd(body);
    for (auto [index, accumulator] : llvm::enumerate(accumulators)) {
      auto [sum, array] = accumulator;
      ks::FlushAccumulatorOp::create(rewriter, loc, sum, array, /*block=*/true,
                                     partials.empty() ? Value()
                                                      : partials[index]);
    }
    func::ReturnOp::create(rewriter, loc);
    rewriter.eraseOp(kernel);
    return success();
  }

  /// Appends to `launcher` the partials of its ordered sums (the launch
  /// allocates them): `<name>_partials`, one per Uniform sum.
  static void addPartials(ConversionPatternRewriter &rewriter,
                          ks::KernelOp kernel, func::FuncOp launcher,
                          const GpuLaunchPlan &plan) {
    Type type = ks::ArrayType::get(rewriter.getI64Type(), 1);
    unsigned next = 0;
    for (auto [index, sums] : llvm::enumerate(plan.args)) {
      if (sums.kind != SumClass::Uniform || next == plan.partialWords.size())
        continue;
      StringRef argName = kernel.getArgName(index);
      NamedAttribute attrs[] = {
          rewriter.getNamedAttr(
              ks::kNameAttr,
              rewriter.getStringAttr(
                  (argName.empty() ? StringRef("sum") : argName) +
                  "_partials")),
          rewriter.getNamedAttr(
              ks::kPartialWordsAttr,
              rewriter.getI64IntegerAttr(plan.partialWords[next++]))};
      launcher.insertArgument(launcher.getNumArguments(), type,
                              rewriter.getDictionaryAttr(attrs),
                              kernel.getLoc());
    }
  }

  bool gridStride;
  const LaunchPlans &plans;
};

struct ConvertKsToCuda
    : public ksc::impl::ConvertKsToCudaBase<ConvertKsToCuda> {
  using ConvertKsToCudaBase::ConvertKsToCudaBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (launch != "guarded" && launch != "grid-stride") {
      module.emitError() << "unknown launch '" << launch
                         << "': expected 'guarded' or 'grid-stride'";
      return signalPassFailure();
    }
    if (failed(checkLauncherNames(module)))
      return signalPassFailure();

    LaunchPlans plans = planLaunches(module);
    ConversionTarget target(getContext());
    addLegalKsOps(target);
    target.addLegalDialect<gpu::GPUDialect>();
    target.addLegalOp<ks::AccumulatorOp, ks::FlushAccumulatorOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<KernelOpLowering>(&getContext(), launch == "grid-stride",
                                   plans);
    populateFunctionLoweringPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        failed(giveThreadsTapes(module)))
      return signalPassFailure();
    // Every other sum whose old value is unused is combined within the
    // warp before its atomic.
    module.walk([](ks::AtomicRMWOp atomic) {
      if (isAggregatableSum(atomic))
        atomic.setAggregate(true);
    });
  }

  /// Plans the launch of every kernel and marks the updates of the sums
  /// each GPU thread makes into its accumulators exclusive.
  LaunchPlans planLaunches(ModuleOp module) {
    LaunchPlans plans;
    SymbolTable symbols(module);
    for (auto kernel : module.getOps<ks::KernelOp>()) {
      GpuLaunchPlan &plan = plans[kernel] =
          planGpuLaunch(kernel, symbols, deterministic);
      if (plan.serial) {
        // A launch thousands of times slower than without the option:
        // say so, and why.
        InFlightDiagnostic warning =
            kernel.emitWarning("with --deterministic, kernel '")
            << kernel.getSymName() << "' runs on one GPU thread";
        warning.attachNote(plan.serialBecause.getLoc())
            << "the result of this update depends on the order of the "
               "threads (see \"Deterministic gradients\" in docs/cuda.md)";
      }
      for (auto [arg, sums] : llvm::zip(kernel.getArguments(), plan.args)) {
        if (sums.kind != SumClass::Uniform)
          continue;
        for (Operation *user : arg.getUsers())
          if (auto atomic = dyn_cast<ks::AtomicRMWOp>(user))
            atomic.setExclusive(true);
      }
    }
    return plans;
  }

  /// Gives every thread function that uses a tape one: a `!ks.tape` last
  /// argument, which its tape operations name, made by `ks.tape_create` in
  /// its launcher (GPU threads have no thread-local storage to find it
  /// in). Tape operations anywhere else are an error.
  LogicalResult giveThreadsTapes(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    for (auto launcher : module.getOps<func::FuncOp>()) {
      auto kernel = launcher->getAttrOfType<StringAttr>(kLaunchOfAttr);
      if (!kernel)
        continue;
      auto thread = module.lookupSymbol<func::FuncOp>(kernel);
      SmallVector<Operation *> tapeOps;
      thread.walk([&](Operation *op) {
        if (isa<ks::TapePushOp, ks::TapePopOp, ks::TapeCapacityOp>(op))
          tapeOps.push_back(op);
      });
      if (tapeOps.empty())
        continue;
      Location loc =
          NameLoc::get(StringAttr::get(ctx, "tape"), thread.getLoc());
      unsigned index = thread.getNumArguments();
      NamedAttribute name(StringAttr::get(ctx, kNameAttr),
                          StringAttr::get(ctx, "tape"));
      if (failed(thread.insertArgument(index, ks::TapeType::get(ctx),
                                       DictionaryAttr::get(ctx, {name}), loc)))
        return failure();
      Value tape = thread.getArgument(index);
      for (Operation *op : tapeOps) {
        if (auto push = dyn_cast<ks::TapePushOp>(op))
          push.getTapeMutable().assign(tape);
        else if (auto pop = dyn_cast<ks::TapePopOp>(op))
          pop.getTapeMutable().assign(tape);
        else
          cast<ks::TapeCapacityOp>(op).getTapeMutable().assign(tape);
      }
      OpBuilder b = OpBuilder::atBlockBegin(&launcher.front());
      Value created = ks::TapeCreateOp::create(b, loc, tapeBytes, kernel);
      launcher.walk([&](func::CallOp call) {
        if (call.getCallee() == kernel.getValue())
          call->insertOperands(call->getNumOperands(), created);
      });
    }
    WalkResult stray = module.walk([](Operation *op) {
      auto push = dyn_cast<ks::TapePushOp>(op);
      auto pop = dyn_cast<ks::TapePopOp>(op);
      auto capacity = dyn_cast<ks::TapeCapacityOp>(op);
      if ((push && !push.getTape()) || (pop && !pop.getTape()) ||
          (capacity && !capacity.getTape())) {
        op->emitError("the CUDA target supports tapes only in kernels, not in "
                      "device functions");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(stray.wasInterrupted());
  }
};
} // namespace
