//===- KsToLLVM.cpp - The convert-ks-to-llvm pass -------------------------===//
//
// Part of ksc. See the description of `convert-ks-to-llvm` in
// include/ksc/Conversion/Passes.td. This file has the type converter, the
// pass (one dialect conversion with ksc's and the upstream patterns) and
// the kernel entries' ABI.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "ksc/Conversion/Passes.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ksc {
#define GEN_PASS_DEF_CONVERTKSTOLLVM
#include "ksc/Conversion/Passes.h.inc"
} // namespace ksc

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

KsLLVMTypeConverter::KsLLVMTypeConverter(MLIRContext *ctx)
    : LLVMTypeConverter(ctx) {
  addConversion([ctx](ks::ArrayType type) -> Type {
    Type i64 = IntegerType::get(ctx, 64);
    Type extents = LLVM::LLVMArrayType::get(i64, type.getRank());
    return LLVM::LLVMStructType::getLiteral(
        ctx, {LLVM::LLVMPointerType::get(ctx), extents, extents});
  });
  // A pointer to the tape's record in the thread's local memory.
  addConversion(
      [ctx](ks::TapeType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  addConversion([ctx](ks::GridType) -> Type {
    Type i64 = IntegerType::get(ctx, 64);
    return LLVM::LLVMStructType::getLiteral(ctx, {i64, i64, i64});
  });
  // Structs are values in their memory layout: fields of vector type are
  // converted on ks.struct_extract and ks.struct_insert.
  addConversion(
      [this](ks::StructType type) -> Type { return convertMemoryType(type); });
  // ui32 (in array and struct types only) is an i32.
  addConversion([ctx](IntegerType type) -> std::optional<Type> {
    if (type.isSignless())
      return std::nullopt;
    return IntegerType::get(ctx, type.getWidth());
  });
}

Type KsLLVMTypeConverter::convertMemoryType(Type type) const {
  MLIRContext *ctx = type.getContext();
  if (auto vector = dyn_cast<VectorType>(type)) {
    Type element = convertType(vector.getElementType());
    for (int64_t extent : llvm::reverse(vector.getShape()))
      element = LLVM::LLVMArrayType::get(element, extent);
    return element;
  }
  if (auto structType = dyn_cast<ks::StructType>(type)) {
    SmallVector<Type> fields;
    for (Type field : structType.getFieldTypes())
      fields.push_back(convertMemoryType(field));
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  }
  return convertType(type);
}

Value KsLLVMTypeConverter::toMemory(OpBuilder &b, Location loc, Value value,
                                    Type type) const {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return value;
  Type memoryType = convertMemoryType(type);
  Value memory = LLVM::PoisonOp::create(b, loc, memoryType);
  if (vector.getRank() == 1) {
    for (int64_t i = 0; i < vector.getDimSize(0); ++i) {
      Value index = LLVM::ConstantOp::create(b, loc, b.getI64IntegerAttr(i));
      Value component = LLVM::ExtractElementOp::create(b, loc, value, index);
      memory = LLVM::InsertValueOp::create(b, loc, memory, component, i);
    }
    return memory;
  }
  // A matrix: an array of LLVM vectors, one per row.
  auto rowType =
      VectorType::get(vector.getShape().drop_front(), vector.getElementType());
  for (int64_t i = 0; i < vector.getDimSize(0); ++i) {
    Value row = LLVM::ExtractValueOp::create(b, loc, value, i);
    memory = LLVM::InsertValueOp::create(b, loc, memory,
                                         toMemory(b, loc, row, rowType), i);
  }
  return memory;
}

Value KsLLVMTypeConverter::fromMemory(OpBuilder &b, Location loc, Value memory,
                                      Type type) const {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return memory;
  Value value = LLVM::PoisonOp::create(b, loc, convertType(type));
  if (vector.getRank() == 1) {
    for (int64_t i = 0; i < vector.getDimSize(0); ++i) {
      Value component = LLVM::ExtractValueOp::create(b, loc, memory, i);
      Value index = LLVM::ConstantOp::create(b, loc, b.getI64IntegerAttr(i));
      value = LLVM::InsertElementOp::create(b, loc, value, component, index);
    }
    return value;
  }
  auto rowType =
      VectorType::get(vector.getShape().drop_front(), vector.getElementType());
  for (int64_t i = 0; i < vector.getDimSize(0); ++i) {
    Value row = LLVM::ExtractValueOp::create(b, loc, memory, i);
    value = LLVM::InsertValueOp::create(b, loc, value,
                                        fromMemory(b, loc, row, rowType), i);
  }
  return value;
}

Value ksc::conversion::signExtendIndex(OpBuilder &b, Location loc,
                                       Value index) {
  Type i64 = b.getI64Type();
  if (index.getType() == i64)
    return index;
  return LLVM::SExtOp::create(b, loc, i64, index);
}

//===----------------------------------------------------------------------===//
// Kernel entries
//===----------------------------------------------------------------------===//

/// Gives the parameters of kernel entry `func` (converted from a launcher
/// whose argument types were `ksTypes`) their C++ layout: a vector or
/// matrix as its memory type, an i1 as an i8.
static void setKernelParameters(LLVM::LLVMFuncOp func, ArrayRef<Type> ksTypes,
                                const KsLLVMTypeConverter &converter) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  SmallVector<Type> parameterTypes;
  for (auto [argument, ksType] :
       llvm::zip_equal(entry.getArguments(), ksTypes)) {
    Location loc = argument.getLoc();
    Type valueType = argument.getType();
    Type cppType = valueType;
    if (isa<VectorType>(ksType))
      cppType = converter.convertMemoryType(ksType);
    else if (ksType.isInteger(1))
      cppType = b.getI8Type();
    parameterTypes.push_back(cppType);
    if (cppType == valueType)
      continue;
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        argument.getUses(), [](OpOperand &use) { return &use; });
    argument.setType(cppType);
    Value value =
        ksType.isInteger(1)
            ? Value(LLVM::TruncOp::create(b, loc, valueType, argument))
            : converter.fromMemory(b, loc, argument, ksType);
    for (OpOperand *use : uses)
      use->set(value);
  }
  func.setFunctionType(LLVM::LLVMFunctionType::get(
      func.getFunctionType().getReturnType(), parameterTypes));
}

