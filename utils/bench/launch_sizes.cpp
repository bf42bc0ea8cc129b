// How large a CPU launch must be before running it on more OS threads pays:
// saxpy (about 0.5 ns of work per thread, the cheapest kernel of
// grad-kernels.kdsl) and integrate (about 3.4 ns) launched with 2^10 to
// 2^18 threads on 1 and on 2 OS threads. run-launch-sizes.sh builds it
// with the launchers of `ksc grad-kernels.kdsl --emit-header=kernels.h`,
// compiled on their own; docs/performance.md has its results.

#include "kernels.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace {

/// `v`, which the compiler cannot see through (the sizes of a launch are
/// known only at run time).
template <typename T> T opaque(T v) {
  asm volatile("" : "+m"(v));
  return v;
}

// Each launch updates its arrays in place, no reset between launches: the
// data stays in the caches of the OS threads that touched it last, as in
// a program that launches kernels on the same arrays one after another.

void saxpy(benchmark::State &state) {
  int64_t n = state.range(0);
  std::vector<float> x(size_t(n), 0.5f), y(size_t(n), 1.0f);
  ksc::set_num_threads(int(state.range(1)));
  for (auto _ : state) {
    launch_saxpy(opaque(ksc::grid(n)), 2.0f,
                 opaque(ksc::array<const float>(x.data(), n)),
                 opaque(ksc::array<float>(y.data(), n)));
    benchmark::ClobberMemory();
  }
  ksc::set_num_threads(0);
  state.SetItemsProcessed(state.iterations() * n);
}

void integrate(benchmark::State &state) {
  int64_t n = state.range(0);
  std::vector<ksc::vec3> pos(size_t(n), ksc::vec3(1.0f)),
      vel(size_t(n), ksc::vec3(0.0f));
  std::vector<float> mass(size_t(n), 2.0f);
  ksc::set_num_threads(int(state.range(1)));
  for (auto _ : state) {
    launch_integrate(opaque(ksc::grid(n)),
                     opaque(ksc::array<ksc::vec3>(pos.data(), n)),
                     opaque(ksc::array<ksc::vec3>(vel.data(), n)),
                     opaque(ksc::array<const float>(mass.data(), n)),
                     ksc::vec3(0.0f, -9.8f, 0.0f), 1e-6f);
    benchmark::ClobberMemory();
  }
  ksc::set_num_threads(0);
  state.SetItemsProcessed(state.iterations() * n);
}

} // namespace

BENCHMARK(saxpy)
    ->ArgsProduct({benchmark::CreateRange(1 << 10, 1 << 18, 2), {1, 2}})
    ->ArgNames({"threads", "os_threads"})
    ->UseRealTime();
BENCHMARK(integrate)
    ->ArgsProduct({benchmark::CreateRange(1 << 10, 1 << 18, 2), {1, 2}})
    ->ArgNames({"threads", "os_threads"})
    ->UseRealTime();

BENCHMARK_MAIN();
