// The pool of parallel CPU launches (ksc::parallel_launch) under stress, for
// ThreadSanitizer: launches from several application threads at once,
// launches inside launches, failing launches, per-chunk and per-OS-thread
// sums, an application's own executor. Every result is checked against a
// value computed here without ksc; a data race or a deadlock fails the
// test (TSan reports, lit's timeout).
#include "ksc_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {
int failures = 0;

void expect(bool ok, const std::string &what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }
}

// y[i] = 2 * x[i] + i; total[0] += x[i] (per chunk); hist[i % 7] += 1 (per
// OS thread): all exact in floats for these small integers.
void launch_once(int n, int grain) {
  std::vector<float> x(n), y(n), total(1), hist(7);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 5);
  ksc::array<float> X(x.data(), n), Y(y.data(), n), T(total.data(), 1),
      H(hist.data(), 7);
  ksc::parallel_launch(
      ksc::grid(n), grain, ksc::chunk_sums<1>(T), ksc::worker_sums(H),
      [&](int begin, int end, ksc::array<float> sum, ksc::array<float> h) {
        for (int i = begin; i < end; ++i) {
          Y[i] = 2.0f * X[i] + float(i);
          ksc::exclusive_add(sum, 0, X[i]);
          ksc::exclusive_add(h, i % 7, 1.0f);
        }
      });
  double expected = 0;
  for (int i = 0; i < n; ++i) {
    expected += i % 5;
    if (y[i] != 2.0f * float(i % 5) + float(i)) {
      expect(false, "y[" + std::to_string(i) + "]");
      return;
    }
  }
  expect(total[0] == float(expected), "total of " + std::to_string(n));
  for (int b = 0; b < 7; ++b)
    expect(hist[b] == float(n / 7 + (b < n % 7)),
           "hist[" + std::to_string(b) + "] of " + std::to_string(n));
}

// A launch whose threads 1000 and 3000 fail: the error is thread 1000's.
void failing_launch() {
  std::string message;
  try {
    ksc::parallel_launch(ksc::grid(5000), 1, [&](int begin, int end) {
      for (int i = begin; i < end; ++i)
        if (i == 1000 || i == 3000)
          ksc::fail_launch("thread " + std::to_string(i) + " failed");
    });
  } catch (const ksc::launch_error &e) {
    message = e.what();
  }
  expect(message == "thread 1000 failed", "failure message: " + message);
}

// A launch whose threads each start a launch of their own.
void nested_launch() {
  std::vector<int> counts(64);
  ksc::array<int> C(counts.data(), 64);
  ksc::parallel_launch(ksc::grid(64), 1, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      std::vector<int> inner(100);
      ksc::array<int> I(inner.data(), 100);
      ksc::parallel_launch(ksc::grid(100), 1, [&](int b, int e) {
        for (int j = b; j < e; ++j)
          I[j] = j;
      });
      int sum = 0;
      for (int v : inner)
        sum += v;
      C[i] = sum;
    }
  });
  for (int i = 0; i < 64; ++i)
    expect(counts[i] == 4950, "nested launch " + std::to_string(i));
}

// An executor that runs the tasks on threads of its own.
void own_executor(int count, void (*task)(void *, int), void *context,
                  void *user) {
  ++*static_cast<int *>(user);
  std::vector<std::thread> threads;
  for (int k = 1; k < count; ++k)
    threads.emplace_back([=] { task(context, k); });
  task(context, 0);
  for (std::thread &t : threads)
    t.join();
}
} // namespace

int main() {
  ksc::set_num_threads(4);
  for (int n : {0, 1, 7, 1000, 1024, 1025, 100000})
    for (int grain : {1, 1024})
      launch_once(n, grain);
  failing_launch();
  nested_launch();

  // Launches from 4 application threads at once: one gets the pool, the
  // others run on their own thread; all give exact results.
  std::vector<std::thread> apps;
  for (int t = 0; t < 4; ++t)
    apps.emplace_back([t] {
      for (int r = 0; r < 20; ++r) {
        launch_once(3000 + 100 * t, 1);
        if (r % 5 == 0)
          failing_launch();
      }
    });
  for (std::thread &t : apps)
    t.join();

  int calls = 0;
  ksc::set_executor(own_executor, &calls);
  launch_once(10000, 1);
  failing_launch();
  ksc::set_executor(nullptr);
  expect(calls == 2, "the executor ran " + std::to_string(calls) + " launches");
  launch_once(10000, 1);

  if (failures == 0)
    std::printf("pool ok\n");
  return failures ? 1 : 0;
}
