// Times the kernels K of grad-kernels.kdsl (built with -DKSC_ADJOINT=0 and
// KSC_GENERATED naming the output of `ksc`) or their adjoints K_adj
// (-DKSC_ADJOINT=1, the output of `ksc --grad=reverse`), on the inputs of
// grad_bench.h. run-grad-bench.sh builds and runs them.

#include "grad_bench.h"

#if !defined(KSC_ADJOINT) || !defined(KSC_GENERATED)
#error "build with -DKSC_ADJOINT=0 or 1 and -DKSC_GENERATED='\"file.cpp\"'"
#endif

// Internal linkage: every unit has its own copy of the primal kernels.
namespace {
#include KSC_GENERATED
} // namespace

using namespace grad_bench;

namespace {

void saxpy(benchmark::State &state) {
  auto x = values<float>(kThreads, -1, 1), y0 = values<float>(kThreads, -1, 1);
  auto y = y0, dx = y0, dy = y0;
  std::vector<float> da(1);
  run(
      state,
      [&] {
#if KSC_ADJOINT
        launch_saxpy_adj(kGrid, 2.0f, cview(x), view(y), view(da), view(dx),
                         view(dy));
#else
        launch_saxpy(kGrid, 2.0f, cview(x), view(y));
#endif
      },
      [&] { y = y0, dy = y0; });
}

void integrate(benchmark::State &state) {
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
#if KSC_ADJOINT
        launch_integrate_adj(kGrid, view(p), view(v), cview(m), g, 0.01f,
                             view(dp), view(dv), view(dm), view(dg),
                             view(ddt));
#else
        launch_integrate(kGrid, view(p), view(v), cview(m), g, 0.01f);
#endif
      },
      [&] { p = p0, v = v0, dp = p0, dv = v0; });
}

void nbody(benchmark::State &state) {
  auto pos = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto f0 = values<ksc::vec3>(kThreads, -1, 1);
  auto f = f0, df = f0;
  std::vector<ksc::vec3> dpos(kThreads);
  std::vector<float> dm(kThreads);
  run(
      state,
      [&] {
#if KSC_ADJOINT
        launch_nbody_adj(kGrid, cview(pos), cview(m), view(f), kBodies,
                         view(dpos), view(dm), view(df));
#else
        launch_nbody(kGrid, cview(pos), cview(m), view(f), kBodies);
#endif
      },
      [&] { f = f0, df = f0; });
}

void transform(benchmark::State &state) {
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
#if KSC_ADJOINT
        launch_transform_adj(kGrid, cview(m), cview(x), b, view(y), view(dm),
                             view(dx), view(db), view(dy));
#else
        launch_transform(kGrid, cview(m), cview(x), b, view(y));
#endif
      },
      [&] { y = y0, dy = y0; });
}

void horner(benchmark::State &state) {
  auto c = values<float>(kTerms, -1, 1);
  auto x = values<float>(kThreads, -1, 1);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0, dy = y0;
  std::vector<float> dc(kTerms), dx(kThreads);
  run(
      state,
      [&] {
#if KSC_ADJOINT
        launch_horner_adj(kGrid, cview(c), cview(x), view(y), kTerms,
                          view(dc), view(dx), view(dy));
#else
        launch_horner(kGrid, cview(c), cview(x), view(y), kTerms);
#endif
      },
      [&] { y = y0, dy = y0; });
}

void newton(benchmark::State &state) {
  auto x = values<float>(kThreads, 0.5f, 100);
  auto y0 = values<float>(kThreads, -1, 1);
  auto y = y0, dy = y0;
  std::vector<float> dx(kThreads);
  run(
      state,
      [&] {
#if KSC_ADJOINT
        launch_newton_sqrt_adj(kGrid, cview(x), view(y), view(dx), view(dy));
#else
        launch_newton_sqrt(kGrid, cview(x), view(y));
#endif
      },
      [&] { y = y0, dy = y0; });
}

// The inputs of `integrate`, as an array of structs.
void integrate_aos(benchmark::State &state) {
  auto p0 = values<ksc::vec3>(kThreads, 0, 1);
  auto v0 = values<ksc::vec3>(kThreads, -1, 1);
  auto m = values<float>(kThreads, 1, 2);
  auto ps0 = particles<Particle>(p0, v0, m);
  auto ps = ps0, dps = ps0;
  std::vector<ksc::vec3> dg(1);
  std::vector<float> ddt(1);
  ksc::vec3 g(0, -9.8f, 0);
  run(
      state,
      [&] {
#if KSC_ADJOINT
        launch_integrate_aos_adj(kGrid, view(ps), g, 0.01f, view(dps),
                                 view(dg), view(ddt));
#else
        launch_integrate_aos(kGrid, view(ps), g, 0.01f);
#endif
      },
      [&] { ps = ps0, dps = ps0; });
}

} // namespace

#if KSC_ADJOINT
#define KSC_MODE "/adjoint"
#else
#define KSC_MODE "/primal"
#endif
#define KSC_REVERSE_BENCHMARK(name)                                            \
  BENCHMARK(name)->Name(#name KSC_MODE)->Unit(benchmark::kMicrosecond)

KSC_REVERSE_BENCHMARK(saxpy);
KSC_REVERSE_BENCHMARK(integrate);
KSC_REVERSE_BENCHMARK(integrate_aos);
KSC_REVERSE_BENCHMARK(nbody);
KSC_REVERSE_BENCHMARK(transform);
KSC_REVERSE_BENCHMARK(horner);
KSC_REVERSE_BENCHMARK(newton);
