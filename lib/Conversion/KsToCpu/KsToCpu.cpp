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
  for (unsigned i = 0, e = op.getFunctionType().getNumInputs(); i < e; ++i)
    if (StringRef argName = op.getArgName(i); !argName.empty())
      func.setArgAttr(i + offset, kNameAttr, rewriter.getStringAttr(argName));
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
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `ks.kernel @k` becomes `func.func private @k(%tid: i32, ...)` plus the
/// launcher `func.func @launch_k(%dim: i64, ...)`.
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

    // The body of one thread: the thread index comes first, named like the
    // variable the source keeps it in (`int i = tid();`) when there is one.
    SmallVector<ks::TidOp> tids;
    kernel.walk([&](ks::TidOp op) { tids.push_back(op); });
    StringRef tidName = tids.empty() ? "" : getNameFromLoc(tids[0].getLoc());
    for (ks::TidOp op : tids)
      if (getNameFromLoc(op.getLoc()) != tidName)
        tidName = "";
    SmallVector<Type> threadInputs = {i32};
    llvm::append_range(threadInputs, kernelType.getInputs());
    func::FuncOp thread = createFunction(
        rewriter, kernel, name, FunctionType::get(ctx, threadInputs, {}),
        tidName.empty() ? "tid" : tidName);
    thread.setPrivate();
    rewriter.inlineRegionBefore(kernel.getBody(), thread.getBody(),
                                thread.end());
    TypeConverter::SignatureConversion signature(kernelType.getNumInputs());
    signature.addInputs(i32);
    for (auto [index, type] : llvm::enumerate(kernelType.getInputs()))
      signature.addInputs(index, type);
    Block *entry =
        rewriter.applySignatureConversion(&thread.getBody().front(), signature);
    Value tid = entry->getArgument(0);
    for (ks::TidOp op : tids)
      rewriter.replaceOp(op, tid);

    // The launcher runs every thread of a 1-D launch, one after another.
    rewriter.setInsertionPointAfter(thread);
    SmallVector<Type> launchInputs = {rewriter.getI64Type()};
    llvm::append_range(launchInputs, kernelType.getInputs());
    func::FuncOp launcher =
        createFunction(rewriter, kernel, launcherName(name),
                       FunctionType::get(ctx, launchInputs, {}), "dim");
    launcher->setAttr("ks.launch_of", rewriter.getStringAttr(name));
    Block *body = launcher.addEntryBlock();
    rewriter.setInsertionPointToStart(body);
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
    Value count =
        arith::TruncIOp::create(rewriter, loc, i32, body->getArgument(0));
    auto loop = scf::ForOp::create(
        rewriter, NameLoc::get(rewriter.getStringAttr("tid"), loc), zero, count,
        one);
    rewriter.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> args = {loop.getInductionVar()};
    llvm::append_range(args, body->getArguments().drop_front());
    func::CallOp::create(rewriter, loc, thread, args);
    rewriter.setInsertionPointToEnd(body);
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
    rewriter.replaceOpWithNewOp<func::CallOp>(
        op, op.getCalleeAttr(), op.getResultTypes(), adaptor.getOperands());
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
    target.addLegalOp<ModuleOp, ks::LoadOp, ks::StoreOp, ks::DimOp,
                      ks::CheckBoundsOp, ks::AsConstOp>();
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