/// Removes the ks attributes (source names, signedness) of `func` and its
/// arguments and results, which LLVM IR has no place for.
static void dropKsAttributes(LLVM::LLVMFuncOp func) {
  auto isKs = [](NamedAttribute attr) {
    return attr.getName().getValue().starts_with("ks.");
  };
  auto withoutKs = [&](DictionaryAttr attrs) {
    return DictionaryAttr::get(
        func.getContext(),
        llvm::to_vector(llvm::make_filter_range(
            attrs.getValue(), [&](NamedAttribute a) { return !isKs(a); })));
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttrs(i,
                     withoutKs(func.getArgAttrDict(i)
                                   ? func.getArgAttrDict(i)
                                   : DictionaryAttr::get(func.getContext())));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (DictionaryAttr attrs = func.getResultAttrDict(i))
      func.setResultAttrs(i, withoutKs(attrs));
  for (NamedAttribute attr : llvm::to_vector(func->getDiscardableAttrs()))
    if (isKs(attr) && attr.getName() != ks::kLaunchOfAttr)
      func->removeAttr(attr.getName());
}

/// Moves the allocas of constant size that `func` makes outside its entry
/// block (the argument buffers of the printf of failed checks) into it: an
/// alloca elsewhere is a dynamic one, which keeps LLVM's inliner from
/// inlining the function into the kernel.
static void hoistAllocas(LLVM::LLVMFuncOp func) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  SmallVector<LLVM::AllocaOp> allocas;
  func.walk([&](LLVM::AllocaOp alloca) {
    if (alloca->getBlock() != &entry &&
        alloca.getArraySize().getDefiningOp<LLVM::ConstantOp>())
      allocas.push_back(alloca);
  });
  for (LLVM::AllocaOp alloca : allocas) {
    Operation *size = alloca.getArraySize().getDefiningOp();
    if (size->hasOneUse())
      size->moveBefore(&entry, entry.begin());
    else
      size = size->clone();
    if (size->getBlock() != &entry) {
      entry.getOperations().insert(entry.begin(), size);
      alloca.getArraySizeMutable().assign(size->getResult(0));
    }
    alloca->moveAfter(size);
  }
}

