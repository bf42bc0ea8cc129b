// Compiles CUDA C++ of `ksc --target=cuda` (and hand-written kernels with
// its ABI) as host C++, for the stand-in CUDA driver
// (test/Run/Cuda/Inputs/fake_cuda.cpp) to run as a GPU would: a SIMT
// stand-in. utils/lit/stand-in-code.py includes this before each CUDA C++
// file of a bundle and adds an entry point per kernel.
//
// Design:
// - The CUDA keywords are nothing (`__shared__` is `static`); blockIdx,
//   blockDim, threadIdx and gridDim are variables.
// - ksc_host::launch runs the launch's blocks one after another on the
//   calling OS thread. Within a block every GPU thread is a fiber
//   (Boost.Context), started when the scheduler first reaches it, on a stack
//   from a pool (1 MiB each above a guard page: a thread's tape can have
//   512 KiB; only the pages a thread touches take memory). A thread runs
//   until it ends or reaches a collective: one that calls none runs straight
//   to its end, and its stack goes to the next thread.
// - Collectives (__syncthreads, the warp *_sync functions, __activemask)
//   record what the thread waits at and switch to the scheduler; the last
//   thread to arrive completes the collective for all (checks, results).
//   The scheduler always resumes the lowest thread that can go on (setting
//   threadIdx first): the lanes of a warp take turns in lane order, each
//   running from one collective to the next, as a warp runs them together,
//   and the warps of a block go in order as far as barriers let them, so
//   that atomics with no collective between them happen in thread order, as
//   on the CPU. Warps are 32 consecutive threadIdx.x; a last, partial warp
//   has only the lanes the block has.
// - What CUDA leaves undefined is an error, not silent garbage: a mask
//   without the caller, naming lanes that do not exist or have exited, lanes
//   of a mask at different intrinsics or with different masks (or widths), a
//   shuffle reading a lane outside its mask, a thread exiting while others
//   wait at __syncthreads (or arriving after one exited), a deadlock (no
//   thread can go on). __activemask models convergence: a lane calling it
//   waits until every other lane of its warp waits at some collective or has
//   exited; the lanes waiting at the same call site (its return address)
//   then form one group, whose mask each gets. KSC_SIMT_SPLIT=<seed> splits
//   those groups at random into smaller ones (a GPU with independent thread
//   scheduling may converge less), the same way for a seed.
// - Blocks run one after another, in index order; KSC_SIMT_BLOCK_ORDER=<seed>
//   runs them in a random order instead, the same for a seed (a GPU runs
//   blocks in any order, and their atomics interleave in any order).
// - Errors: a thread that throws (ksc::launch_error from a failed check, or
//   a stand-in error) fails. The threads of its block below it go on as far
//   as they can (as on the CPU, the lowest failing thread's message is the
//   launch's); then the block's other fibers are unwound and the launch
//   returns 1 with the message the device prints before it traps.
// - __shared__ variables and the thread indices are per process: a launch
//   that starts while another runs (on another OS thread) fails.
// - Header-only by default. With KSC_SIMT_EXTERN, the intrinsics and
//   ksc_host::simt::run_launch are only declared here: one object compiled
//   from this header with KSC_SIMT_EXTERN and KSC_SIMT_IMPLEMENTATION
//   defines them (stand-in-code.py compiles it once, optimized, and links it
//   into each library of -O0 kernels: a launch of 1M threads with a few
//   collectives each takes about a second, not five, and the kernels'
//   files compile without Boost).
#ifndef KSC_TEST_CUDA_HOST_H
#define KSC_TEST_CUDA_HOST_H

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// Blocks run one after another on one OS thread: a block's shared memory
// is the function's static variable.
#define __shared__ static

struct ksc_host_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline ksc_host_dim3 blockIdx, threadIdx, blockDim, gridDim;
constexpr int warpSize = 32;

// How the intrinsics are defined: inline, or in one object. __activemask is
// never inlined (its return address tells its call sites apart): static in
// a header, since GCC warns of noinline on an inline function.
#ifdef KSC_SIMT_EXTERN
#define KSC_SIMT_INLINE
#define KSC_SIMT_NOINLINE __attribute__((noinline))
#else
#define KSC_SIMT_INLINE inline
#define KSC_SIMT_NOINLINE __attribute__((noinline, unused)) static
#endif

// The CUDA intrinsics, before the runtime, which calls them.
KSC_SIMT_INLINE void __syncthreads();
KSC_SIMT_INLINE int __syncthreads_count(int predicate);
KSC_SIMT_INLINE int __syncthreads_and(int predicate);
KSC_SIMT_INLINE int __syncthreads_or(int predicate);
KSC_SIMT_INLINE void __syncwarp(unsigned mask = 0xffffffffu);
KSC_SIMT_INLINE unsigned __ballot_sync(unsigned mask, int predicate);
KSC_SIMT_INLINE int __any_sync(unsigned mask, int predicate);
KSC_SIMT_INLINE int __all_sync(unsigned mask, int predicate);
KSC_SIMT_NOINLINE unsigned __activemask();

