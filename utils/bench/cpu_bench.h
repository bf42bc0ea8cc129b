// What the translation units of the CPU throughput benchmark
// (run-cpu-bench.sh) share: the data of every kernel and the launch
// functions each unit defines.
//
// Every kernel has a struct holding its inputs, outputs and adjoints, with
//  - reset(): everything back to its initial values (for the self-check);
//  - reset_k(), reset_adj(): what K or K_adj reads after overwriting it,
//    restored untimed before every timed launch;
//  - k_outputs(), adj_outputs(): the arrays K or K_adj writes, as floats.
// Each unit (the hand-written loops, and ksc's launchers of K or K_adj,
// serial or parallel) defines `void launch(Kernel &)` for every kernel in
// a namespace of its own (CPU_BENCH_UNITS below).

#ifndef KSC_CPU_BENCH_H
#define KSC_CPU_BENCH_H

#include "grad_bench.h"

#include <cstring>
#include <utility>
#include <vector>

namespace cpu_bench {

using grad_bench::cview;
using grad_bench::kBodies;
using grad_bench::kGrid;
using grad_bench::kTerms;
using grad_bench::kThreads;
using grad_bench::values;
using grad_bench::view;

/// The memory-bound kernel's threads: its arrays (16 MiB each) are larger
/// than the last-level caches of most machines together.
constexpr int64_t kStreamThreads = int64_t(1) << 22;
inline const ksc::grid kStreamGrid(kStreamThreads);

/// `v`, which the compiler cannot see through: the launchers and the
/// hand-written loops receive the sizes (threads, bodies, terms) as values
/// known only at run time, as in a program that reads them. Without it,
/// GCC's interprocedural constant propagation clones a loop for the
/// benchmark's constant sizes (a trip count that is a multiple of the
/// vector width lets -O2 vectorize what it otherwise would not).
template <typename T> inline T opaque(T v) {
  asm volatile("" : "+m"(v));
  return v;
}

/// The elements of an array of floats, vec3s or mat33s, as floats.
template <typename T> std::vector<float> floats(const std::vector<T> &v) {
  static_assert(sizeof(T) % sizeof(float) == 0, "made of floats");
  std::vector<float> out(v.size() * (sizeof(T) / sizeof(float)));
  std::memcpy(out.data(), v.data(), v.size() * sizeof(T));
  return out;
}
using Outputs = std::vector<std::pair<const char *, std::vector<float>>>;

/// Zeroes `v` (the arrays the adjoints add into).
template <typename T> void zero(std::vector<T> &v) { v.assign(v.size(), T()); }

struct Saxpy {
  static constexpr const char *kName = "saxpy";
  float a = 2.0f;
  std::vector<float> x = values<float>(kThreads, -1, 1, 1);
  std::vector<float> y0 = values<float>(kThreads, -1, 1, 2), y = y0;
  std::vector<float> dy0 = values<float>(kThreads, -1, 1, 3), dy = dy0;
  std::vector<float> dx = std::vector<float>(kThreads), da = {0};
  void reset_k() { y = y0; }
  void reset_adj() { dy = dy0; }
  void reset() { y = y0, dy = dy0, zero(dx), zero(da); }
  Outputs k_outputs() const { return {{"y", y}}; }
  Outputs adj_outputs() const {
    return {{"adj_a", da}, {"adj_x", dx}, {"adj_y", dy}};
  }
};

struct Integrate {
  static constexpr const char *kName = "integrate";
  std::vector<ksc::vec3> p0 = values<ksc::vec3>(kThreads, 0, 1, 4);
  std::vector<ksc::vec3> v0 = values<ksc::vec3>(kThreads, -1, 1, 5);
  std::vector<float> m = values<float>(kThreads, 1, 2, 6);
  std::vector<ksc::vec3> p = p0, v = v0;
  std::vector<ksc::vec3> dp0 = values<ksc::vec3>(kThreads, -1, 1, 7),
                         dv0 = values<ksc::vec3>(kThreads, -1, 1, 8);
  std::vector<ksc::vec3> dp = dp0, dv = dv0, dg = {ksc::vec3()};
  std::vector<float> dm = std::vector<float>(kThreads), ddt = {0};
  ksc::vec3 g = ksc::vec3(0, -9.8f, 0);
  float dt = 0.01f;
  void reset_k() { p = p0, v = v0; }
  void reset_adj() { dp = dp0, dv = dv0; }
  void reset() {
    p = p0, v = v0, dp = dp0, dv = dv0, zero(dm), zero(dg), zero(ddt);
  }
  Outputs k_outputs() const { return {{"pos", floats(p)}, {"vel", floats(v)}}; }
  Outputs adj_outputs() const {
    return {{"adj_pos", floats(dp)},
            {"adj_vel", floats(dv)},
            {"adj_mass", dm},
            {"adj_gravity", floats(dg)},
            {"adj_dt", ddt}};
  }
};

struct Nbody {
  static constexpr const char *kName = "nbody";
  std::vector<ksc::vec3> pos = values<ksc::vec3>(kThreads, -1, 1, 9);
  std::vector<float> m = values<float>(kThreads, 1, 2, 10);
  std::vector<ksc::vec3> f = std::vector<ksc::vec3>(kThreads);
  std::vector<ksc::vec3> df0 = values<ksc::vec3>(kThreads, -1, 1, 11), df = df0;
  std::vector<ksc::vec3> dpos = std::vector<ksc::vec3>(kThreads);
  std::vector<float> dm = std::vector<float>(kThreads);
  void reset_k() {}
  void reset_adj() { df = df0; }
  void reset() { zero(f), df = df0, zero(dpos), zero(dm); }
  Outputs k_outputs() const { return {{"force", floats(f)}}; }
  Outputs adj_outputs() const {
    return {
        {"adj_pos", floats(dpos)}, {"adj_mass", dm}, {"adj_force", floats(df)}};
  }
};

struct Transform {
  static constexpr const char *kName = "transform";
  std::vector<ksc::mat33> m = values<ksc::mat33>(kThreads, -1, 1, 12);
  std::vector<ksc::vec3> x = values<ksc::vec3>(kThreads, -1, 1, 13);
  std::vector<ksc::vec3> y = std::vector<ksc::vec3>(kThreads);
  std::vector<ksc::vec3> dy0 = values<ksc::vec3>(kThreads, -1, 1, 14), dy = dy0;
  std::vector<ksc::mat33> dm = std::vector<ksc::mat33>(kThreads);
  std::vector<ksc::vec3> dx = std::vector<ksc::vec3>(kThreads),
                         db = {ksc::vec3()};
  ksc::vec3 b = ksc::vec3(1, 2, 3);
  void reset_k() {}
  void reset_adj() { dy = dy0; }
  void reset() { zero(y), dy = dy0, zero(dm), zero(dx), zero(db); }
  Outputs k_outputs() const { return {{"y", floats(y)}}; }
  Outputs adj_outputs() const {
    return {{"adj_m", floats(dm)},
            {"adj_x", floats(dx)},
            {"adj_b", floats(db)},
            {"adj_y", floats(dy)}};
  }
};

struct Horner {
  static constexpr const char *kName = "horner";
  std::vector<float> c = values<float>(kTerms, -1, 1, 15);
  std::vector<float> x = values<float>(kThreads, -1, 1, 16);
  std::vector<float> y = std::vector<float>(kThreads);
  std::vector<float> dy0 = values<float>(kThreads, -1, 1, 17), dy = dy0;
  std::vector<float> dc = std::vector<float>(kTerms),
                     dx = std::vector<float>(kThreads);
  void reset_k() {}
  void reset_adj() { dy = dy0; }
  void reset() { zero(y), dy = dy0, zero(dc), zero(dx); }
  Outputs k_outputs() const { return {{"y", y}}; }
  Outputs adj_outputs() const {
    return {{"adj_coeff", dc}, {"adj_x", dx}, {"adj_y", dy}};
  }
};

struct Newton {
  static constexpr const char *kName = "newton_sqrt";
  std::vector<float> x = values<float>(kThreads, 0.5f, 100, 18);
  std::vector<float> y = std::vector<float>(kThreads);
  std::vector<float> dy0 = values<float>(kThreads, -1, 1, 19), dy = dy0;
  std::vector<float> dx = std::vector<float>(kThreads);
  void reset_k() {}
  void reset_adj() { dy = dy0; }
  void reset() { zero(y), dy = dy0, zero(dx); }
  Outputs k_outputs() const { return {{"y", y}}; }
  Outputs adj_outputs() const { return {{"adj_x", dx}, {"adj_y", dy}}; }
};

struct Stream {
  static constexpr const char *kName = "stream_triad";
  float s = 3.0f;
  std::vector<float> a = values<float>(kStreamThreads, -1, 1, 20);
  std::vector<float> b = values<float>(kStreamThreads, -1, 1, 21);
  std::vector<float> c = std::vector<float>(kStreamThreads);
  std::vector<float> dc0 = values<float>(kStreamThreads, -1, 1, 22), dc = dc0;
  std::vector<float> da = std::vector<float>(kStreamThreads),
                     db = std::vector<float>(kStreamThreads), ds = {0};
  void reset_k() {}
  // K_adj zeroes adj_c; restoring it (16 MiB) would leave part of it in
  // the cache, and zeros take the same time to stream as any value.
  void reset_adj() {}
  void reset() { zero(c), dc = dc0, zero(da), zero(db), zero(ds); }
  Outputs k_outputs() const { return {{"c", c}}; }
  Outputs adj_outputs() const {
    return {{"adj_a", da}, {"adj_b", db}, {"adj_s", ds}, {"adj_c", dc}};
  }
};

// X(kernel struct, launch size) for every kernel, in table order.
#define CPU_BENCH_KERNELS(X)                                                   \
  X(Saxpy, kThreads)                                                           \
  X(Integrate, kThreads)                                                       \
  X(Nbody, kThreads)                                                           \
  X(Transform, kThreads)                                                       \
  X(Horner, kThreads)                                                          \
  X(Newton, kThreads)                                                          \
  X(Stream, kStreamThreads)

// The units: hand-written loops of K, and ksc's launchers (serial: `ksc
// --cpu-launch=serial`, parallel: ksc's default) of K and of K_adj.
#define CPU_BENCH_DECLARE_LAUNCH(Kernel, size) void launch(Kernel &);
namespace hand {
CPU_BENCH_KERNELS(CPU_BENCH_DECLARE_LAUNCH)
}
namespace serial_k {
CPU_BENCH_KERNELS(CPU_BENCH_DECLARE_LAUNCH)
}
namespace serial_adj {
CPU_BENCH_KERNELS(CPU_BENCH_DECLARE_LAUNCH)
}
namespace parallel_k {
CPU_BENCH_KERNELS(CPU_BENCH_DECLARE_LAUNCH)
}
namespace parallel_adj {
CPU_BENCH_KERNELS(CPU_BENCH_DECLARE_LAUNCH)
}
#undef CPU_BENCH_DECLARE_LAUNCH

} // namespace cpu_bench

#endif // KSC_CPU_BENCH_H
