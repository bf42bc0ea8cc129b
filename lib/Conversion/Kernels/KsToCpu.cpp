//===- KsToCpu.cpp - Lower kernels to CPU functions and launch loops --===//
//
// Part of ksc. See the description of `convert-ks-to-cpu` in
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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ksc {
#define GEN_PASS_DEF_CONVERTKSTOCPU
#include "ksc/Conversion/Passes.h.inc"
} // namespace ksc

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

namespace {
/// The fewest threads per chunk of a parallel launch whose kernel has no
/// loop (cheap threads: a chunk must outweigh claiming it), and of one
/// whose kernel has loops (utils/bench/run-cpu-bench.sh times both kinds).
static constexpr int64_t kStraightLineGrain = 1024;
static constexpr int64_t kLoopGrain = 1;

/// How a launch passes a kernel's array argument to its threads.
enum class SumKind {
  /// As it is.
  None,
  /// As an accumulator of the launch (`accumulatorSize` elements).
  Accumulator,
  /// As a copy private to each OS thread (parallel launches only).
  PerWorker,
};

struct ArgPlan {
  SumKind kind = SumKind::None;
  int64_t accumulatorSize = 0;
};

/// How the launcher of a kernel runs it.
struct LaunchPlan {
  SmallVector<ArgPlan> args;
  /// Whether the kernel has a loop (its threads are not all cheap).
  bool hasLoops = false;
  /// Whether the launcher runs chunks of threads on several OS threads.
  bool parallel = true;
};

/// How a launch passes array argument `arg` (see Accumulations.h): a sum
/// at constant indices (such as the adjoint of a scalar argument) in a
/// `ks.accumulator`; a scattered sum with updates inside a loop (so that a
/// thread updates many elements, as the adjoint of an n-body loop does), in
/// a parallel launch, in a copy per OS thread.
static ArgPlan planArgument(BlockArgument arg, bool parallel) {
  ArgumentSums sums = classifySums(arg);
  if (sums.kind == SumClass::Uniform)
    return {SumKind::Accumulator, sums.size};
  if (sums.kind == SumClass::Scattered && parallel && sums.inLoop)
    return {SumKind::PerWorker, 0};
  return {};
}

/// Plans the launch of `kernel` and marks the atomic updates its threads make
/// in memory no other OS thread accesses meanwhile `exclusive`: those of
/// accumulators and per-thread copies, and every one of a serial launch.
/// With `deterministic`, a kernel whose results could depend on the order
/// of its atomic updates gets a serial launch.
static LaunchPlan planLaunch(ks::KernelOp kernel, bool parallel,
                             bool deterministic, SymbolTable &symbols) {
  LaunchPlan plan;
  for (BlockArgument arg : kernel.getArguments())
    plan.args.push_back(planArgument(arg, parallel));
  auto isPrivateSum = [&](ks::AtomicRMWOp atomic) {
    auto arg = dyn_cast<BlockArgument>(atomic.getArray());
    return arg && arg.getOwner()->getParentOp() == kernel &&
           plan.args[arg.getArgNumber()].kind != SumKind::None;
  };
  if (parallel && deterministic) {
    bool orderDependent =
        llvm::any_of(plan.args,
                     [](const ArgPlan &arg) {
                       return arg.kind == SumKind::PerWorker;
                     }) ||
        findOrderDependentAtomic(kernel, symbols, isPrivateSum);
    if (orderDependent)
      return planLaunch(kernel, /*parallel=*/false, false, symbols);
  }
  plan.parallel = parallel;
  kernel.walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface>(op))
      plan.hasLoops = true;
    if (auto atomic = dyn_cast<ks::AtomicRMWOp>(op))
      if (!parallel || isPrivateSum(atomic))
        atomic.setExclusive(true);
  });
  return plan;
}

