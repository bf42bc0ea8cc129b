//===- KsToCuda.cpp - Lower kernels to CUDA thread functions and kernels ===//
//
// Part of ksc. See the description of `convert-ks-to-cuda` in
// include/ksc/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

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

/// The attribute of a CUDA launcher that says how it covers the grid.
static constexpr llvm::StringLiteral kCudaLaunchAttr = "ks.cuda_launch";

namespace {
struct KernelOpLowering : public OpConversionPattern<ks::KernelOp> {
  KernelOpLowering(MLIRContext *ctx, bool gridStride)
      : OpConversionPattern(ctx), gridStride(gridStride) {}

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

    ThreadFunction thread = createThreadFunction(rewriter, kernel);
    rewriter.setInsertionPointAfter(thread.func);
    func::FuncOp launcher = createLauncher(rewriter, kernel);
    launcher->setAttr(
        kCudaLaunchAttr,
        rewriter.getStringAttr(gridStride ? "grid-stride" : "guarded"));
    Block *body = launcher.addEntryBlock();
    rewriter.setInsertionPointToStart(body);
    Value grid = body->getArgument(0);

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
      Value coords[3];
      if (llvm::any_of(thread.kinds, [](int kind) { return kind != kFlat; })) {
        Value ys = ks::GridExtentOp::create(rewriter, loc, grid, 1);
        Value zs = ks::GridExtentOp::create(rewriter, loc, grid, 2);
        Value rows = arith::DivSIOp::create(rewriter, loc, flat, zs);
        coords[2] = arith::RemSIOp::create(rewriter, loc, flat, zs);
        coords[1] = arith::RemSIOp::create(rewriter, loc, rows, ys);
        coords[0] = arith::DivSIOp::create(rewriter, loc, rows, ys);
      }
      // The grid has at most 2^31 - 1 threads (the host launch function
      // checks): every index fits the kernel's int.
      // (The flat index keeps its name in 64 bits, `flat`.)
      for (int kind : thread.kinds)
        args.push_back(arith::TruncIOp::create(
            rewriter, kind == kFlat ? loc : named(thread.nameOf[kind + 1]), i32,
            kind == kFlat ? flat : coords[kind]));
      llvm::append_range(args, body->getArguments().drop_front());
      func::CallOp::create(rewriter, loc, thread.func, args);
    };

    if (gridStride) {
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
    func::ReturnOp::create(rewriter, loc);
    rewriter.eraseOp(kernel);
    return success();
  }

  bool gridStride;
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
    // A thread's tape lives in host memory; GPU threads need their own
    // (a buffer per launch), which this lowering does not make yet.
    WalkResult tape = module.walk([](Operation *op) {
      if (!isa<ks::TapePushOp, ks::TapePopOp>(op))
        return WalkResult::advance();
      Operation *owner = op;
      while (owner && !isa<ks::KernelOp, ks::FuncOp>(owner))
        owner = owner->getParentOp();
      InFlightDiagnostic diag =
          op->emitError("the CUDA target does not support kernels that keep "
                        "values on a tape yet (adjoints of loops whose "
                        "values they cannot recompute)");
      if (auto kernel = dyn_cast_or_null<ks::KernelOp>(owner))
        diag.attachNote(kernel.getLoc())
            << "in kernel '" << kernel.getSymName() << "'";
      return WalkResult::interrupt();
    });
    if (tape.wasInterrupted() || failed(checkLauncherNames(module)))
      return signalPassFailure();

    ConversionTarget target(getContext());
    addLegalKsOps(target);
    target.addLegalDialect<gpu::GPUDialect>();
    RewritePatternSet patterns(&getContext());
    patterns.add<KernelOpLowering>(&getContext(), launch == "grid-stride");
    populateFunctionLoweringPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
