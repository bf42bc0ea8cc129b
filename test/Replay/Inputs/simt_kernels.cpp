// Hand-written kernels for the SIMT stand-in (cuda_host.h), launched through
// ksc_host::launch as the stand-in CUDA driver launches ksc's: warp
// shuffles, votes and matches, __activemask, warp and block sums, and the
// errors the stand-in reports. `simt_kernels TEST` runs one test and prints
// what FileCheck checks (test/Replay/simt-stand-in.test); `simt_kernels
// speed [BLOCKS]` times a warp sum and a block sum over BLOCKS blocks of 256
// threads (default 4096: 1M threads).
#include "cuda_host.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

/// Launches `kernel` on `blocks` blocks of `block_size` threads with
/// `args`; prints the error of a failed launch. Returns launch's status.
template <typename... A>
int run(void (*kernel)(ksc::grid, A...), unsigned blocks, unsigned block_size,
        A... args) {
  ksc::grid dim(int64_t(blocks) * block_size);
  void *params[] = {&dim, &args...};
  char message[4096] = "";
  int status = ksc_host::launch(kernel, blocks, block_size, params, message,
                                sizeof(message));
  if (status)
    std::printf("launch failed: %s", message);
  return status;
}

unsigned lane_id() { return threadIdx.x % 32; }
unsigned warp_id() { return threadIdx.x / 32; }
/// The lanes of the caller's warp that exist.
unsigned warp_lanes() {
  unsigned lanes = blockDim.x - 32 * warp_id();
  return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
}

// --- Shuffles ---------------------------------------------------------------

struct shuffled {
  int down, up, xr, idx, down3, xor8;
  bool typed; // the long long, float and double shuffles agree
};

// In a full warp: width 32 (8 for down3 and xor8); in the last, partial
// one: width = its number of lanes (8 or 4), so that no lane reads a
// missing one.
void shuffles(ksc::grid, shuffled *out) {
  unsigned t = threadIdx.x, mask = warp_lanes();
  int width = mask == 0xffffffffu ? 32 : __popc(mask);
  int v = 100 + int(t);
  shuffled &r = out[t];
  r.down = __shfl_down_sync(mask, v, 1, width);
  r.up = __shfl_up_sync(mask, v, 2, width);
  r.xr = __shfl_xor_sync(mask, v, 1, width);
  r.idx = __shfl_sync(mask, v, int(lane_id()) + 3, width);
  r.down3 = __shfl_down_sync(mask, v, 3, width < 8 ? width : 8);
  // Lanes may read earlier segments, not later ones.
  r.xor8 = __shfl_xor_sync(mask, v, 8, width < 8 ? width : 8);
  long long wide = __shfl_down_sync(mask, (long long)v << 33, 1, width);
  float f = __shfl_down_sync(mask, float(v) * 0.5f, 1, width);
  double d = __shfl_down_sync(mask, double(v) * 0.25, 1, width);
  unsigned long u = __shfl_down_sync(mask, (unsigned long)v, 1, width);
  r.typed = wide == (long long)r.down << 33 && f == float(r.down) * 0.5f &&
            d == double(r.down) * 0.25 && u == (unsigned long)r.down;
}

int test_shuffles(unsigned block_size) {
  std::vector<shuffled> out(block_size);
  if (run(shuffles, 1u, block_size, out.data()))
    return 1;
  bool typed = true;
  for (unsigned t = 0; t < block_size; ++t) {
    std::printf("%u: down %d up %d xor %d idx %d down3 %d xor8 %d\n", t,
                out[t].down, out[t].up, out[t].xr, out[t].idx, out[t].down3,
                out[t].xor8);
    typed = typed && out[t].typed;
  }
  std::printf("typed shuffles %s\n", typed ? "agree" : "DIFFER");
  return 0;
}

// --- Sums -------------------------------------------------------------------

float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

