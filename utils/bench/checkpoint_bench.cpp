// Times the adjoint of a loop inside one thread, taped and checkpointed
// (docs/autodiff.md, "Long loops"): the kernel `oscillate` of
// test/Grad/long-loop.kdsl, n explicit integration steps per thread, as K
// and as K_adj, for trip counts on both sides of the CPU's choice (taped
// while n * 24 bytes <= 512 KiB, n <= 21845). run-checkpoint-bench.sh
// builds it from `ksc --grad` output (KSC_GENERATED).

#include "ksc_runtime.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace {
#include KSC_GENERATED
} // namespace

namespace {

constexpr int kThreads = 64;

void run(benchmark::State &state, bool adjoint) {
  int n = int(state.range(0));
  std::vector<float> x0(kThreads), k(kThreads), out(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    x0[i] = 0.5f + 0.01f * float(i);
    k[i] = 1.0f + 0.02f * float(i);
  }
  std::vector<float> dx0(kThreads), dk(kThreads), dout(kThreads, 1.0f);
  std::vector<float> ddt(1);
  ksc::grid grid(kThreads, 1, 1);
  auto view = [](std::vector<float> &v) {
    return ksc::array<float>(v.data(), int64_t(v.size()));
  };
  auto cview = [](std::vector<float> &v) {
    return ksc::array<const float>(v.data(), int64_t(v.size()));
  };
  for (auto _ : state) {
    if (adjoint)
      launch_oscillate_adj(grid, cview(x0), cview(k), view(out), n, 0.001f,
                           view(dx0), view(dk), view(dout), view(ddt));
    else
      launch_oscillate(grid, cview(x0), cview(k), view(out), n, 0.001f);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["ns/step"] = benchmark::Counter(
      double(n) * kThreads,
      benchmark::Counter::kIsIterationInvariantRate |
          benchmark::Counter::kInvert);
}

void primal(benchmark::State &state) { run(state, false); }
void adjoint(benchmark::State &state) { run(state, true); }

} // namespace

BENCHMARK(primal)->Arg(20000)->Arg(22000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(adjoint)->Arg(20000)->Arg(22000)->Arg(100000)->Unit(benchmark::kMillisecond);
