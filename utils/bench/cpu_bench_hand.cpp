// The hand-written loops of the CPU throughput benchmark: each kernel K of
// grad-kernels.kdsl and stream.kdsl as the serial C++ loop one would write
// for it, over plain float arrays (a vec3 is 3 floats, a mat33 9, row by
// row) behind __restrict pointers, with the kernel's arithmetic in the
// kernel's order (so that the results match ksc's bit for bit at the same
// compiler flags). cpu_bench_main.cpp checks them against ksc's launchers.

#include "cpu_bench.h"

#include <cmath>

// Out of line, and called with opaque() sizes, so that the loops see the
// sizes as the launchers do: at run time.
#define KSC_BENCH_NOINLINE __attribute__((noinline))

namespace {

static_assert(sizeof(ksc::vec3) == 3 * sizeof(float), "3 floats");
static_assert(sizeof(ksc::mat33) == 9 * sizeof(float), "9 floats");

float *raw(std::vector<ksc::vec3> &v) { return &v[0].x; }
const float *raw(const std::vector<ksc::vec3> &v) { return &v[0].x; }
const float *raw(const std::vector<ksc::mat33> &v) { return &v[0][0].x; }

KSC_BENCH_NOINLINE void saxpy(int n, float a, const float *__restrict x,
                              float *__restrict y) {
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

KSC_BENCH_NOINLINE void integrate(int n, float *__restrict pos,
                                  float *__restrict vel,
                                  const float *__restrict mass,
                                  const float g[3], float dt) {
  for (int i = 0; i < n; ++i) {
    float *p = pos + 3 * i, *v = vel + 3 * i;
    float drag = 0.1f / mass[i];
    float vx = v[0] + (g[0] - v[0] * drag) * dt;
    float vy = v[1] + (g[1] - v[1] * drag) * dt;
    float vz = v[2] + (g[2] - v[2] * drag) * dt;
    float px = p[0] + vx * dt, py = p[1] + vy * dt, pz = p[2] + vz * dt;
    if (py < 0.0f) {
      py = -py;
      vy = -0.8f * vy;
    }
    p[0] = px, p[1] = py, p[2] = pz;
    v[0] = vx, v[1] = vy, v[2] = vz;
  }
}

KSC_BENCH_NOINLINE void nbody(int n, int bodies, const float *__restrict pos,
                              const float *__restrict mass,
                              float *__restrict force) {
  for (int i = 0; i < n; ++i) {
    float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < bodies; ++j) {
      float rx = pos[3 * j] - px, ry = pos[3 * j + 1] - py,
            rz = pos[3 * j + 2] - pz;
      float d2 = rx * rx + ry * ry + rz * rz + 0.01f;
      float s = mass[j] / (d2 * std::sqrt(d2));
      fx += rx * s, fy += ry * s, fz += rz * s;
    }
    float *f = force + 3 * i;
    f[0] = fx * mass[i], f[1] = fy * mass[i], f[2] = fz * mass[i];
  }
}

KSC_BENCH_NOINLINE void transform(int n, const float *__restrict m,
                                  const float *__restrict x, const float b[3],
                                  float *__restrict y) {
  for (int i = 0; i < n; ++i) {
    const float *a = m + 9 * i, *xi = x + 3 * i;
    float u[3];
    for (int r = 0; r < 3; ++r)
      u[r] =
          a[3 * r] * xi[0] + a[3 * r + 1] * xi[1] + a[3 * r + 2] * xi[2] + b[r];
    for (int c = 0; c < 3; ++c)
      y[3 * i + c] = a[c] * u[0] + a[3 + c] * u[1] + a[6 + c] * u[2];
  }
}

KSC_BENCH_NOINLINE void horner(int n, const float *__restrict coeff,
                               const float *__restrict x, float *__restrict y,
                               int terms) {
  for (int i = 0; i < n; ++i) {
    float t = x[i], s = 0.0f;
    for (int k = 0; k < terms; ++k)
      s = s * t + coeff[k];
    y[i] = s;
  }
}

KSC_BENCH_NOINLINE void newton_sqrt(int n, const float *__restrict x,
                                    float *__restrict y) {
  for (int i = 0; i < n; ++i) {
    float v = x[i], t = v;
    for (int steps = 0; std::fabs(t * t - v) > 1e-5f * v && steps < 50; ++steps)
      t = 0.5f * (t + v / t);
    y[i] = t;
  }
}

KSC_BENCH_NOINLINE void stream_triad(int n, const float *__restrict a,
                                     const float *__restrict b, float s,
                                     float *__restrict c) {
  for (int i = 0; i < n; ++i)
    c[i] = a[i] + s * b[i];
}

} // namespace

namespace cpu_bench::hand {

void launch(Saxpy &d) {
  saxpy(opaque(int(kThreads)), d.a, d.x.data(), d.y.data());
}
void launch(Integrate &d) {
  const float g[3] = {d.g.x, d.g.y, d.g.z};
  integrate(opaque(int(kThreads)), raw(d.p), raw(d.v), d.m.data(), g, d.dt);
}
void launch(Nbody &d) {
  nbody(opaque(int(kThreads)), opaque(kBodies), raw(d.pos), d.m.data(),
        raw(d.f));
}
void launch(Transform &d) {
  const float b[3] = {d.b.x, d.b.y, d.b.z};
  transform(opaque(int(kThreads)), raw(d.m), raw(d.x), b, raw(d.y));
}
void launch(Horner &d) {
  horner(opaque(int(kThreads)), d.c.data(), d.x.data(), d.y.data(),
         opaque(kTerms));
}
void launch(Newton &d) {
  newton_sqrt(opaque(int(kThreads)), d.x.data(), d.y.data());
}
void launch(Stream &d) {
  stream_triad(opaque(int(kStreamThreads)), d.a.data(), d.b.data(), d.s,
               d.c.data());
}

} // namespace cpu_bench::hand