namespace {
struct ConvertKsToLLVM
    : public ksc::impl::ConvertKsToLLVMBase<ConvertKsToLLVM> {
  using ConvertKsToLLVMBase::ConvertKsToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    // The kernel parameters' ks types, before conversion erases them.
    llvm::StringMap<SmallVector<Type>> launcherTypes;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(ks::kLaunchOfAttr))
        launcherTypes[func.getSymName()] =
            llvm::to_vector(func.getArgumentTypes());

    if (failed(checkReductions(module)))
      return signalPassFailure();

    // Vector operations the LLVM conversion expects lowered first.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      vector::populateVectorFromElementsUnrollPatterns(patterns);
      populateMatrixAccessPatterns(patterns);
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }

    KsLLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateMemoryToLLVMPatterns(converter, patterns);
    populateChecksToLLVMPatterns(converter, patterns);
    populateStructsToLLVMPatterns(converter, patterns);
    populateTapesToLLVMPatterns(converter, patterns);
    populateReductionsToLLVMPatterns(converter, patterns);
    // libdevice where it has the function, LLVM intrinsics for the rest.
    populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
    populateMathToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateGpuToNVVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<ks::KsDialect, gpu::GPUDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    finishKernels(module, converter, launcherTypes);
  }

  /// Renames launchers to their kernel's name (and thread functions out of
  /// the way), marks them as kernels and gives their parameters the C++
  /// layout; every other function becomes internal.
  void finishKernels(ModuleOp module, const KsLLVMTypeConverter &converter,
                     const llvm::StringMap<SmallVector<Type>> &launcherTypes) {
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    SmallVector<LLVM::LLVMFuncOp> launchers;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      dropKsAttributes(func);
      hoistAllocas(func);
      if (func->hasAttr(ks::kLaunchOfAttr))
        launchers.push_back(func);
      else if (!func.isExternal()) {
        func.setLinkage(LLVM::Linkage::Internal);
        func->removeAttr(SymbolTable::getVisibilityAttrName());
      }
    }
    DenseMap<StringAttr, StringAttr> renames;
    for (LLVM::LLVMFuncOp launcher : launchers) {
      auto kernel = cast<StringAttr>(launcher->getAttr(ks::kLaunchOfAttr));
      if (symbols.lookup(kernel))
        renames[kernel] = StringAttr::get(ctx, kernel.getValue() + ".thread");
      setKernelParameters(launcher, launcherTypes.lookup(launcher.getName()),
                          converter);
      renames[launcher.getNameAttr()] = kernel;
      launcher->removeAttr(ks::kLaunchOfAttr);
      launcher->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                        UnitAttr::get(ctx));
      if (blockSize)
        launcher->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                          DenseI32ArrayAttr::get(ctx, {int32_t(blockSize)}));
    }
    renameSymbols(module, renames);
  }

  /// Renames the symbols of `module` as `renames` says, and their uses, in
  /// one walk of the module (SymbolTable::rename walks it for each symbol,
  /// which made PTX quadratic in the number of kernels).
  static void renameSymbols(ModuleOp module,
                            const DenseMap<StringAttr, StringAttr> &renames) {
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](SymbolRefAttr ref) -> std::optional<Attribute> {
      StringAttr root = renames.lookup(ref.getRootReference());
      if (!root)
        return std::nullopt;
      return SymbolRefAttr::get(root, ref.getNestedReferences());
    });
    for (Operation &op : *module.getBody()) {
      replacer.recursivelyReplaceElementsIn(&op, /*replaceAttrs=*/true,
                                            /*replaceLocs=*/false,
                                            /*replaceTypes=*/false);
      if (auto symbol = dyn_cast<SymbolOpInterface>(op))
        if (StringAttr name = renames.lookup(symbol.getNameAttr()))
          symbol.setName(name);
    }
  }
};
} // namespace