#define KSC_SIMT_DECLARE(T)                                                    \
  KSC_SIMT_INLINE T __shfl_sync(unsigned mask, T var, int srcLane,             \
                                int width = warpSize);                         \
  KSC_SIMT_INLINE T __shfl_up_sync(unsigned mask, T var, unsigned delta,       \
                                   int width = warpSize);                      \
  KSC_SIMT_INLINE T __shfl_down_sync(unsigned mask, T var, unsigned delta,     \
                                     int width = warpSize);                    \
  KSC_SIMT_INLINE T __shfl_xor_sync(unsigned mask, T var, int laneMask,        \
                                    int width = warpSize);                     \
  KSC_SIMT_INLINE unsigned __match_any_sync(unsigned mask, T value);           \
  KSC_SIMT_INLINE unsigned __match_all_sync(unsigned mask, T value, int *pred);
KSC_SIMT_DECLARE(int)
KSC_SIMT_DECLARE(unsigned)
KSC_SIMT_DECLARE(long)
KSC_SIMT_DECLARE(unsigned long)
KSC_SIMT_DECLARE(long long)
KSC_SIMT_DECLARE(unsigned long long)
KSC_SIMT_DECLARE(float)
KSC_SIMT_DECLARE(double)
#undef KSC_SIMT_DECLARE

// One OS thread runs a launch: a fence orders nothing more.
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// The bit intrinsics.
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x ? __builtin_clz(unsigned(x)) : 32; }
inline int __clzll(long long x) {
  return x ? __builtin_clzll((unsigned long long)x) : 64;
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1)
    r = (r << 1) | (x & 1);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(unsigned(x))) << 32) |
         __brev(unsigned(x >> 32));
}

// CUDA's atomics (hand-written kernels call them). One OS thread runs a
// launch, and a GPU thread gives way only at collectives: a plain
// read-modify-write is atomic.
#define KSC_HOST_ATOMIC(name, T, expression)                                   \
  inline T name(T *address, T value) {                                         \
    T old = *address;                                                          \
    *address = expression;                                                     \
    return old;                                                                \
  }
#define KSC_HOST_ATOMICS(T)                                                    \
  KSC_HOST_ATOMIC(atomicAdd, T, old + value)                                   \
  KSC_HOST_ATOMIC(atomicExch, T, value)
#define KSC_HOST_INTEGER_ATOMICS(T)                                            \
  KSC_HOST_ATOMIC(atomicMin, T, value < old ? value : old)                     \
  KSC_HOST_ATOMIC(atomicMax, T, old < value ? value : old)                     \
  KSC_HOST_ATOMIC(atomicAnd, T, (old & value))                                 \
  KSC_HOST_ATOMIC(atomicOr, T, old | value)                                    \
  KSC_HOST_ATOMIC(atomicXor, T, old ^ value)                                   \
  inline T atomicCAS(T *address, T compare, T value) {                         \
    T old = *address;                                                          \
    *address = old == compare ? value : old;                                   \
    return old;                                                                \
  }
KSC_HOST_ATOMICS(int)
KSC_HOST_ATOMICS(unsigned)
KSC_HOST_ATOMICS(unsigned long long)
KSC_HOST_ATOMICS(float)
KSC_HOST_ATOMICS(double)
KSC_HOST_ATOMIC(atomicSub, int, old - value)
KSC_HOST_ATOMIC(atomicSub, unsigned, old - value)
KSC_HOST_INTEGER_ATOMICS(int)
KSC_HOST_INTEGER_ATOMICS(unsigned)
KSC_HOST_INTEGER_ATOMICS(unsigned long long)
KSC_HOST_ATOMIC(atomicMin, long long, value < old ? value : old)
KSC_HOST_ATOMIC(atomicMax, long long, old < value ? value : old)
KSC_HOST_ATOMIC(atomicInc, unsigned, old >= value ? 0 : old + 1)
KSC_HOST_ATOMIC(atomicDec, unsigned, old == 0 || old > value ? value : old - 1)
#undef KSC_HOST_INTEGER_ATOMICS
#undef KSC_HOST_ATOMICS
#undef KSC_HOST_ATOMIC

namespace ksc_host {
namespace simt {
/// Runs a launch of `blocks` blocks of `block_size` threads, each calling
/// `body(context)`. Returns 0, or 1 with the message in `message`.
KSC_SIMT_INLINE int run_launch(void (*body)(void *), void *context,
                               unsigned blocks, unsigned block_size,
                               char *message, size_t size);
} // namespace simt
} // namespace ksc_host

// The runtime's device code for the GPU's collectives compiles for this
// stand-in too.
#define KSC_SIMT_HOST 1
#include "ksc_runtime.h"

// What the launch functions of ksc's CUDA C++ use; the stand-in never calls
// them.
typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
enum : int { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1)
      : x(x_), y(y_), z(z_) {}
};
inline cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t,
                                    cudaStream_t) {
  return 98; // cudaErrorInvalidDeviceFunction
}

// CUDA's integer min and max, at namespace scope.
#define KSC_HOST_MIN_MAX(T)                                                    \
  inline T min(T a, T b) { return a < b ? a : b; }                             \
  inline T max(T a, T b) { return a < b ? b : a; }
