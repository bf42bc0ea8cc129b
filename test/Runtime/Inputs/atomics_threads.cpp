// Hammers the runtime's atomics from several std::threads at once and checks
// that no update is lost: the sums, minima and maxima must be exact. A plain
// read-modify-write loses updates here.
#include "ksc_runtime.h"

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace {
constexpr int kThreads = 8;
// Enough for the threads to overlap on a busy machine: a plain
// read-modify-write fails here every time (checked by hand).
constexpr int kIterations = 1000000;
int failures = 0;

template <typename T> void expect(const char *what, T actual, T expected) {
  if (actual == expected)
    return;
  std::printf("FAIL %s: got %.17g, expected %.17g\n", what, double(actual),
              double(expected));
  ++failures;
}

/// Runs body(t) on kThreads threads that all start together.
template <typename F> void run_threads(F body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads)
        std::this_thread::yield();
      body(t);
    });
  for (std::thread &thread : threads)
    thread.join();
}
} // namespace

int main() {
  // Every thread adds 1 to the same float element kIterations times: all
  // partial sums are integers below 2^24 (8000000 in all), so the total is
  // exact; so are the other sums.
  float f[2] = {0.0f, 0.0f};
  ksc::array<float> fa(f, 2);
  double d[1] = {0.0};
  ksc::array<double> da(d, 1);
  int n[4] = {0, 0, 0, 0};
  ksc::array<int> na(n, 4);
  int64_t big[1] = {int64_t(1) << 40};
  ksc::array<int64_t> ba(big, 1);
  // A 2 x 2 view of float data, for the multi-index overloads.
  float g[4] = {0, 0, 0, 0};
  ksc_array_desc desc = {g, 2, {2, 2}, {2, 1}};
  ksc::array<float, 2> ga(desc);

  run_threads([&](int t) {
    for (int k = 0; k < kIterations; ++k) {
      ksc::atomic_add(fa, 0, 1.0f);
      ksc::atomic_sub(fa, 1, 0.5f);
      ksc::atomic_add(da, 0, 0.25);
      ksc::atomic_add(na, 0, 1);
      ksc::atomic_sub(na, 1, 2);
      ksc::atomic_add(ba, 0, int64_t(3));
      ksc::atomic_add(ga, t % 2, 1, 1.0f);
      // Values interleave between threads; the extremes are known.
      int v = int((int64_t(k) * 7919 + int64_t(t) * 104729) % 1000003);
      ksc::atomic_min(na, 2, -v);
      ksc::atomic_max(na, 3, v);
    }
  });

  const int total = kThreads * kIterations;
  expect("float add", f[0], float(total));
  expect("float sub", f[1], -0.5f * float(total));
  expect("double add", d[0], 0.25 * total);
  expect("int add", n[0], total);
  expect("int sub", n[1], -2 * total);
  expect("int64_t add", big[0], (int64_t(1) << 40) + int64_t(3) * total);
  expect("2-D float add (0, 1)", g[1], float(total / 2));
  expect("2-D float add (1, 1)", g[3], float(total / 2));
  int lo = 0, hi = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kIterations; ++k) {
      int v = int((int64_t(k) * 7919 + int64_t(t) * 104729) % 1000003);
      lo = std::min(lo, -v);
      hi = std::max(hi, v);
    }
  expect("int min", n[2], lo);
  expect("int max", n[3], hi);

  // Floating-point min and max under contention: thread t offers
  // 1000 t + (k mod 1000); the extremes are 0 and 1000 (kThreads - 1) + 999.
  float fmin_[1] = {1e30f}, fmax_[1] = {-1e30f};
  ksc::array<float> fmina(fmin_, 1), fmaxa(fmax_, 1);
  run_threads([&](int t) {
    for (int k = 0; k < kIterations; ++k) {
      float v = float(t) * 1000.0f + float(k % 1000);
      ksc::atomic_min(fmina, 0, v);
      ksc::atomic_max(fmaxa, 0, v);
    }
  });
  expect("float min", fmin_[0], 0.0f);
  expect("float max", fmax_[0], float(kThreads - 1) * 1000.0f + 999.0f);

  if (failures)
    return 1;
  std::printf("all atomics exact under %d threads\n", kThreads);
  return 0;
}
