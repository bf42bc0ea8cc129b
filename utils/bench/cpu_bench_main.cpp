// The CPU throughput benchmark (run-cpu-bench.sh builds and runs it): for
// every kernel, the hand-written loop of K, and K and K_adj through ksc's
// serial launchers and through its parallel ones on 1 and 2 OS threads
// (CPU_BENCH_THREADS, a comma-separated list, picks other numbers: modes
// K_<n>t and K_adj_<n>t).
//
// Before timing anything it checks, for every kernel, that ksc's K (each
// launcher, each number of OS threads) computes what the hand-written loop
// computes, and that K_adj's parallel launchers compute what its serial
// one does (up to the order of the sums). A mismatch stops the benchmark,
// unless CPU_BENCH_KEEP_GOING=1: then the results of the launchers that
// failed are labelled WRONG.

#include "cpu_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

using namespace cpu_bench;

namespace {

template <typename D> using Launch = void (*)(D &);

/// One way to run a kernel: `threads` OS threads for ksc's parallel
/// launchers (set_num_threads), 0 for the others.
template <typename D> struct Mode {
  std::string name;
  Launch<D> launch;
  int threads;
  bool adjoint;
};

/// The numbers of OS threads of the parallel modes: CPU_BENCH_THREADS
/// ("1,2,4"), else 1 and 2.
std::vector<int> thread_counts() {
  std::vector<int> counts;
  const char *list = std::getenv("CPU_BENCH_THREADS");
  for (const char *p = list ? list : ""; *p;) {
    char *end;
    long n = std::strtol(p, &end, 10);
    if (end == p || n < 1 || n > 4096 || (*end && *end != ',')) {
      std::fprintf(stderr, "cpu_bench: bad CPU_BENCH_THREADS '%s'\n", list);
      std::exit(1);
    }
    counts.push_back(int(n));
    p = *end ? end + 1 : end;
  }
  if (counts.empty())
    counts = {1, 2};
  return counts;
}

/// Every mode; the references come first: the hand-written loop (for K)
/// and the serial K_adj (for K_adj).
template <typename D> std::vector<Mode<D>> modes() {
  std::vector<Mode<D>> all = {{"hand", hand::launch, 0, false},
                              {"K_adj_serial", serial_adj::launch, 0, true},
                              {"K_serial", serial_k::launch, 0, false}};
  for (bool adjoint : {false, true})
    for (int n : thread_counts())
      all.push_back({(adjoint ? "K_adj_" : "K_") + std::to_string(n) + "t",
                     adjoint ? Launch<D>(parallel_adj::launch)
                             : Launch<D>(parallel_k::launch),
                     n, adjoint});
  return all;
}

/// "kernel/mode" of the launchers whose results were wrong.
std::set<std::string> wrong;
bool keep_going() {
  const char *value = std::getenv("CPU_BENCH_KEEP_GOING");
  return value && *value && std::string(value) != "0";
}

/// Compares every output array of `got` with `want`: an element matches
/// when it is within `tolerance` times the largest magnitude of its array
/// (differences in the order of float sums stay far below it). Prints the
/// first mismatch of each array; returns the largest difference, relative
/// to that magnitude, or -1 on a mismatch.
double compare(const char *kernel, const std::string &what, const Outputs &want,
               const Outputs &got, double tolerance) {
  double worst = 0;
  bool ok = true;
  for (size_t k = 0; k < want.size(); ++k) {
    const std::vector<float> &w = want[k].second, &g = got[k].second;
    double scale = 0;
    for (float v : w)
      scale = std::max(scale, double(std::fabs(v)));
    scale = std::max(scale, 1e-30);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      double diff = std::fabs(double(w[i]) - double(g[i])) / scale;
      if (!(diff <= tolerance)) { // NaN too
        if (!bad++)
          first = i;
      } else {
        worst = std::max(worst, diff);
      }
    }
    if (bad) {
      ok = false;
      std::fprintf(stderr,
                   "cpu_bench: MISMATCH %s %s: %s[%zu] = %.9g, expected %.9g "
                   "(%zu of %zu elements differ)\n",
                   kernel, what.c_str(), want[k].first, first, g[first],
                   w[first], bad, w.size());
    }
  }
  return ok ? worst : -1;
}

/// Checks kernel D's launchers; records the wrong ones in `wrong`.
template <typename D> void check() {
  D d;
  auto run = [&](const Mode<D> &mode) {
    d.reset();
    ksc::set_num_threads(mode.threads);
    mode.launch(d);
    ksc::set_num_threads(0);
    return mode.adjoint ? d.adj_outputs() : d.k_outputs();
  };
  std::vector<Mode<D>> all = modes<D>();
  Outputs hand = run(all[0]), adjoint = run(all[1]);
  std::string line = std::string(D::kName) + ":";
  for (size_t m = 2; m < all.size(); ++m) {
    const Mode<D> &mode = all[m];
    std::string what = mode.name + " vs " +
                       (mode.adjoint ? "K_adj_serial" : "hand loop");
    double diff = compare(D::kName, what, mode.adjoint ? adjoint : hand,
                          run(mode), mode.adjoint ? 1e-4 : 1e-5);
    char text[64];
    if (diff < 0) {
      wrong.insert(std::string(D::kName) + "/" + mode.name);
      std::snprintf(text, sizeof text, " %s WRONG", mode.name.c_str());
    } else {
      std::snprintf(text, sizeof text, " %s %.1e", mode.name.c_str(), diff);
    }
    line += text;
  }
  std::fprintf(stderr, "cpu_bench: check %s\n", line.c_str());
}

/// The data of kernel D for the benchmarks, made on first use.
template <typename D> D &data() {
  static D d;
  return d;
}

template <typename D> void add(int64_t threads_per_launch) {
  for (const Mode<D> &mode : modes<D>()) {
    std::string name = std::string(D::kName) + "/" + mode.name;
    bool is_wrong = wrong.count(name) != 0;
    benchmark::RegisterBenchmark(name.c_str(),
                                 [=](benchmark::State &state) {
                                   D &d = data<D>();
                                   d.reset();
                                   ksc::set_num_threads(mode.threads);
                                   for (auto _ : state) {
                                     state.PauseTiming();
                                     if (mode.adjoint)
                                       d.reset_adj();
                                     else
                                       d.reset_k();
                                     state.ResumeTiming();
                                     mode.launch(d);
                                     benchmark::ClobberMemory();
                                   }
                                   ksc::set_num_threads(0);
                                   state.SetItemsProcessed(state.iterations() *
                                                           threads_per_launch);
                                   if (is_wrong)
                                     state.SetLabel("WRONG");
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  if (const char *n = std::getenv("KSC_NUM_THREADS"); n && *n) {
    std::fprintf(stderr,
                 "cpu_bench: unset KSC_NUM_THREADS (%s): it would "
                 "override the benchmark's numbers of threads\n",
                 n);
    return 1;
  }
#define CPU_BENCH_CHECK(Kernel, size) check<Kernel>();
  CPU_BENCH_KERNELS(CPU_BENCH_CHECK)
  if (!wrong.empty()) {
    if (!keep_going()) {
      std::fprintf(stderr,
                   "cpu_bench: error: %zu launchers computed wrong "
                   "results (CPU_BENCH_KEEP_GOING=1 times them "
                   "anyway)\n",
                   wrong.size());
      return 1;
    }
    std::fprintf(stderr, "cpu_bench: timing %zu wrong launchers anyway\n",
                 wrong.size());
  }
#define CPU_BENCH_ADD(Kernel, size) add<Kernel>(size);
  CPU_BENCH_KERNELS(CPU_BENCH_ADD)
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