float warp_sum_xor(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/// A block of whole warps: lane 0 of each warp writes its sum, warp 0 adds
/// them.
float block_sum(float v) {
  __shared__ float partial[32];
  v = warp_sum(v);
  if (lane_id() == 0)
    partial[warp_id()] = v;
  __syncthreads();
  float total = 0;
  if (warp_id() == 0) {
    v = lane_id() < blockDim.x / 32 ? partial[lane_id()] : 0.0f;
    total = warp_sum(v);
  }
  // partial is read before any warp of the next use writes it.
  __syncthreads();
  return total;
}

void sums(ksc::grid, const float *x, float *warps, float *warps_xor,
          float *blocks) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  float w = warp_sum(v), all = warp_sum_xor(v);
  if (lane_id() == 0)
    warps[i / 32] = w;
  // Every lane has the butterfly's sum.
  if (all != __shfl_sync(0xffffffffu, all, 0))
    warps_xor[i / 32] = NAN;
  else if (lane_id() == 31)
    warps_xor[i / 32] = all;
  float b = block_sum(v);
  if (threadIdx.x == 0)
    blocks[blockIdx.x] = b;
}

/// Whether `sum` is the sum of `count` values of x from `first`: equal when
/// `exact`, else within float's rounding.
bool sum_ok(const std::vector<float> &x, size_t first, size_t count, float sum,
            bool exact) {
  double reference = 0, magnitude = 0;
  for (size_t k = first; k < first + count; ++k) {
    reference += x[k];
    magnitude += std::fabs(x[k]);
  }
  return exact ? double(sum) == reference
               : std::fabs(sum - reference) <= 1e-6 * magnitude + 1e-30;
}

int test_sums(unsigned blocks, unsigned block_size, bool exact) {
  size_t n = size_t(blocks) * block_size;
  std::vector<float> x(n), warps(n / 32), warps_xor(n / 32), sums_(blocks);
  for (size_t i = 0; i < n; ++i)
    // Multiples of 1/4 from -2 to 2: every float sum is exact.
    x[i] = exact ? float(i % 17) * 0.25f - 2.0f : float(std::sin(i * 0.37));
  if (run(sums, blocks, block_size, (const float *)x.data(), warps.data(),
          warps_xor.data(), sums_.data()))
    return 1;
  unsigned bad = 0;
  for (size_t w = 0; w < n / 32; ++w)
    bad += !sum_ok(x, 32 * w, 32, warps[w], exact) +
           !sum_ok(x, 32 * w, 32, warps_xor[w], exact);
  for (size_t b = 0; b < blocks; ++b)
    bad += !sum_ok(x, b * block_size, block_size, sums_[b], exact);
  std::printf("%zu threads: %zu warp sums, %u block sums, %u wrong\n", n,
              2 * (n / 32), blocks, bad);
  return bad != 0;
}

/// What the speed check times: a warp sum and a block sum per thread.
void warp_and_block_sums(ksc::grid, const float *x, float *warps,
                         float *blocks) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  float w = warp_sum(v), b = block_sum(v);
  if (lane_id() == 0)
    warps[i / 32] = w;
  if (threadIdx.x == 0)
    blocks[blockIdx.x] = b;
}

int speed(unsigned blocks) {
  size_t n = size_t(blocks) * 256;
  std::vector<float> x(n), warps(n / 32), sums_(blocks);
  for (size_t i = 0; i < n; ++i)
    x[i] = float(std::sin(i * 0.37));
  auto start = std::chrono::steady_clock::now();
  if (run(warp_and_block_sums, blocks, 256u, (const float *)x.data(),
          warps.data(), sums_.data()))
    return 1;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  unsigned bad = 0;
  for (size_t w = 0; w < n / 32; ++w)
    bad += !sum_ok(x, 32 * w, 32, warps[w], false);
  for (size_t b = 0; b < blocks; ++b)
    bad += !sum_ok(x, b * 256, 256, sums_[b], false);
  std::printf("%zu threads: a warp sum and a block sum each, %u wrong, in "
              "%.2f s\n",
              n, bad, seconds);
  return bad != 0;
}

