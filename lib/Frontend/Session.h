//===- Session.h - What a FrontendSession keeps ------------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Frontend: shared by FrontendSession
// (Frontend.cpp) and IncrementalFrontend (Incremental.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_FRONTEND_SESSION_H
#define KSC_LIB_FRONTEND_SESSION_H

#include "ksc/Frontend/Frontend.h"

#include "clang/Frontend/CompilerInvocation.h"

#include <memory>

namespace ksc {

struct FrontendSession::Impl {
  /// The cc1 invocation for a kernel file, its input to be replaced: the
  /// prelude comes from a precompiled header.
  std::shared_ptr<clang::CompilerInvocation> invocation;
};

} // namespace ksc

#endif // KSC_LIB_FRONTEND_SESSION_H
