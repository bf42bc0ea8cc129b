//===- IncrementalFrontendTest.cpp - One Clang instance, many sources -===//
//
// Part of ksc. IncrementalFrontend must give, source after source, exactly
// what a fresh compilation (FrontendSession::import) gives: the same module
// with the same locations, and after errors the same diagnostics. Sources
// must not see each other's declarations.
//
//===----------------------------------------------------------------------===//

#include "ksc/Frontend/Frontend.h"
#include "ksc/Synth/Forms.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace ksc;

namespace {

class IncrementalFrontendTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ksc-incremental", dir));
    llvm::SmallString<128> pch(dir);
    llvm::sys::path::append(pch, "prelude.pch");
    session = FrontendSession::create(FrontendOptions(), pch);
    ASSERT_TRUE(session);
    incremental = std::make_unique<IncrementalFrontend>(*session);
    context = synth::createCompilerContext();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// The module (with locations) or, after errors, the diagnostics.
  std::string outcome(FrontendResult result, const std::string &diagnostics) {
    if (!result.success)
      return "error:\n" + diagnostics;
    std::string text;
    llvm::raw_string_ostream os(text);
    result.module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
    return text;
  }

  /// Compiles `source` both ways and expects the same outcome; returns it.
  std::string expectSame(llvm::StringRef name, llvm::StringRef source) {
    std::string freshDiagnostics, incrementalDiagnostics;
    llvm::raw_string_ostream freshStream(freshDiagnostics),
        incrementalStream(incrementalDiagnostics);
    std::string fresh = outcome(
        session->import(*context, name, source, freshStream), freshDiagnostics);
    std::string parsed = outcome(
        incremental->import(*context, name, source, incrementalStream),
        incrementalDiagnostics);
    EXPECT_EQ(parsed, fresh) << "source " << name.str() << ":\n" << source.str();
    return parsed;
  }

  llvm::SmallString<128> dir;
  std::unique_ptr<FrontendSession> session;
  std::unique_ptr<IncrementalFrontend> incremental;
  std::unique_ptr<mlir::MLIRContext> context;
};

constexpr llvm::StringLiteral kHelper = R"(
KSC_FUNC float twice(float x) { return 2.0f * x; }
template <typename T> KSC_FUNC T square(T x) { return x * x; }
KSC_KERNEL void scale(array<float> a) {
  int i = tid();
  a[i] = twice(a[i]) + square(a[i]);
}
)";

TEST_F(IncrementalFrontendTest, SourcesSeeThePreludeAndNotEachOther) {
  std::string first = expectSame("first.kdsl", kHelper);
  EXPECT_NE(first.find("ks.kernel @scale"), std::string::npos) << first;
  // The same names again, with other definitions and signatures: no
  // redefinition, no overloads of the earlier ones.
  expectSame("second.kdsl", R"(
KSC_FUNC float twice(float x) { return x + x + 1.0f; }
template <typename T> KSC_FUNC T square(T x, T y) { return x * y; }
KSC_KERNEL void scale(array<double> a, double s) {
  a[tid()] = double(twice(float(s))) + square(a[tid()], s);
}
)");
  EXPECT_EQ(incremental->fallbacks(), 0u);
  // A name only an earlier source declared is undeclared: an error, whose
  // diagnostics are a fresh compilation's.
  std::string undeclared = expectSame("third.kdsl", R"(
KSC_KERNEL void use(array<float> a) { a[tid()] = twice(a[tid()]); }
)");
  EXPECT_NE(undeclared.find("third.kdsl:2:"), std::string::npos) << undeclared;
  EXPECT_NE(undeclared.find("undeclared identifier 'twice'"),
            std::string::npos)
      << undeclared;
  EXPECT_EQ(incremental->fallbacks(), 1u);
  // After an error the next source starts afresh.
  expectSame("fourth.kdsl", kHelper);
  EXPECT_EQ(incremental->fallbacks(), 1u);
}

TEST_F(IncrementalFrontendTest, KsErrorsAndDirectivesCompileAfresh) {
  // An error of ksc's own (not Clang's) has a fresh compilation's
  // diagnostics too.
  std::string recursive = expectSame("recursive.kdsl", R"(
KSC_FUNC float f(float x) { return x > 1.0f ? f(x - 1.0f) : x; }
KSC_KERNEL void k(array<float> a) { a[tid()] = f(a[tid()]); }
)");
  EXPECT_EQ(recursive.rfind("error:", 0), 0u) << recursive;
  EXPECT_EQ(incremental->fallbacks(), 1u);
  // Macros would outlive the source: it is compiled afresh.
  expectSame("macro.kdsl", R"(#define N 4
KSC_KERNEL void k(array<float> a) { a[tid()] = float(N); }
)");
  EXPECT_EQ(incremental->fallbacks(), 2u);
  expectSame("after.kdsl", R"(
KSC_KERNEL void k(array<float> a, int n) { a[tid()] = float(n); }
)");
  EXPECT_EQ(incremental->fallbacks(), 2u);
}

TEST_F(IncrementalFrontendTest, ManySourcesOverSeveralInstances) {
  // More sources than one instance takes (it is replaced every few
  // hundred), each with the names of the one before.
  for (int i = 0; i < 450; ++i) {
    std::string source = "KSC_FUNC float f(float x) { return x * " +
                         std::to_string(i) + ".0f; }\n"
                         "KSC_KERNEL void k(array<float> a) { a[tid()] = "
                         "f(a[tid()]); }\n";
    std::string name = "k" + std::to_string(i) + ".kdsl";
    if (i % 50 == 0) {
      expectSame(name, source);
      continue;
    }
    std::string diagnostics;
    llvm::raw_string_ostream stream(diagnostics);
    FrontendResult result =
        incremental->import(*context, name, source, stream);
    ASSERT_TRUE(result.success) << diagnostics;
  }
  EXPECT_EQ(incremental->fallbacks(), 0u);
}

} // namespace
