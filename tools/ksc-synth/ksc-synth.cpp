#include "ksc/Synth/Forms.h"
#include "ksc/Driver/Driver.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/InitLLVM.h"
#include <chrono>
using namespace ksc::synth;
int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return ksc::runWithLargeStack([&] {
  auto buf = llvm::MemoryBuffer::getFile(argv[1]);
  std::string err;
  auto forms = FormSet::parse(argv[2], err);
  int n = atoi(argv[3]);
  auto ctx = createCompilerContext();
  CompiledForms out;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    if (!compileForms(*ctx, "k.kdsl", (*buf)->getBuffer(), *forms, {}, out, err)) {
      llvm::errs() << err << "\n"; return 1;
    }
  }
  auto t1 = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(t1 - t0).count();
  llvm::outs() << n / s << " records/s\n";
  if (argc > 4) for (Form f : allForms()) if (forms->contains(f)) llvm::outs() << "== " << formName(f) << "\n" << out[f];
  return 0;
  });
}
