// Times the tangent kernels K_jvp of grad-kernels.kdsl propagating
// KSC_WIDTH directions in one launch (built with -DKSC_WIDTH=W and
// KSC_GENERATED naming the output of `ksc --grad=forward --width=W`), on the
// inputs of grad_bench.h and random tangents. run-grad-bench.sh builds and
// runs it for W = 1, 4 and 8.

#include "grad_bench.h"

#if !defined(KSC_WIDTH) || !defined(KSC_GENERATED)
#error "build with -DKSC_WIDTH=W and -DKSC_GENERATED='\"file.cpp\"'"
#endif

// Internal linkage: every unit has its own copy of the primal kernels.
namespace {
#include KSC_GENERATED
} // namespace

using namespace grad_bench;

namespace {

constexpr int W = KSC_WIDTH;
using T = Tangents<W>;

void saxpy(benchmark::State &state) {
  auto x = values<float>(kThreads, -1, 1), y0 = values<float>(kThreads, -1, 1);
  auto y = y0;
  auto ta = scalar_tangents<float>(W), tx = tangents<float>(kThreads, W);
  auto ty = tx;
  run(
      state,
      [&] {
        launch_saxpy_jvp(kGrid, 2.0f, cview(x), view(y), T::scalar(ta),
                         T::carray(tx), T::array(ty));
      },
      [&] { y = y0; });
}

void integrate(benchmark::State &state) {
  auto p0 = values<ksc::vec3>(kThreads, 0, 1);
  auto v0 = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto p = p0, v = v0;
  auto tp0 = tangents<ksc::vec3>(kThreads, W), tv0 = tp0;
  auto tp = tp0, tv = tv0;
  auto tm = tangents<float>(kThreads, W), tdt = scalar_tangents<float>(W);
  auto tg = scalar_tangents<ksc::vec3>(W);
  ksc::vec3 g(0, -9.8f, 0);
  run(
      state,
      [&] {
        launch_integrate_jvp(kGrid, view(p), view(v), cview(m), g, 0.01f,
                             T::array(tp), T::array(tv), T::carray(tm),
                             T::scalar(tg), T::scalar(tdt));
      },
      [&] { p = p0, v = v0, tp = tp0, tv = tv0; });
}

void nbody(benchmark::State &state) {
  auto pos = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto f0 = values<ksc::vec3>(kThreads, -1, 1);
  auto f = f0;
  auto tpos = tangents<ksc::vec3>(kThreads, W), tf = tpos;
  auto tm = tangents<float>(kThreads, W);
  run(
      state,
      [&] {
        launch_nbody_jvp(kGrid, cview(pos), cview(m), view(f), kBodies,
                         T::carray(tpos), T::carray(tm), T::array(tf));
      },
      [&] { f = f0; });
}

void transform(benchmark::State &state) {
  auto m = values<ksc::mat33>(kThreads, -1, 1);
  auto x = values<ksc::vec3>(kThreads, -1, 1);
  auto y0 = values<ksc::vec3>(kThreads, -1, 1);
  auto y = y0;
  auto tm = tangents<ksc::mat33>(kThreads, W);
  auto tx = tangents<ksc::vec3>(kThreads, W), ty = tx;
  auto tb = scalar_tangents<ksc::vec3>(W);
  ksc::vec3 b(1, 2, 3);
  run(
      state,
      [&] {
        launch_transform_jvp(kGrid, cview(m), cview(x), b, view(y),
                             T::carray(tm), T::carray(tx), T::scalar(tb),
                             T::array(ty));
      },
      [&] { y = y0; });
}

void horner(benchmark::State &state) {
  auto c = values<float>(kTerms, -1, 1);
  auto x = values<float>(kThreads, -1, 1);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0;
  auto tc = tangents<float>(kTerms, W);
  auto tx = tangents<float>(kThreads, W), ty = tx;
  run(
      state,
      [&] {
        launch_horner_jvp(kGrid, cview(c), cview(x), view(y), kTerms,
                          T::carray(tc), T::carray(tx), T::array(ty));
      },
      [&] { y = y0; });
}

void newton(benchmark::State &state) {
  auto x = values<float>(kThreads, 0.5f, 100);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0;
  auto tx = tangents<float>(kThreads, W), ty = tx;
  run(
      state,
      [&] {
        launch_newton_sqrt_jvp(kGrid, cview(x), view(y), T::carray(tx),
                               T::array(ty));
      },
      [&] { y = y0; });
}

// The inputs of `integrate`, as an array of structs.
void integrate_aos(benchmark::State &state) {
  auto p0 = values<ksc::vec3>(kThreads, 0, 1);
  auto v0 = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto ps0 = particles<Particle>(p0, v0, m);
  auto ps = ps0;
  auto tp = tangents<ksc::vec3>(kThreads, W);
  auto tm = tangents<float>(kThreads, W);
  auto tps0 = particles<Particle>(tp, tp, tm);
  auto tps = tps0;
  auto tdt = scalar_tangents<float>(W);
  auto tg = scalar_tangents<ksc::vec3>(W);
  ksc::vec3 g(0, -9.8f, 0);
  run(
      state,
      [&] {
        launch_integrate_aos_jvp(kGrid, view(ps), g, 0.01f, T::array(tps),
                                 T::scalar(tg), T::scalar(tdt));
      },
      [&] { ps = ps0, tps = tps0; });
}

} // namespace

// "tangent" for one direction, "tangent4" for four, ...
#if KSC_WIDTH == 1
#define KSC_MODE "/tangent"
#else
#define KSC_STRINGIFY(x) #x
#define KSC_MODE_OF(w) "/tangent" KSC_STRINGIFY(w)
#define KSC_MODE KSC_MODE_OF(KSC_WIDTH)
#endif
#define KSC_FORWARD_BENCHMARK(name)                                            \
  BENCHMARK(name)->Name(#name KSC_MODE)->Unit(benchmark::kMicrosecond)

KSC_FORWARD_BENCHMARK(saxpy);
KSC_FORWARD_BENCHMARK(integrate);
KSC_FORWARD_BENCHMARK(integrate_aos);
KSC_FORWARD_BENCHMARK(nbody);
KSC_FORWARD_BENCHMARK(transform);
KSC_FORWARD_BENCHMARK(horner);
KSC_FORWARD_BENCHMARK(newton);
