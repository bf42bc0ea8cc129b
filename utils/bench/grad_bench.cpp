// The cost of derivative kernels: times every kernel of grad-kernels.kdsl
// as K, K_adj and K_jvp, and K_jvp propagating 4 and 8 directions (Google
// Benchmark), on the CPU, on the same inputs. run-grad-bench.sh compiles
// grad-kernels.kdsl with `ksc --grad=all` into grad-kernels.cpp and with
// `ksc --grad=forward --width=W` into grad-kernels-wW.cpp (whose C entry
// points it renames ksc_wW_launch_*), builds this file with them and prints
// the ratios.

#include "grad-kernels.cpp"
namespace w4 {
#include "grad-kernels-w4.cpp"
} // namespace w4
namespace w8 {
#include "grad-kernels-w8.cpp"
} // namespace w8

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

/// The tangent arguments of K_jvp for W directions: an array's tangents
/// are W arrays shaped like it, one after the other (one array for one
/// direction), a scalar's an array of W values (the value for one).
template <int W> struct Tangents {
  template <typename T> static auto array(std::vector<T> &v) {
    if constexpr (W == 1) {
      return view(v);
    } else {
      int64_t n = int64_t(v.size()) / W;
      ksc_array_desc desc{v.data(), 2, {W, n}, {n, 1}};
      return ksc::array<T, 2>(desc);
    }
  }
  template <typename T> static auto carray(std::vector<T> &v) {
    if constexpr (W == 1)
      return cview(v);
    else
      return ksc::array<const T, 2>(array(v));
  }
  template <typename T> static auto scalar(const std::vector<T> &v) {
    if constexpr (W == 1)
      return v[0];
    else
      return cview(v);
  }
};

/// The launch function of kernel `name`'s tangent kernel for W directions.
#define KSC_JVP(name)                                                          \
  [](auto &&...args) {                                                         \
    if constexpr (W == 1)                                                      \
      launch_##name##_jvp(args...);                                            \
    else if constexpr (W == 4)                                                 \
      w4::launch_##name##_jvp(args...);                                        \
    else                                                                       \
      w8::launch_##name##_jvp(args...);                                        \
  }

/// Tangents of `n` elements per direction, for W directions.
template <typename T> std::vector<T> tangents(size_t n, int w) {
  return values<T>(n * w, -1, 1);
}

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

template <int W> void saxpy_jvp(benchmark::State &state) {
  using T = Tangents<W>;
  auto x = values<float>(kThreads, -1, 1), y0 = values<float>(kThreads, -1, 1);
  auto y = y0;
  auto ta = tangents<float>(1, W), tx = tangents<float>(kThreads, W);
  auto ty = tx;
  run(
      state,
      [&] {
        KSC_JVP(saxpy)(kGrid, 2.0f, cview(x), view(y), T::scalar(ta),
                       T::carray(tx), T::array(ty));
      },
      [&] { y = y0; });
}

template <int W> void integrate_jvp(benchmark::State &state) {
  using T = Tangents<W>;
  auto p0 = values<ksc::vec3>(kThreads, 0, 1);
  auto v0 = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto p = p0, v = v0;
  auto tp0 = tangents<ksc::vec3>(kThreads, W), tv0 = tp0;
  auto tp = tp0, tv = tv0;
  auto tm = tangents<float>(kThreads, W), tdt = tangents<float>(1, W);
  auto tg = tangents<ksc::vec3>(1, W);
  ksc::vec3 g(0, -9.8f, 0);
  run(
      state,
      [&] {
        KSC_JVP(integrate)(kGrid, view(p), view(v), cview(m), g, 0.01f,
                           T::array(tp), T::array(tv), T::carray(tm),
                           T::scalar(tg), T::scalar(tdt));
      },
      [&] { p = p0, v = v0, tp = tp0, tv = tv0; });
}

template <int W> void nbody_jvp(benchmark::State &state) {
  using T = Tangents<W>;
  auto pos = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto f0 = values<ksc::vec3>(kThreads, -1, 1);
  auto f = f0;
  auto tpos = tangents<ksc::vec3>(kThreads, W), tf = tpos;
  auto tm = tangents<float>(kThreads, W);
  run(
      state,
      [&] {
        KSC_JVP(nbody)(kGrid, cview(pos), cview(m), view(f), kBodies,
                       T::carray(tpos), T::carray(tm), T::array(tf));
      },
      [&] { f = f0; });
}

template <int W> void transform_jvp(benchmark::State &state) {
  using T = Tangents<W>;
  auto m = values<ksc::mat33>(kThreads, -1, 1);
  auto x = values<ksc::vec3>(kThreads, -1, 1);
  auto y0 = values<ksc::vec3>(kThreads, -1, 1);
  auto y = y0;
  auto tm = tangents<ksc::mat33>(kThreads, W);
  auto tx = tangents<ksc::vec3>(kThreads, W), ty = tx;
  auto tb = tangents<ksc::vec3>(1, W);
  ksc::vec3 b(1, 2, 3);
  run(
      state,
      [&] {
        KSC_JVP(transform)(kGrid, cview(m), cview(x), b, view(y),
                           T::carray(tm), T::carray(tx), T::scalar(tb),
                           T::array(ty));
      },
      [&] { y = y0; });
}

template <int W> void horner_jvp(benchmark::State &state) {
  using T = Tangents<W>;
  auto c = values<float>(kTerms, -1, 1);
  auto x = values<float>(kThreads, -1, 1);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0;
  auto tc = tangents<float>(kTerms, W);
  auto tx = tangents<float>(kThreads, W), ty = tx;
  run(
      state,
      [&] {
        KSC_JVP(horner)(kGrid, cview(c), cview(x), view(y), kTerms,
                        T::carray(tc), T::carray(tx), T::array(ty));
      },
      [&] { y = y0; });
}

template <int W> void newton_jvp(benchmark::State &state) {
  using T = Tangents<W>;
  auto x = values<float>(kThreads, 0.5f, 100);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0;
  auto tx = tangents<float>(kThreads, W), ty = tx;
  run(
      state,
      [&] {
        KSC_JVP(newton_sqrt)(kGrid, cview(x), view(y), T::carray(tx),
                             T::array(ty));
      },
      [&] { y = y0; });
}

} // namespace

#define KSC_GRAD_BENCHMARK(name)                                               \
  BENCHMARK_CAPTURE(name, primal, false)->Unit(benchmark::kMicrosecond);       \
  BENCHMARK_CAPTURE(name, adjoint, true)->Unit(benchmark::kMicrosecond);      \
  BENCHMARK(name##_jvp<1>)->Name(#name "/tangent")->Unit(                     \
      benchmark::kMicrosecond);                                                \
  BENCHMARK(name##_jvp<4>)->Name(#name "/tangent4")->Unit(                    \
      benchmark::kMicrosecond);                                                \
  BENCHMARK(name##_jvp<8>)->Name(#name "/tangent8")->Unit(                    \
      benchmark::kMicrosecond)

KSC_GRAD_BENCHMARK(saxpy);
KSC_GRAD_BENCHMARK(integrate);
KSC_GRAD_BENCHMARK(nbody);
KSC_GRAD_BENCHMARK(transform);
KSC_GRAD_BENCHMARK(horner);
KSC_GRAD_BENCHMARK(newton);

BENCHMARK_MAIN();
