//===- ForwardADStub.cpp - Placeholder forward-mode pipelines ---------===//
//
// Part of ksc. TEMPORARY, branch `runner` only: the forward-mode pass and
// the real definitions of these pipelines land on main separately (in
// Driver.cpp); until then ksc-run links against these, which add no
// tangent kernels (ksc-run then reports that the kernel has none). Delete
// this file when merging main.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/Driver.h"

void ksc::addForwardADPasses(mlir::OpPassManager &pm,
                             llvm::ArrayRef<std::string> wrt, unsigned width) {
}

void ksc::addHessianVectorPasses(mlir::OpPassManager &pm,
                                 llvm::ArrayRef<std::string> wrt) {
  addReverseADPasses(pm, wrt);
}
