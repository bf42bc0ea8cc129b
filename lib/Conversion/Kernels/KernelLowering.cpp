//===- KernelLowering.cpp - What the CPU and CUDA lowerings share ------===//
//
// Part of ksc. See KernelLowering.h.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

std::string ksc::conversion::launcherName(StringRef kernel) {
  return ("launch_" + kernel).str();
}

/// A `func.func` named and typed like `op` whose arguments carry `ks.name`
/// attributes: `leading` first (if given), then the names of `op`.
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

ThreadFunction
ksc::conversion::createThreadFunction(ConversionPatternRewriter &rewriter,
                                      ks::KernelOp kernel) {
  Location loc = kernel.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type i32 = rewriter.getI32Type();
  FunctionType kernelType = kernel.getFunctionType();
  ThreadFunction result;

  SmallVector<ks::TidOp> tids;
  kernel.walk([&](ks::TidOp op) { tids.push_back(op); });
  for (int kind : {kFlat, 0, 1, 2})
    if (llvm::any_of(tids, [&](ks::TidOp op) { return tidKind(op) == kind; }))
      result.kinds.push_back(kind);
  for (int kind : {kFlat, 0, 1, 2})
    result.nameOf[kind + 1] = tidParamName(tids, kind);

  SmallVector<Type> threadInputs(result.kinds.size(), i32);
  llvm::append_range(threadInputs, kernelType.getInputs());
  rewriter.setInsertionPoint(kernel);
  auto thread = func::FuncOp::create(rewriter, loc, kernel.getSymName(),
                                     FunctionType::get(ctx, threadInputs, {}));
  thread.setPrivate();
  for (auto [index, kind] : llvm::enumerate(result.kinds))
    thread.setArgAttr(index, kNameAttr,
                      rewriter.getStringAttr(result.nameOf[kind + 1]));
  unsigned leading = result.kinds.size();
  for (unsigned i = 0, e = kernelType.getNumInputs(); i < e; ++i) {
    if (StringRef argName = kernel.getArgName(i); !argName.empty())
      thread.setArgAttr(i + leading, kNameAttr,
                        rewriter.getStringAttr(argName));
    if (Attribute value = kernel.getArgAttr(i, ks::kUnsignedAttr))
      thread.setArgAttr(i + leading, ks::kUnsignedAttr, value);
  }
  if (Attribute names = kernel->getAttr(kUnsignedNamesAttr))
    thread->setAttr(kUnsignedNamesAttr, names);
  rewriter.inlineRegionBefore(kernel.getBody(), thread.getBody(), thread.end());
  TypeConverter::SignatureConversion signature(kernelType.getNumInputs());
  signature.addInputs(SmallVector<Type>(leading, i32));
  for (auto [index, type] : llvm::enumerate(kernelType.getInputs()))
    signature.addInputs(index, type);
  Block *entry =
      rewriter.applySignatureConversion(&thread.getBody().front(), signature);
  for (ks::TidOp op : tids)
    rewriter.replaceOp(
        op, entry->getArgument(llvm::find(result.kinds, tidKind(op)) -
                               result.kinds.begin()));
  result.func = thread;
  return result;
}

func::FuncOp
ksc::conversion::createLauncher(ConversionPatternRewriter &rewriter,
                                ks::KernelOp kernel) {
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<Type> launchInputs = {ks::GridType::get(ctx)};
  llvm::append_range(launchInputs, kernel.getFunctionType().getInputs());
  func::FuncOp launcher =
      createFunction(rewriter, kernel, launcherName(kernel.getSymName()),
                     FunctionType::get(ctx, launchInputs, {}), "dim");
  launcher->setAttr(kLaunchOfAttr, rewriter.getStringAttr(kernel.getSymName()));
  return launcher;
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
} // namespace

SmallVector<Value, 3> ksc::conversion::gridCoordinates(OpBuilder &b,
                                                        Location loc,
                                                        Value grid, Value flat,
                                                        const std::string *nameOf) {
  Type type = flat.getType();
  auto extent = [&](int64_t dim) -> Value {
    Value value = ks::GridExtentOp::create(b, loc, grid, dim);
    if (type.isInteger(64))
      return value;
    return arith::TruncIOp::create(b, loc, type, value);
  };
  auto named = [&](int dim) {
    return !nameOf || nameOf[dim + 1].empty()
               ? loc
               : Location(NameLoc::get(b.getStringAttr(nameOf[dim + 1]), loc));
  };
  // Both extents are read before the divisions: the C++ emitter prints them
  // where they are used.
  Value ys = extent(1), zs = extent(2);
  Value rows = arith::DivSIOp::create(b, loc, flat, zs);
  Value z = arith::RemSIOp::create(b, named(2), flat, zs);
  Value y = arith::RemSIOp::create(b, named(1), rows, ys);
  Value x = arith::DivSIOp::create(b, named(0), rows, ys);
  return {x, y, z};
}

void ksc::conversion::populateFunctionLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuncOpLowering, ReturnOpLowering, CallOpLowering>(
      patterns.getContext());
}

void ksc::conversion::addLegalKsOps(ConversionTarget &target) {
  target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                         math::MathDialect, scf::SCFDialect>();
  target.addLegalOp<ModuleOp, ks::LoadOp, ks::StoreOp, ks::AtomicRMWOp,
                    ks::DimOp, ks::SliceOp, ks::CheckBoundsOp, ks::CheckIndexOp,
                    ks::AsConstOp, ks::GridExtentOp, ks::GridSizeOp,
                    ks::RandInitOp, ks::RandIOp, ks::RandFOp, ks::RandNOp,
                    ks::StructMakeOp, ks::StructExtractOp, ks::StructInsertOp,
                    ks::TapePushOp, ks::TapePopOp,
                    ks::TapeCapacityOp>();
  target.addIllegalOp<ks::KernelOp, ks::FuncOp, ks::ReturnOp, ks::CallOp,
                      ks::TidOp>();
}

LogicalResult ksc::conversion::checkLauncherNames(ModuleOp module) {
  SymbolTable symbols(module);
  bool clash = false;
  for (auto kernel : module.getOps<ks::KernelOp>())
    if (Operation *other = symbols.lookup(launcherName(kernel.getSymName()))) {
      other->emitError() << "the name '" << launcherName(kernel.getSymName())
                         << "' is reserved for the launcher of kernel '"
                         << kernel.getSymName() << "'";
      clash = true;
    }
  return failure(clash);
}