// --- Votes and matches ------------------------------------------------------

struct voted {
  unsigned ballot, match3, match_wide, match_double, match_all;
  int any, all, all_pred, count, both, either;
};

void votes(ksc::grid, voted *out) {
  unsigned t = threadIdx.x, lane = lane_id(), mask = warp_lanes();
  voted &r = out[t];
  r.ballot = __ballot_sync(mask, lane % 2 == 0);
  r.any = __any_sync(mask, lane == 5);
  r.all = __all_sync(mask, lane < 40);
  r.match3 = __match_any_sync(mask, int(lane % 3));
  r.match_wide = __match_any_sync(mask, (long long)(lane / 8) << 40);
  r.match_double = __match_any_sync(mask, lane < 4 ? 1.5 : -0.0);
  r.match_all = __match_all_sync(mask, 7u, &r.all_pred);
  r.count = __syncthreads_count(lane < 10);
  r.both = __syncthreads_and(t < 1000);
  r.either = __syncthreads_or(t == 3);
}

int test_votes(unsigned block_size) {
  std::vector<voted> out(block_size);
  if (run(votes, 1u, block_size, out.data()))
    return 1;
  for (unsigned t = 0; t < block_size; ++t) {
    if (t % 32 != 0 && t % 32 != 31 && t + 1 != block_size)
      continue;
    const voted &r = out[t];
    std::printf("%u: ballot 0x%08x any %d all %d match3 0x%08x wide 0x%08x "
                "double 0x%08x match_all 0x%08x %d count %d and %d or %d\n",
                t, r.ballot, r.any, r.all, r.match3, r.match_wide,
                r.match_double, r.match_all, r.all_pred, r.count, r.both,
                r.either);
  }
  return 0;
}

// --- Atomics ----------------------------------------------------------------

struct counters {
  float sum;
  double dsum;
  int max, sub;
  unsigned ring, first;
  unsigned long long bits;
};

void atomics(ksc::grid, counters *c) {
  unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  atomicAdd(&c->sum, 0.5f);
  atomicAdd(&c->dsum, 0.25);
  atomicMax(&c->max, int(t * 7 % 100));
  atomicSub(&c->sub, 2);
  atomicInc(&c->ring, 9u);
  atomicCAS(&c->first, ~0u, t);
  atomicOr(&c->bits, 1ull << (t % 64));
}

int test_atomics() {
  counters c = {0, 0, -1, 0, 0, ~0u, 0};
  if (run(atomics, 2u, 50u, &c))
    return 1;
  std::printf("sum %g dsum %g max %d sub %d ring %u first %u bits 0x%llx\n",
              c.sum, c.dsum, c.max, c.sub, c.ring, c.first, c.bits);
  return 0;
}

// --- __activemask -----------------------------------------------------------

/// The sum of `value` over the lanes of `mask` (which every lane of it
/// passes), through shuffles of that mask.
int group_sum(unsigned mask, int value) {
  int sum = 0;
  for (unsigned bits = mask; bits; bits &= bits - 1)
    sum += __shfl_sync(mask, value, __ffs(int(bits)) - 1);
  return sum;
}

/// The masks of a divergent if (its branches differ before and after the
/// call, so that no compiler merges the two calls) and of an if only some
/// lanes enter, with the sum of the lane indices of each group.
void divergent(ksc::grid, int *tags, unsigned *masks, unsigned *few,
               int *sums) {
  unsigned t = threadIdx.x, lane = lane_id();
  unsigned m;
  if (lane % 3 == 0) {
    tags[t] = 1;
    m = __activemask();
    sums[t] = group_sum(m, int(lane));
  } else {
    tags[t] = 2;
    m = __activemask();
    sums[t] = __popc(__ballot_sync(m, 1)) * 1000 + group_sum(m, int(lane));
  }
  masks[t] = m;
  few[t] = 0;
  if (lane < 10)
    few[t] = __activemask();
}