/// `ks.kernel @k` becomes `func.func private @k(<indices>, ...)`, one thread
/// of the kernel, which receives the thread indices it reads as leading
/// `i32` arguments, plus the launcher `func.func @launch_k(%dim: !ks.grid,
/// ...)`, which runs every thread of the grid.
struct KernelOpLowering : public OpConversionPattern<ks::KernelOp> {
  KernelOpLowering(MLIRContext *ctx,
                   const llvm::DenseMap<Operation *, LaunchPlan> &plans)
      : OpConversionPattern(ctx), plans(plans) {}

  LogicalResult
  matchAndRewrite(ks::KernelOp kernel, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = kernel.getLoc();
    const LaunchPlan &plan = plans.at(kernel);
    ThreadFunction thread = createThreadFunction(rewriter, kernel);

    rewriter.setInsertionPointAfter(thread.func);
    func::FuncOp launcher = createLauncher(rewriter, kernel);
    Block *body = launcher.addEntryBlock();
    rewriter.setInsertionPointToStart(body);
    Value grid = body->getArgument(0);
    SmallVector<Value> kernelArgs(body->getArguments().drop_front());
    auto sumName = [&](unsigned index, StringRef suffix) {
      StringRef argName = kernel.getArgName(index);
      return NameLoc::get(rewriter.getStringAttr(
          argName.empty() ? ("sum" + suffix).str()
                          : (argName + "_" + suffix).str()));
    };
    if (plan.parallel)
      buildParallelLaunch(rewriter, loc, plan, thread, grid, kernelArgs,
                          sumName);
    else
      buildSerialLaunch(rewriter, loc, plan, thread, grid, kernelArgs,
                        sumName);
    rewriter.setInsertionPointToEnd(body);
    func::ReturnOp::create(rewriter, loc);
    rewriter.eraseOp(kernel);
    return success();
  }

private:
  using NameFn = llvm::function_ref<Location(unsigned, StringRef)>;

  /// Calls the thread function for every thread of `flat`'s loop: the
  /// coordinates it reads come from the flat index, row-major.
  static void callThread(OpBuilder &b, Location loc,
                         const ThreadFunction &thread, Value grid, Value flat,
                         ValueRange kernelArgs) {
    SmallVector<Value> args;
    SmallVector<Value, 3> coords;
    if (llvm::any_of(thread.kinds, [](int kind) { return kind != kFlat; }))
      coords = gridCoordinates(b, loc, grid, flat, thread.nameOf);
    for (int kind : thread.kinds)
      args.push_back(kind == kFlat ? flat : coords[kind]);
    llvm::append_range(args, kernelArgs);
    func::CallOp::create(b, loc, thread.func, args);
  }

