//===- InitAll.cpp - Register everything ksc provides -----------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/InitAll.h"
#include "ksc/Conversion/Passes.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void ksc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<ks::KsDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::NVVM::NVVMDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  ks::registerDerivativeExternalModels(registry);
}

void ksc::registerAllPasses() {
  ks::registerKsPasses();
  registerKscConversionPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  mlir::registerPass([] { return mlir::createReconcileUnrealizedCastsPass(); });
}