int test_divergent(unsigned block_size) {
  std::vector<unsigned> masks(block_size), few(block_size);
  std::vector<int> tags(block_size), sums(block_size);
  if (run(divergent, 1u, block_size, tags.data(), masks.data(), few.data(),
          sums.data()))
    return 1;
  for (unsigned t = 0; t < block_size; ++t)
    if (t % 32 < 3 || t + 1 == block_size)
      std::printf("%u: if 0x%08x sum %d, lanes < 10 0x%08x\n", t, masks[t],
                  sums[t], few[t]);
  return 0;
}

constexpr int kMaxTrips = 5;

/// Per-thread trip counts: each trip's __activemask, and the sum of the
/// values of its group through shuffles of that mask.
void loop(ksc::grid, const int *trips, unsigned *masks, int *sums) {
  unsigned t = threadIdx.x;
  for (int k = 0; k < trips[t]; ++k) {
    unsigned m = __activemask();
    masks[t * kMaxTrips + k] = m;
    sums[t * kMaxTrips + k] = group_sum(m, int(t) * 10 + k);
  }
}

int test_loop(unsigned block_size) {
  std::vector<int> trips(block_size), sums(block_size * kMaxTrips);
  std::vector<unsigned> masks(block_size * kMaxTrips);
  for (unsigned t = 0; t < block_size; ++t)
    trips[t] = int(t * 7 % kMaxTrips);
  if (run(loop, 1u, block_size, (const int *)trips.data(), masks.data(),
          sums.data()))
    return 1;
  // Converged: the group of trip k is every lane of the warp with more
  // than k trips. Split: a part of it, the same for each lane of the part.
  unsigned calls = 0, split = 0, wrong = 0;
  for (unsigned t = 0; t < block_size; ++t)
    for (int k = 0; k < trips[t]; ++k) {
      unsigned base = t - t % 32, converged = 0;
      for (unsigned j = base; j < base + 32 && j < block_size; ++j)
        if (trips[j] > k)
          converged |= 1u << (j - base);
      unsigned m = masks[t * kMaxTrips + k];
      int sum = 0;
      bool ok = (m >> (t % 32) & 1) && (m & ~converged) == 0;
      for (unsigned bits = m; ok && bits; bits &= bits - 1) {
        unsigned j = base + __builtin_ctz(bits);
        ok = masks[j * kMaxTrips + k] == m;
        sum += int(j) * 10 + k;
      }
      ok = ok && sum == sums[t * kMaxTrips + k];
      ++calls;
      split += m != converged;
      wrong += !ok;
      if (t < 2)
        std::printf("%u: trip %d mask 0x%08x\n", t, k, m);
    }
  std::printf("%u __activemask calls, %u split, %u wrong\n", calls, split,
              wrong);
  return wrong != 0;
}

// --- Errors -----------------------------------------------------------------

void outside_mask(ksc::grid, int *out) {
  unsigned t = threadIdx.x, lane = lane_id();
  if (blockIdx.x == 3 && warp_id() == 1 && lane < 6)
    out[t] = __shfl_sync(0x3fu, int(t), lane == 5 ? 9 : int(lane));
}

void not_in_mask(ksc::grid, unsigned *out) {
  out[threadIdx.x] = __ballot_sync(threadIdx.x == 3 ? 0x1u : 0xffffffffu, 1);
}

/// Lanes from `first_exit` to `last_exit` return; the others shuffle with a
/// full mask.
void exited_lane(ksc::grid, unsigned first_exit, unsigned last_exit, int *out) {
  unsigned lane = lane_id();
  if (lane >= first_exit && lane <= last_exit)
    return;
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, int(lane), 1);
}

