//===- Executor.cpp - Executors, and the CPU one -----------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Executor.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

Executor::~Executor() = default;

namespace {
/// Launches kernels from a shared library of the host compiler.
class CpuExecutor : public Executor {
public:
  CpuExecutor(std::string library, const Grid &grid)
      : library(std::move(library)), grid(grid) {}
  Error launch(StringRef kernel, std::vector<Argument> &args) override {
    return runner::launch(library, kernel, grid, args);
  }
  std::string describe() const override { return "cpu"; }

private:
  std::string library;
  Grid grid;
};
} // namespace

std::unique_ptr<Executor> runner::createCpuExecutor(std::string library,
                                                    const Grid &grid) {
  return std::make_unique<CpuExecutor>(std::move(library), grid);
}
