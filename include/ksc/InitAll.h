//===- InitAll.h - Register everything ksc provides ---------*- C++ -*-===//
//
// Part of ksc. The one registration header: every tool registers the
// dialects and passes of ksc through these functions (lib/Driver/InitAll.cpp,
// out of line: the dialects' headers take GCC half a minute to parse).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_INITALL_H
#define KSC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ksc {

/// The dialects ksc's IR is made of: ks, arith, cf, func, gpu, llvm, math,
/// nvvm, scf and vector.
void registerAllDialects(mlir::DialectRegistry &registry);

/// ksc's passes, and the upstream passes its pipelines use.
void registerAllPasses();

} // namespace ksc

#endif // KSC_INITALL_H