/// Threads from `first_exit` to `last_exit` return before __syncthreads.
void divergent_barrier(ksc::grid, unsigned first_exit, unsigned last_exit) {
  if (threadIdx.x >= first_exit && threadIdx.x <= last_exit)
    return;
  __syncthreads();
}

void deadlock(ksc::grid, int *out) {
  if (threadIdx.x == 0)
    out[0] = __shfl_sync(0x3u, 1, 1);
  else
    __syncthreads();
}

void mismatch(ksc::grid, int *out) {
  if (threadIdx.x == 0)
    out[0] = __shfl_sync(0x3u, 1, 1);
  else if (threadIdx.x == 1)
    out[1] = int(__ballot_sync(0x3u, 1));
}

void partial_full_mask(ksc::grid, int *out) {
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
}

std::atomic<int> constructed{0}, destroyed{0};
struct counted {
  counted() { ++constructed; }
  ~counted() { ++destroyed; }
};

/// Threads 40 and 63 of block 1 fail (63 first: it completes the shuffle);
/// the others wait at a barrier or a shuffle when the launch ends.
void throws(ksc::grid, ksc::array<float> a) {
  counted local;
  unsigned t = threadIdx.x;
  float v = __shfl_xor_sync(0xffffffffu, float(t), 1);
  if (blockIdx.x == 1 && (t == 40 || t == 63))
    ksc::check_bounds(a, "a", "throws.cu:3:7", int64_t(t) + 1000);
  __syncthreads();
  a[t] = v;
}

int test_errors(const char *which) {
  std::vector<int> out(256);
  std::string test = which;
  if (test == "outside-mask")
    return run(outside_mask, 4u, 64u, out.data());
  if (test == "not-in-mask") {
    std::vector<unsigned> ballots(32);
    return run(not_in_mask, 1u, 32u, ballots.data());
  }
  if (test == "exited-later")
    return run(exited_lane, 1u, 32u, 16u, 31u, out.data());
  if (test == "exited-before")
    return run(exited_lane, 1u, 32u, 0u, 0u, out.data());
  if (test == "barrier-later")
    return run(divergent_barrier, 2u, 64u, 40u, 63u);
  if (test == "barrier-before")
    return run(divergent_barrier, 2u, 64u, 0u, 7u);
  if (test == "deadlock")
    return run(deadlock, 1u, 64u, out.data());
  if (test == "mismatch")
    return run(mismatch, 1u, 32u, out.data());
  if (test == "partial-full-mask")
    return run(partial_full_mask, 1u, 40u, out.data());
  if (test == "throws") {
    std::vector<float> data(64);
    ksc::array<float> a(data.data(), 64);
    int status = run(throws, 3u, 64u, a);
    std::printf("%d of %d locals destroyed\n", destroyed.load(),
                constructed.load());
    return status;
  }
  std::fprintf(stderr, "unknown test %s\n", which);
  return 2;
}

// --- Two launches at once ---------------------------------------------------

std::atomic<int> phase{0};

void waits_for_other_launch(ksc::grid) {
  phase = 1;
  while (phase != 2)
    std::this_thread::yield();
}

void nothing(ksc::grid) {}

int test_concurrent() {
  std::thread first([] { run(waits_for_other_launch, 1u, 1u); });
  while (phase != 1)
    std::this_thread::yield();
  int status = run(nothing, 1u, 1u);
  phase = 2;
  first.join();
  return status;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  std::string test = argv[1];
  unsigned size = argc > 2 ? unsigned(std::atoi(argv[2])) : 0;
  if (test == "shuffles")
    return test_shuffles(size);
  if (test == "sums")
    return test_sums(size, 256, true) | test_sums(size, 96, false);
  if (test == "speed")
    return speed(size ? size : 4096);
  if (test == "votes")
    return test_votes(size);
  if (test == "atomics")
    return test_atomics();
  if (test == "divergent")
    return test_divergent(size);
  if (test == "loop")
    return test_loop(size);
  if (test == "concurrent")
    return test_concurrent();
  return test_errors(argv[1]);
}