  /// The launcher of `--cpu-launch=serial`: the threads one after another in
  /// row-major order, one loop over all of them when the kernel reads only
  /// tid(), else a loop per dimension of the grid; accumulators of the
  /// launch for its sums.
  void buildSerialLaunch(ConversionPatternRewriter &rewriter, Location loc,
                         const LaunchPlan &plan, const ThreadFunction &thread,
                         Value grid, SmallVector<Value> kernelArgs,
                         NameFn sumName) const {
    MLIRContext *ctx = rewriter.getContext();
    Type i32 = rewriter.getI32Type();
    SmallVector<std::pair<Value, Value>> accumulators;
    for (auto [index, arg] : llvm::enumerate(plan.args)) {
      if (arg.kind != SumKind::Accumulator)
        continue;
      Value array = kernelArgs[index];
      kernelArgs[index] = ks::AccumulatorOp::create(
          rewriter, sumName(index, "sum"), array, arg.accumulatorSize);
      accumulators.push_back({kernelArgs[index], array});
    }
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
    ArrayRef<int> kinds = thread.kinds;
    if (llvm::all_of(kinds, [](int kind) { return kind == kFlat; })) {
      Value flat = loopOver(extent(std::nullopt), "tid");
      if (!kinds.empty())
        args.push_back(flat);
    } else {
      // Each extent is read where it is used (a member read), so that the
      // C++ reads `c < int(dim.y)` rather than naming temporaries.
      SmallVector<Value> coords;
      for (int64_t dim = 0; dim < 3; ++dim)
        coords.push_back(loopOver(extent(dim), thread.nameOf[dim + 1]));
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
            rewriter, NameLoc::get(rewriter.getStringAttr(thread.nameOf[0]), loc),
            flat, coords[2], nsw);
        args.push_back(flat);
      }
    }
    llvm::append_range(args, kernelArgs);
    func::CallOp::create(rewriter, loc, thread.func, args);
    rewriter.setInsertionPointToEnd(grid.getParentBlock());
    for (auto [sum, array] : accumulators)
      ks::FlushAccumulatorOp::create(rewriter, loc, sum, array, false, Value());
  }

  /// The launcher of `--cpu-launch=parallel`: a `ks.parallel_launch` whose
  /// body runs a range of threads in order.
  void buildParallelLaunch(ConversionPatternRewriter &rewriter, Location loc,
                           const LaunchPlan &plan,
                           const ThreadFunction &thread, Value grid,
                           SmallVector<Value> kernelArgs,
                           NameFn sumName) const {
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> sums, privates;
    SmallVector<int64_t> sizes;
    SmallVector<unsigned> sumArgs, privateArgs;
    for (auto [index, arg] : llvm::enumerate(plan.args)) {
      if (arg.kind == SumKind::Accumulator) {
        sums.push_back(kernelArgs[index]);
        sizes.push_back(arg.accumulatorSize);
        sumArgs.push_back(index);
      } else if (arg.kind == SumKind::PerWorker) {
        privates.push_back(kernelArgs[index]);
        privateArgs.push_back(index);
      }
    }
    auto launch = ks::ParallelLaunchOp::create(
        rewriter, loc, grid, plan.hasLoops ? kLoopGrain : kStraightLineGrain,
        sums, sizes, privates);
    Block *body = rewriter.createBlock(&launch.getBody());
    auto named = [&](StringRef name) {
      return NameLoc::get(rewriter.getStringAttr(name), loc);
    };
    Value begin = body->addArgument(i32, named("begin"));
    Value end = body->addArgument(i32, named("end"));
    for (unsigned index : sumArgs)
      kernelArgs[index] =
          body->addArgument(kernelArgs[index].getType(), sumName(index, "sum"));
    for (unsigned index : privateArgs)
      kernelArgs[index] = body->addArgument(kernelArgs[index].getType(),
                                            sumName(index, "part"));
    rewriter.setInsertionPointToStart(body);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
    auto loop = scf::ForOp::create(rewriter, named("tid"), begin,
                                   end, one);
    rewriter.setInsertionPointToStart(loop.getBody());
    callThread(rewriter, loc, thread, grid, loop.getInductionVar(),
               kernelArgs);
    rewriter.setInsertionPointToEnd(body);
    ks::ParallelYieldOp::create(rewriter, loc);
    rewriter.setInsertionPointAfter(launch);
  }

  const llvm::DenseMap<Operation *, LaunchPlan> &plans;
};

struct ConvertKsToCpu : public ksc::impl::ConvertKsToCpuBase<ConvertKsToCpu> {
  using ConvertKsToCpuBase::ConvertKsToCpuBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkLauncherNames(module)))
      return signalPassFailure();

    llvm::DenseMap<Operation *, LaunchPlan> plans;
    SymbolTable symbols(module);
    for (auto kernel : module.getOps<ks::KernelOp>())
      plans[kernel] = planLaunch(kernel, parallel, deterministic, symbols);

    ConversionTarget target(getContext());
    addLegalKsOps(target);
    target.addLegalOp<ks::AccumulatorOp, ks::FlushAccumulatorOp,
                      ks::ParallelLaunchOp, ks::ParallelYieldOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<KernelOpLowering>(&getContext(), plans);
    populateFunctionLoweringPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