KSC_HOST_MIN_MAX(int)
KSC_HOST_MIN_MAX(unsigned)
KSC_HOST_MIN_MAX(long)
KSC_HOST_MIN_MAX(unsigned long)
KSC_HOST_MIN_MAX(long long)
KSC_HOST_MIN_MAX(unsigned long long)
#undef KSC_HOST_MIN_MAX

namespace ksc_host {
template <typename G, typename... A, size_t... I>
int launch(void (*kernel)(G, A...), unsigned blocks, unsigned blockSize,
           void **params, char *message, size_t size,
           std::index_sequence<I...>) {
  struct call {
    void (*kernel)(G, A...);
    G dim;
    void **params;
  } c{kernel, *static_cast<const G *>(params[0]), params};
  auto body = [](void *context) {
    const call &c = *static_cast<const call *>(context);
    c.kernel(c.dim, *static_cast<A *>(c.params[I + 1])...);
  };
  return simt::run_launch(body, &c, blocks, blockSize, message, size);
}

/// Runs `kernel` as the GPU runs a launch of `blocks` blocks of `blockSize`
/// threads, on the driver's kernel parameters `params` (the launch grid,
/// then the kernel's arguments). Returns 0, or 1 with what the device
/// prints before it traps in `message`.
template <typename G, typename... A>
int launch(void (*kernel)(G, A...), unsigned blocks, unsigned blockSize,
           void **params, char *message, size_t size) {
  return launch(kernel, blocks, blockSize, params, message, size,
                std::index_sequence_for<A...>());
}
} // namespace ksc_host

// The stand-in itself: the scheduler and the intrinsics.
#if !defined(KSC_SIMT_EXTERN) || defined(KSC_SIMT_IMPLEMENTATION)

#include <boost/context/fiber.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksc_host {
namespace simt {

/// A use of a collective that CUDA leaves undefined, or a deadlock: the
/// message is what the launch reports.
class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline std::string sformat(const char *spec, ...)
    __attribute__((format(printf, 1, 2)));
inline std::string sformat(const char *spec, ...) {
  char text[512];
  va_list args;
  va_start(args, spec);
  std::vsnprintf(text, sizeof(text), spec, args);
  va_end(args);
  return text;
}

/// What a thread waits at.
enum op : unsigned char {
  op_none,
  op_syncthreads,
  op_syncthreads_count,
  op_syncthreads_and,
  op_syncthreads_or,
  op_activemask,
  // The warp collectives with a mask.
  op_syncwarp,
  op_shfl,
  op_shfl_up,
  op_shfl_down,
  op_shfl_xor,
  op_ballot,
  op_any,
  op_all,
  op_match_any,
  op_match_all,
};

inline const char *op_name(unsigned char op) {
  static const char *const names[] = {
      "nothing",           "__syncthreads",    "__syncthreads_count",
      "__syncthreads_and", "__syncthreads_or", "__activemask",
      "__syncwarp",        "__shfl_sync",      "__shfl_up_sync",
      "__shfl_down_sync",  "__shfl_xor_sync",  "__ballot_sync",
      "__any_sync",        "__all_sync",       "__match_any_sync",
      "__match_all_sync"};
  return names[op];
}

inline bool is_barrier(unsigned char op) {
  return op >= op_syncthreads && op <= op_syncthreads_or;
}
inline bool is_shuffle(unsigned char op) {
  return op >= op_shfl && op <= op_shfl_xor;
}

inline unsigned lowest(unsigned mask) { return __builtin_ctz(mask); }

/// Stacks for the fibers: `size` usable bytes above a guard page, kept for
/// the next thread when a thread ends (the pool lives as long as the
/// library).
class stack_pool {
public:
  static constexpr std::size_t size = std::size_t(1) << 20;

  ~stack_pool() {
    for (void *base : free_)
      munmap(base, size + guard());
  }
  boost::context::stack_context allocate() {
    void *base;
    if (!free_.empty()) {
      base = free_.back();
      free_.pop_back();
    } else {
      base = mmap(nullptr, size + guard(), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED || mprotect(base, guard(), PROT_NONE) != 0)
        throw std::bad_alloc();
      // deallocate (noexcept) never grows the vector.
      free_.reserve(++stacks_);
    }
    boost::context::stack_context stack;
    stack.size = size;
    stack.sp = static_cast<char *>(base) + guard() + size;
    return stack;
  }
  void deallocate(boost::context::stack_context &stack) noexcept {
    free_.push_back(static_cast<char *>(stack.sp) - size - guard());
  }

private:
  static std::size_t guard() { return std::size_t(sysconf(_SC_PAGESIZE)); }
  std::vector<void *> free_;
  std::size_t stacks_ = 0;
};

inline stack_pool &stacks() {
  static stack_pool pool;
  return pool;
}

/// Boost.Context's StackAllocator for the pool.
struct pooled_stack {
  boost::context::stack_context allocate() { return stacks().allocate(); }
  void deallocate(boost::context::stack_context &stack) noexcept {
    stacks().deallocate(stack);
  }
};

enum class state : unsigned char {
  unstarted,
  running,
  blocked, // waits at a collective
  ready,   // its collective is complete: it can go on
  exited,
  failed,
};

/// A GPU thread of the block that runs.
struct lane {
  boost::context::fiber fiber; // the thread, once started and until it ends
  boost::context::fiber sink;  // in the fiber: the scheduler, to return to
  state status = state::unstarted;
  unsigned char op = op_none; // what it waits at (or waited at last)
  bool done = false;          // its collective is complete
  unsigned mask = 0;
  int arg = 0, width = 32; // a shuffle's source lane, delta or lane mask
  uint64_t value = 0, result = 0;
  const void *site = nullptr; // where it called __activemask
  std::string error;          // a stand-in error to throw when it goes on
  std::string failure;        // why it failed (state::failed)
};

/// The lanes of a warp, one bit each.
struct warp {
  unsigned exists = 0, exited = 0;
  unsigned waiting = 0;    // at a warp collective with a mask
  unsigned activemask = 0; // at __activemask
  unsigned blocked = 0;    // at any collective, __syncthreads included
  unsigned runnable = 0;   // not started, or its collective is complete
};

/// Runs the blocks of a launch, one after another.
class scheduler {
public:
  scheduler(void (*body)(void *), void *context, unsigned size);
  ~scheduler() { unwind(); }
  /// Runs block `block`: "" when every thread ended, else the message.
  std::string run_block(unsigned block);

