//===- compile.cpp - libFuzzer target: a kernel file through ksc ----------===//
//
// Part of ksc. Compiles each input as a kernel file and makes every form
// ksc prints of it (ks IR, CPU C++, CUDA C++ and PTX, of the kernel and of
// its derivative kernels, as `ksc-synth` does), through a fresh Clang
// instance per input reading the prelude's precompiled header. Errors in
// the input are expected; a crash, a sanitizer report, a hang or a leak is
// a bug. KSC_FUZZ_FORMS (a `ksc-synth --forms` list) picks fewer forms.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/Driver.h"
#include "ksc/Synth/Forms.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>

using namespace ksc;
using namespace ksc::synth;

namespace {
/// What every input shares: the precompiled prelude (in a temporary
/// directory, removed at exit), the compiler and the forms to make.
struct Fuzzer {
  llvm::SmallString<128> dir;
  std::unique_ptr<FrontendSession> session;
  std::unique_ptr<RecordCompiler> compiler;
  FormSet forms = FormSet::all();

  ~Fuzzer() {
    compiler.reset();
    session.reset();
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }
};
} // namespace

static Fuzzer *fuzzer;

static void removeFuzzer() { delete fuzzer; }

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzzer = new Fuzzer();
  std::atexit(removeFuzzer);
  if (const char *list = std::getenv("KSC_FUZZ_FORMS")) {
    std::string error;
    std::optional<FormSet> forms = FormSet::parse(list, error);
    if (!forms) {
      llvm::errs() << "ksc-fuzz-compile: KSC_FUZZ_FORMS: " << error << "\n";
      std::exit(2);
    }
    fuzzer->forms = *forms;
  }
  if (llvm::sys::fs::createUniqueDirectory("ksc-fuzz", fuzzer->dir)) {
    llvm::errs() << "ksc-fuzz-compile: cannot create a temporary directory\n";
    std::exit(2);
  }
  fuzzer->session = FrontendSession::create(
      FrontendOptions(), (fuzzer->dir + "/prelude.pch").str());
  if (!fuzzer->session)
    std::exit(2);
  fuzzer->compiler = std::make_unique<RecordCompiler>(
      *fuzzer->session, FormsOptions(), /*incremental=*/false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  // On a thread with ksc's large stack, as the tools compile (Clang and
  // ksc recurse on the nesting of the source).
  return runWithLargeStack([&] {
    CompiledForms forms;
    std::string error;
    (void)fuzzer->compiler->compile("input.kdsl", source, fuzzer->forms, forms,
                                    error);
    return 0;
  });
}
