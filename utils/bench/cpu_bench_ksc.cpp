// One unit of ksc launchers of the CPU throughput benchmark: calls the
// launchers of the kernels K of grad-kernels.kdsl and stream.kdsl
// (-DKSC_ADJOINT=0, from `ksc`) or of their adjoints K_adj (-DKSC_ADJOINT=1,
// from `ksc --grad=reverse`), serial or parallel. KSC_HEADER_K and
// KSC_HEADER_STREAM name the headers of the two generated files (made with
// `--namespace=cpu_bench::CPU_BENCH_UNIT --emit-header`), whose code is
// compiled on its own. run-cpu-bench.sh builds it once per unit.

#include "cpu_bench.h"

#if !defined(KSC_ADJOINT) || !defined(KSC_HEADER_K) ||                        \
    !defined(KSC_HEADER_STREAM) || !defined(CPU_BENCH_UNIT)
#error "build with -DKSC_ADJOINT=0 or 1, -DCPU_BENCH_UNIT=<namespace>, \
-DKSC_HEADER_K='\"k.h\"' and -DKSC_HEADER_STREAM='\"stream.h\"'"
#endif

#include KSC_HEADER_K
#include KSC_HEADER_STREAM

namespace cpu_bench::CPU_BENCH_UNIT {

#if KSC_ADJOINT

void launch(Saxpy &d) {
  launch_saxpy_adj(kGrid, d.a, cview(d.x), view(d.y), view(d.da), view(d.dx),
                   view(d.dy));
}
void launch(Integrate &d) {
  launch_integrate_adj(kGrid, view(d.p), view(d.v), cview(d.m), d.g, d.dt,
                       view(d.dp), view(d.dv), view(d.dm), view(d.dg),
                       view(d.ddt));
}
void launch(Nbody &d) {
  launch_nbody_adj(kGrid, cview(d.pos), cview(d.m), view(d.f), kBodies,
                   view(d.dpos), view(d.dm), view(d.df));
}
void launch(Transform &d) {
  launch_transform_adj(kGrid, cview(d.m), cview(d.x), d.b, view(d.y),
                       view(d.dm), view(d.dx), view(d.db), view(d.dy));
}
void launch(Horner &d) {
  launch_horner_adj(kGrid, cview(d.c), cview(d.x), view(d.y), kTerms,
                    view(d.dc), view(d.dx), view(d.dy));
}
void launch(Newton &d) {
  launch_newton_sqrt_adj(kGrid, cview(d.x), view(d.y), view(d.dx), view(d.dy));
}
void launch(Stream &d) {
  launch_stream_triad_adj(kStreamGrid, cview(d.a), cview(d.b), d.s, view(d.c),
                          view(d.da), view(d.db), view(d.ds), view(d.dc));
}

#else

void launch(Saxpy &d) { launch_saxpy(kGrid, d.a, cview(d.x), view(d.y)); }
void launch(Integrate &d) {
  launch_integrate(kGrid, view(d.p), view(d.v), cview(d.m), d.g, d.dt);
}
void launch(Nbody &d) {
  launch_nbody(kGrid, cview(d.pos), cview(d.m), view(d.f), kBodies);
}
void launch(Transform &d) {
  launch_transform(kGrid, cview(d.m), cview(d.x), d.b, view(d.y));
}
void launch(Horner &d) {
  launch_horner(kGrid, cview(d.c), cview(d.x), view(d.y), kTerms);
}
void launch(Newton &d) { launch_newton_sqrt(kGrid, cview(d.x), view(d.y)); }
void launch(Stream &d) {
  launch_stream_triad(kStreamGrid, cview(d.a), cview(d.b), d.s, view(d.c));
}

#endif

} // namespace cpu_bench::CPU_BENCH_UNIT