  // The collectives, which the running thread calls.
  uint64_t warp_collective(unsigned char op, unsigned mask, uint64_t value,
                           int arg, int width);
  int barrier(unsigned char op, int predicate);
  unsigned activemask(const void *site);

private:
  warp &warp_of(unsigned thread) { return warps_[thread / 32]; }
  /// "ksc SIMT stand-in: block B, thread T (warp W, lane L): ".
  std::string where(unsigned thread) const;
  void start(unsigned thread);
  void resume(unsigned thread);
  void after(unsigned thread);
  void wait(unsigned thread);
  void release(unsigned thread);
  void fail_waiting(unsigned thread, const std::string &message);
  void exited(unsigned thread);
  void settle(unsigned warp_index);
  void check_warp_arrival(unsigned thread);
  void complete_warp(unsigned thread);
  void match(unsigned base, unsigned mask, bool all);
  void complete_barrier(unsigned thread);
  std::string deadlock() const;
  void unwind();
  uint64_t random();

  void (*body_)(void *);
  void *context_;
  unsigned size_, block_ = 0, current_ = 0;
  std::vector<lane> lanes_;
  std::vector<warp> warps_;
  unsigned at_barrier_ = 0;
  unsigned exited_ = 0, first_exited_ = 0; // the lowest exited thread
  unsigned failed_ = ~0u;                  // the lowest failed thread
  bool split_ = false;
  uint64_t random_ = 0;
};

/// The scheduler of the launch that runs, if any.
inline scheduler *&active() {
  static scheduler *running = nullptr;
  return running;
}

inline scheduler &running() {
  if (!active())
    throw error("ksc SIMT stand-in: a collective called outside a launch");
  return *active();
}

template <typename T> uint64_t to_bits(T value) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "at most 64 bits");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
template <typename T> T from_bits(uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T>
T shuffle(unsigned char op, unsigned mask, T value, int arg, int width) {
  return from_bits<T>(
      running().warp_collective(op, mask, to_bits(value), arg, width));
}

/// The lane whose value lane `id` gets from a shuffle, -1 for its own (the
/// source is outside its segment of `width` lanes), as PTX's shfl.sync.
inline int source_lane(unsigned char op, unsigned id, int arg, int width) {
  const long long first = id & ~unsigned(width - 1), last = first + width - 1;
  long long source;
  switch (op) {
  case op_shfl:
    return int(first + (arg & (width - 1)));
  case op_shfl_up:
    source = (long long)id - (long long)unsigned(arg);
    return source >= first ? int(source) : -1;
  case op_shfl_down:
    source = (long long)id + (long long)unsigned(arg);
    return source <= last ? int(source) : -1;
  default: // op_shfl_xor: earlier segments may be read, later ones not
    source = (long long)(id ^ unsigned(arg));
    return source <= last ? int(source) : -1;
  }
}

inline scheduler::scheduler(void (*body)(void *), void *context, unsigned size)
    : body_(body), context_(context), size_(size), lanes_(size),
      warps_((size + 31) / 32) {
  if (const char *seed = std::getenv("KSC_SIMT_SPLIT")) {
    split_ = true;
    random_ = std::strtoull(seed, nullptr, 0);
  }
}

inline std::string scheduler::where(unsigned thread) const {
  return sformat("ksc SIMT stand-in: block %u, thread %u (warp %u, lane %u): ",
                 block_, thread, thread / 32, thread % 32);
}

// splitmix64.
inline uint64_t scheduler::random() {
  uint64_t z = (random_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline std::string scheduler::run_block(unsigned block) {
  block_ = block;
  blockIdx = {block, 0, 0};
  for (lane &l : lanes_) {
    l.status = state::unstarted;
    l.op = op_none;
    l.done = false;
    l.error.clear();
    l.failure.clear();
  }
  for (unsigned w = 0; w < warps_.size(); ++w) {
    unsigned lanes = std::min(32u, size_ - 32 * w);
    warps_[w] = warp();
    warps_[w].exists = lanes == 32 ? ~0u : (1u << lanes) - 1;
    warps_[w].runnable = warps_[w].exists;
  }
  at_barrier_ = exited_ = 0;
  failed_ = ~0u;
  // The lowest thread that can go on, while there is one; after a failure,
  // only the threads below it.
  for (unsigned w = 0; w < warps_.size();) {
    if (!warps_[w].runnable) {
      ++w;
      continue;
    }
    unsigned t = 32 * w + lowest(warps_[w].runnable);
    if (t >= failed_)
      break;
    resume(t);
    after(t);
    w = 0;
  }
  std::string message;
  if (failed_ != ~0u)
    message = lanes_[failed_].failure;
  else if (exited_ != size_)
    message = deadlock();
  unwind();
  return message;
}

inline void scheduler::start(unsigned thread) {
  lanes_[thread].fiber = boost::context::fiber(
      std::allocator_arg, pooled_stack(),
      [this, thread](boost::context::fiber &&sink) {
        lane &l = lanes_[thread];
        l.sink = std::move(sink);
        try {
          body_(context_);
          l.status = state::exited;
        } catch (const boost::context::detail::forced_unwind &) {
          throw; // the fiber is destroyed: Boost.Context ends it
        } catch (const error &e) {
          l.failure = e.what();
          l.status = state::failed;
        } catch (const std::exception &e) {
          l.failure = std::string("ksc: ") + e.what();
          l.status = state::failed;
        } catch (...) {
          l.failure = where(thread) + "an exception that is not a "
                                      "std::exception";
          l.status = state::failed;
        }
        return std::move(l.sink);
      });
}

inline void scheduler::resume(unsigned thread) {
  lane &l = lanes_[thread];
  if (l.status == state::unstarted)
    start(thread);
  current_ = thread;
  threadIdx = {thread, 0, 0};
  l.status = state::running;
  warp_of(thread).runnable &= ~(1u << (thread % 32));
  l.fiber = std::move(l.fiber).resume();
}

// After the thread stopped: it ended, failed or waits.
inline void scheduler::after(unsigned thread) {
  switch (lanes_[thread].status) {
  case state::exited:
    exited(thread);
    break;
  case state::failed:
    failed_ = std::min(failed_, thread);
    return;
  default:
    break;
  }
  settle(thread / 32);
}

// In the fiber: until its collective is complete. The thread that completed
// it waits too, so that the lanes of a warp go on in lane order, each part
// of the code between two collectives, as a warp runs its lanes together.
inline void scheduler::wait(unsigned thread) {
  lane &l = lanes_[thread];
  do
    l.sink = std::move(l.sink).resume();
  while (!l.done);
  l.status = state::running;
  if (!l.error.empty()) {
    std::string message = std::move(l.error);
    l.error.clear();
    throw error(message);
  }
}

// The thread's collective is complete: it can go on.
inline void scheduler::release(unsigned thread) {
  lane &l = lanes_[thread];
  warp &w = warp_of(thread);
  unsigned bit = 1u << (thread % 32);
  if (is_barrier(l.op) && (w.blocked & bit))
    --at_barrier_;
  w.waiting &= ~bit;
  w.activemask &= ~bit;
  w.blocked &= ~bit;
  l.done = true;
  if (l.status == state::blocked) {
    l.status = state::ready;
    w.runnable |= bit;
  }
}

inline void scheduler::fail_waiting(unsigned thread,
                                    const std::string &message) {
  lanes_[thread].error = where(thread) + message;
  release(thread);
}

// Thread `thread` ended: those waiting for it cannot go on.
inline void scheduler::exited(unsigned thread) {
  if (exited_++ == 0 || thread < first_exited_)
    first_exited_ = thread;
  warp &w = warp_of(thread);
  unsigned id = thread % 32, bit = 1u << id, base = thread - id;
  w.exited |= bit;
  for (unsigned m = w.waiting; m; m &= m - 1) {
    lane &l = lanes_[base + lowest(m)];
    if (l.mask & bit)
      fail_waiting(base + lowest(m),
                   sformat("%s with mask 0x%08x: lane %u, which the mask "
                           "names, has exited",
                           op_name(l.op), l.mask, id));
  }
  for (unsigned t = 0; at_barrier_ && t < size_; ++t)
    if (is_barrier(lanes_[t].op) && lanes_[t].status == state::blocked)
      fail_waiting(t, sformat("%s: thread %u of the block has exited (a "
                              "divergent barrier)",
                              op_name(lanes_[t].op), thread));
}

// Completes the __activemask of warp `warp_index` when no lane of it can
// go on before: the lanes at one call site form one group.
inline void scheduler::settle(unsigned warp_index) {
  warp &w = warps_[warp_index];
  if (!w.activemask || (w.exists & ~w.exited & ~w.blocked))
    return;
  unsigned base = 32 * warp_index;
  for (unsigned left = w.activemask; left;) {
    const void *site = lanes_[base + lowest(left)].site;
    unsigned group = 0;
    for (unsigned m = left; m; m &= m - 1)
      if (lanes_[base + lowest(m)].site == site)
        group |= 1u << lowest(m);
    left &= ~group;
    // With KSC_SIMT_SPLIT, a quarter of the groups whole, the others in 2
    // to popc(group) parts, each lane in one at random (empty parts have no
    // lanes to get their mask).
    unsigned size = __builtin_popcount(group), parts = 1;
    if (split_ && size > 1 && random() % 4)
      parts = 2 + unsigned(random() % (size - 1));
    unsigned part[32] = {}, of[32] = {};
    for (unsigned m = group; m; m &= m - 1) {
      of[lowest(m)] = parts > 1 ? unsigned(random() % parts) : 0;
      part[of[lowest(m)]] |= 1u << lowest(m);
    }
    for (unsigned m = group; m; m &= m - 1) {
      lanes_[base + lowest(m)].result = part[of[lowest(m)]];
      release(base + lowest(m));
    }
  }
}

// The threads at warp collectives (the first 8), then those at barriers.
inline std::string scheduler::deadlock() const {
  std::string message = sformat(
      "ksc SIMT stand-in: block %u: deadlock: no thread can go on:", block_);
  unsigned listed = 0, more = 0, at_barrier = 0, first_at_barrier = 0;
  for (unsigned t = 0; t < size_; ++t) {
    const lane &l = lanes_[t];
    if (l.status != state::blocked)
      continue;
    if (is_barrier(l.op)) {
      if (at_barrier++ == 0)
        first_at_barrier = t;
      continue;
    }
    if (listed == 8) {
      ++more;
      continue;
    }
    message += sformat("%s thread %u (warp %u, lane %u) waits at %s",
                       listed++ ? ";" : "", t, t / 32, t % 32, op_name(l.op));
    if (l.op >= op_syncwarp) {
      unsigned missing = l.mask & ~warps_[t / 32].waiting;
      message += sformat(" with mask 0x%08x", l.mask);
      if (missing)
        message += sformat(" for lane %u", lowest(missing));
    }
  }
  if (more)
    message += sformat("; %u more threads wait at warp collectives", more);
  if (at_barrier)
    message += sformat("%s %u threads (from thread %u) wait at %s",
                       listed ? ";" : "", at_barrier, first_at_barrier,
                       op_name(lanes_[first_at_barrier].op));
  return message;
}

// Ends the fibers that have not ended: Boost.Context unwinds their stacks.
inline void scheduler::unwind() {
  for (unsigned t = 0; t < size_; ++t)
    if (lanes_[t].fiber) {
      current_ = t;
      threadIdx = {t, 0, 0};
      lanes_[t].fiber = boost::context::fiber();
    }
}

// The checks of the calling lane's warp collective, on arrival.
inline void scheduler::check_warp_arrival(unsigned thread) {
  const lane &l = lanes_[thread];
  const warp &w = warp_of(thread);
  unsigned id = thread % 32;
  const char *name = op_name(l.op);
  if (!(l.mask >> id & 1))
    throw error(where(thread) + sformat("%s with mask 0x%08x, which does not "
                                        "name the calling lane",
                                        name, l.mask));
  if (is_shuffle(l.op) &&
      (l.width < 1 || l.width > 32 || (l.width & (l.width - 1))))
    throw error(where(thread) + sformat("%s with width %d, which is not a "
                                        "power of 2 from 1 to 32",
                                        name, l.width));
  if (unsigned missing = l.mask & ~w.exists)
    throw error(where(thread) +
                sformat("%s with mask 0x%08x: lane %u, which the mask names, "
                        "does not exist (the warp has %d lanes)",
                        name, l.mask, lowest(missing),
                        __builtin_popcount(w.exists)));
  if (unsigned gone = l.mask & w.exited)
    throw error(where(thread) + sformat("%s with mask 0x%08x: lane %u, which "
                                        "the mask names, has exited",
                                        name, l.mask, lowest(gone)));
  if (is_shuffle(l.op)) {
    int source = source_lane(l.op, id, l.arg, l.width);
    if (source >= 0 && !(l.mask >> source & 1))
      throw error(where(thread) + sformat("%s reads lane %d, which is not in "
                                          "mask 0x%08x",
                                          name, source, l.mask));
  }
  // A lane of the mask waiting at another intrinsic, or with another mask
  // or width, can never complete this one with the caller.
  if (unsigned others = l.mask & w.waiting & ~(1u << id)) {
    const lane &o = lanes_[thread - id + lowest(others)];
    if (o.op != l.op || o.mask != l.mask ||
        (is_shuffle(l.op) && o.width != l.width))
      throw error(where(thread) +
                  sformat("%s with mask 0x%08x (width %d) while lane %u is at "
                          "%s with mask 0x%08x (width %d)",
                          name, l.mask, l.width, lowest(others), op_name(o.op),
                          o.mask, o.width));
  }
}

// The calling lane completes its warp collective: every lane of its mask
// waits at one.
inline void scheduler::complete_warp(unsigned thread) {
  const lane &l = lanes_[thread];
  unsigned id = thread % 32, base = thread - id;
  uint64_t all = 0;
  for (unsigned m = l.mask; m; m &= m - 1) {
    const lane &o = lanes_[base + lowest(m)];
    if (o.op != l.op || o.mask != l.mask ||
        (is_shuffle(l.op) && o.width != l.width))
      throw error(where(thread) +
                  sformat("%s with mask 0x%08x (width %d) while lane %u is at "
                          "%s with mask 0x%08x (width %d)",
                          op_name(l.op), l.mask, l.width, lowest(m),
                          op_name(o.op), o.mask, o.width));
    if (o.value)
      all |= 1u << lowest(m);
  }
  for (unsigned m = l.mask; m; m &= m - 1) {
    lane &o = lanes_[base + lowest(m)];
    switch (l.op) {
    case op_ballot:
      o.result = all;
      break;
    case op_any:
      o.result = all != 0;
      break;
    case op_all:
      o.result = all == l.mask;
      break;
    case op_syncwarp:
    case op_match_any: // below
    case op_match_all:
      break;
    default: { // a shuffle
      int source = source_lane(l.op, lowest(m), o.arg, o.width);
      o.result = source < 0 ? o.value : lanes_[base + source].value;
    }
    }
  }
  if (l.op == op_match_any || l.op == op_match_all)
    match(base, l.mask, l.op == op_match_all);
  for (unsigned m = l.mask; m; m &= m - 1)
    release(base + lowest(m));
}

// The results of __match_any_sync (or __match_all_sync when `all`): the
// lanes of `mask` with the value of each, one pass per distinct value.
inline void scheduler::match(unsigned base, unsigned mask, bool all) {
  for (unsigned left = mask; left;) {
    uint64_t value = lanes_[base + lowest(left)].value;
    unsigned same = 0;
    for (unsigned m = left; m; m &= m - 1)
      if (lanes_[base + lowest(m)].value == value)
        same |= 1u << lowest(m);
    left &= ~same;
    for (unsigned m = same; m; m &= m - 1)
      lanes_[base + lowest(m)].result = !all ? same : same == mask ? mask : 0;
  }
}

inline uint64_t scheduler::warp_collective(unsigned char op, unsigned mask,
                                           uint64_t value, int arg, int width) {
  unsigned thread = current_, bit = 1u << (thread % 32);
  lane &l = lanes_[thread];
  warp &w = warp_of(thread);
  l.op = op;
  l.mask = mask;
  l.value = value;
  l.arg = arg;
  l.width = width;
  l.done = false;
  check_warp_arrival(thread);
  l.status = state::blocked;
  w.waiting |= bit;
  w.blocked |= bit;
  if (!(mask & ~w.waiting)) {
    try {
      complete_warp(thread);
    } catch (...) {
      w.waiting &= ~bit;
      w.blocked &= ~bit;
      l.status = state::running;
      throw;
    }
  }
  wait(thread);
  return l.result;
}

inline void scheduler::complete_barrier(unsigned thread) {
  const lane &l = lanes_[thread];
  unsigned count = 0;
  for (unsigned t = 0; t < size_; ++t) {
    if (lanes_[t].op != l.op) {
      --at_barrier_;
      warp_of(thread).blocked &= ~(1u << (thread % 32));
      throw error(where(thread) + sformat("%s while thread %u is at %s",
                                          op_name(l.op), t,
                                          op_name(lanes_[t].op)));
    }
    count += lanes_[t].value != 0;
  }
  for (unsigned t = 0; t < size_; ++t) {
    lanes_[t].result = l.op == op_syncthreads_count ? count
                       : l.op == op_syncthreads_and ? count == size_
                                                    : count != 0;
    release(t);
  }
}

inline int scheduler::barrier(unsigned char op, int predicate) {
  unsigned thread = current_;
  lane &l = lanes_[thread];
  if (exited_)
    throw error(where(thread) + sformat("%s: thread %u of the block has "
                                        "exited (a divergent barrier)",
                                        op_name(op), first_exited_));
  l.op = op;
  l.value = predicate != 0;
  l.done = false;
  l.status = state::blocked;
  warp_of(thread).blocked |= 1u << (thread % 32);
  if (++at_barrier_ == size_) {
    try {
      complete_barrier(thread);
    } catch (...) {
      l.status = state::running;
      throw;
    }
  }
  wait(thread);
  return int(l.result);
}

inline unsigned scheduler::activemask(const void *site) {
  unsigned thread = current_, bit = 1u << (thread % 32);
  lane &l = lanes_[thread];
  warp &w = warp_of(thread);
  l.op = op_activemask;
  l.site = site;
  l.done = false;
  l.status = state::blocked;
  w.activemask |= bit;
  w.blocked |= bit;
  settle(thread / 32);
  wait(thread);
  return unsigned(l.result);
}

KSC_SIMT_INLINE int run_launch(void (*body)(void *), void *context,
                               unsigned blocks, unsigned block_size,
                               char *message, size_t size) {
  static std::atomic<bool> busy{false};
  if (busy.exchange(true)) {
    std::snprintf(message, size,
                  "ksc SIMT stand-in: two launches at once (on different OS "
                  "threads): __shared__ variables and the thread indices are "
                  "per process\n");
    return 1;
  }
  std::string failure;
  try {
    gridDim = {blocks, 1, 1};
    blockDim = {block_size, 1, 1};
    scheduler launch(body, context, block_size);
    active() = &launch;
    std::vector<unsigned> order(blocks);
    for (unsigned block = 0; block < blocks; ++block)
      order[block] = block;
    if (const char *seed = std::getenv("KSC_SIMT_BLOCK_ORDER")) {
      // Fisher-Yates with a 64-bit LCG: the same order for a seed.
      unsigned long long random = std::strtoull(seed, nullptr, 0);
      for (unsigned k = blocks; k > 1; --k) {
        random = random * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(order[k - 1], order[unsigned((random >> 33) % k)]);
      }
    }
    for (unsigned k = 0; k < blocks && failure.empty(); ++k)
      failure = launch.run_block(order[k]);
  } catch (const std::exception &e) {
    failure = std::string("ksc SIMT stand-in: ") + e.what();
  }
  active() = nullptr;
  busy = false;
  if (failure.empty())
    return 0;
  std::snprintf(message, size, "%s\n", failure.c_str());
  return 1;
}

} // namespace simt
} // namespace ksc_host

KSC_SIMT_INLINE void __syncthreads() {
  ksc_host::simt::running().barrier(ksc_host::simt::op_syncthreads, 0);
}
KSC_SIMT_INLINE int __syncthreads_count(int predicate) {
  return ksc_host::simt::running().barrier(ksc_host::simt::op_syncthreads_count,
                                           predicate);
}
KSC_SIMT_INLINE int __syncthreads_and(int predicate) {
  return ksc_host::simt::running().barrier(ksc_host::simt::op_syncthreads_and,
                                           predicate);
}
KSC_SIMT_INLINE int __syncthreads_or(int predicate) {
  return ksc_host::simt::running().barrier(ksc_host::simt::op_syncthreads_or,
                                           predicate);
}
KSC_SIMT_INLINE void __syncwarp(unsigned mask) {
  ksc_host::simt::running().warp_collective(ksc_host::simt::op_syncwarp, mask,
                                            0, 0, 32);
}
KSC_SIMT_INLINE unsigned __ballot_sync(unsigned mask, int predicate) {
  return unsigned(ksc_host::simt::running().warp_collective(
      ksc_host::simt::op_ballot, mask, predicate != 0, 0, 32));
}
KSC_SIMT_INLINE int __any_sync(unsigned mask, int predicate) {
  return int(ksc_host::simt::running().warp_collective(
      ksc_host::simt::op_any, mask, predicate != 0, 0, 32));
}
KSC_SIMT_INLINE int __all_sync(unsigned mask, int predicate) {
  return int(ksc_host::simt::running().warp_collective(
      ksc_host::simt::op_all, mask, predicate != 0, 0, 32));
}
KSC_SIMT_NOINLINE unsigned __activemask() {
  return ksc_host::simt::running().activemask(__builtin_return_address(0));
}

#define KSC_SIMT_DEFINE(T)                                                     \
  KSC_SIMT_INLINE T __shfl_sync(unsigned mask, T var, int srcLane,             \
                                int width) {                                   \
    return ksc_host::simt::shuffle(ksc_host::simt::op_shfl, mask, var,         \
                                   srcLane, width);                            \
  }                                                                            \
  KSC_SIMT_INLINE T __shfl_up_sync(unsigned mask, T var, unsigned delta,       \
                                   int width) {                                \
    return ksc_host::simt::shuffle(ksc_host::simt::op_shfl_up, mask, var,      \
                                   int(delta), width);                         \
  }                                                                            \
  KSC_SIMT_INLINE T __shfl_down_sync(unsigned mask, T var, unsigned delta,     \
                                     int width) {                              \
    return ksc_host::simt::shuffle(ksc_host::simt::op_shfl_down, mask, var,    \
                                   int(delta), width);                         \
  }                                                                            \
  KSC_SIMT_INLINE T __shfl_xor_sync(unsigned mask, T var, int laneMask,        \
                                    int width) {                               \
    return ksc_host::simt::shuffle(ksc_host::simt::op_shfl_xor, mask, var,     \
                                   laneMask, width);                           \
  }                                                                            \
  KSC_SIMT_INLINE unsigned __match_any_sync(unsigned mask, T value) {          \
    return unsigned(ksc_host::simt::running().warp_collective(                 \
        ksc_host::simt::op_match_any, mask, ksc_host::simt::to_bits(value), 0, \
        32));                                                                  \
  }                                                                            \
  KSC_SIMT_INLINE unsigned __match_all_sync(unsigned mask, T value,            \
                                            int *pred) {                       \
    unsigned all = unsigned(ksc_host::simt::running().warp_collective(         \
        ksc_host::simt::op_match_all, mask, ksc_host::simt::to_bits(value), 0, \
        32));                                                                  \
    *pred = all != 0;                                                          \
    return all;                                                                \
  }
KSC_SIMT_DEFINE(int)
KSC_SIMT_DEFINE(unsigned)
KSC_SIMT_DEFINE(long)
KSC_SIMT_DEFINE(unsigned long)
KSC_SIMT_DEFINE(long long)
KSC_SIMT_DEFINE(unsigned long long)
KSC_SIMT_DEFINE(float)
KSC_SIMT_DEFINE(double)
#undef KSC_SIMT_DEFINE

#endif // !KSC_SIMT_EXTERN || KSC_SIMT_IMPLEMENTATION

#endif // KSC_TEST_CUDA_HOST_H
