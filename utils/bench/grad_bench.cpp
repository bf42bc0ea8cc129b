// The cost of adjoint kernels: times every kernel of grad-kernels.kdsl as
// K and as K_adj (Google Benchmark), on the CPU, on the same inputs.
// run-grad-bench.sh compiles grad-kernels.kdsl with `ksc --grad` into
// grad-kernels.cpp, builds this file with it and prints the ratios.

#include "grad-kernels.cpp"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

constexpr int64_t kThreads = 1 << 14;
constexpr int kBodies = 256;  // n-body: bodies each thread visits
constexpr int kTerms = 64;    // Horner: polynomial terms

/// Deterministic values in [lo, hi).
template <typename T> std::vector<T> values(size_t n, float lo, float hi) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> out(n);
  for (T &v : out) {
    if constexpr (std::is_same_v<T, float>)
      v = dist(rng);
    else if constexpr (std::is_same_v<T, ksc::vec3>)
      v = ksc::vec3(dist(rng), dist(rng), dist(rng));
    else
      for (int r = 0; r < 3; ++r)
        v[r] = ksc::vec3(dist(rng), dist(rng), dist(rng));
  }
  return out;
}

template <typename T> ksc::array<T> view(std::vector<T> &v) {
  return ksc::array<T>(v.data(), int64_t(v.size()));
}
template <typename T> ksc::array<const T> cview(const std::vector<T> &v) {
  return ksc::array<const T>(v.data(), int64_t(v.size()));
}

/// Runs `launch` once per iteration; `reset` restores the inputs it
/// overwrites, untimed.
template <typename Launch, typename Reset>
void run(benchmark::State &state, Launch launch, Reset reset) {
  for (auto _ : state) {
    state.PauseTiming();
    reset();
    state.ResumeTiming();
    launch();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kThreads);
}

const ksc::grid kGrid(kThreads);

void saxpy(benchmark::State &state, bool adjoint) {
  auto x = values<float>(kThreads, -1, 1), y0 = values<float>(kThreads, -1, 1);
  auto y = y0, dx = y0, dy = y0;
  std::vector<float> da(1);
  run(
      state,
      [&] {
        if (adjoint)
          launch_saxpy_adj(kGrid, 2.0f, cview(x), view(y), view(da), view(dx),
                           view(dy));
        else
          launch_saxpy(kGrid, 2.0f, cview(x), view(y));
      },
      [&] { y = y0, dy = y0; });
}

void integrate(benchmark::State &state, bool adjoint) {
  auto p0 = values<ksc::vec3>(kThreads, 0, 1);
  auto v0 = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto p = p0, v = v0, dp = p0, dv = v0;
  std::vector<float> dm(kThreads);
  std::vector<ksc::vec3> dg(1);
  std::vector<float> ddt(1);
  ksc::vec3 g(0, -9.8f, 0);
  run(
      state,
      [&] {
        if (adjoint)
          launch_integrate_adj(kGrid, view(p), view(v), cview(m), g, 0.01f,
                               view(dp), view(dv), view(dm), view(dg),
                               view(ddt));
        else
          launch_integrate(kGrid, view(p), view(v), cview(m), g, 0.01f);
      },
      [&] { p = p0, v = v0, dp = p0, dv = v0; });
}

void nbody(benchmark::State &state, bool adjoint) {
  auto pos = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto f0 = values<ksc::vec3>(kThreads, -1, 1);
  auto f = f0, df = f0;
  std::vector<ksc::vec3> dpos(kThreads);
  std::vector<float> dm(kThreads);
  run(
      state,
      [&] {
        if (adjoint)
          launch_nbody_adj(kGrid, cview(pos), cview(m), view(f), kBodies,
                           view(dpos), view(dm), view(df));
        else
          launch_nbody(kGrid, cview(pos), cview(m), view(f), kBodies);
      },
      [&] { f = f0, df = f0; });
}

void transform(benchmark::State &state, bool adjoint) {
  auto m = values<ksc::mat33>(kThreads, -1, 1);
  auto x = values<ksc::vec3>(kThreads, -1, 1);
  auto y0 = values<ksc::vec3>(kThreads, -1, 1);
  auto y = y0, dy = y0;
  std::vector<ksc::mat33> dm(kThreads);
  std::vector<ksc::vec3> dx(kThreads), db(1);
  ksc::vec3 b(1, 2, 3);
  run(
      state,
      [&] {
        if (adjoint)
          launch_transform_adj(kGrid, cview(m), cview(x), b, view(y), view(dm),
                               view(dx), view(db), view(dy));
        else
          launch_transform(kGrid, cview(m), cview(x), b, view(y));
      },
      [&] { y = y0, dy = y0; });
}

void horner(benchmark::State &state, bool adjoint) {
  auto c = values<float>(kTerms, -1, 1);
  auto x = values<float>(kThreads, -1, 1);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0, dy = y0;
  std::vector<float> dc(kTerms), dx(kThreads);
  run(
      state,
      [&] {
        if (adjoint)
          launch_horner_adj(kGrid, cview(c), cview(x), view(y), kTerms,
                            view(dc), view(dx), view(dy));
        else
          launch_horner(kGrid, cview(c), cview(x), view(y), kTerms);
      },
      [&] { y = y0, dy = y0; });
}

void newton(benchmark::State &state, bool adjoint) {
  auto x = values<float>(kThreads, 0.5f, 100);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0, dy = y0;
  std::vector<float> dx(kThreads);
  run(
      state,
      [&] {
        if (adjoint)
          launch_newton_sqrt_adj(kGrid, cview(x), view(y), view(dx), view(dy));
        else
          launch_newton_sqrt(kGrid, cview(x), view(y));
      },
      [&] { y = y0, dy = y0; });
}

} // namespace

#define KSC_GRAD_BENCHMARK(name)                                               \
  BENCHMARK_CAPTURE(name, primal, false)->Unit(benchmark::kMicrosecond);       \
  BENCHMARK_CAPTURE(name, adjoint, true)->Unit(benchmark::kMicrosecond)

KSC_GRAD_BENCHMARK(saxpy);
KSC_GRAD_BENCHMARK(integrate);
KSC_GRAD_BENCHMARK(nbody);
KSC_GRAD_BENCHMARK(transform);
KSC_GRAD_BENCHMARK(horner);
KSC_GRAD_BENCHMARK(newton);

BENCHMARK_MAIN();
