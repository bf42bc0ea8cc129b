//===- ksc_runtime.h - Runtime of C++ emitted by ksc (CPU) ------*- C++ -*-===//
//
// Part of ksc. The only header the C++ that `ksc --target=cpu` emits needs:
// compile that code with `-I$(ksc --print-runtime-dir)`, or emit it with
// `--standalone` to get this header copied in. C++17, header-only.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNTIME_H
#define KSC_RUNTIME_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

extern "C" {
/// How the C entry points (`ksc_launch_<kernel>`) receive an array: its data,
/// its rank, and per dimension its extent and its stride in elements.
typedef struct ksc_array_desc {
  void *data;
  int64_t rank;
  int64_t shape[4];
  int64_t strides[4];
} ksc_array_desc;
}

namespace ksc {

/// The kernel language's `array<T, N>`: a view of memory the caller owns.
/// Element (i, j, ...) is at `data()[i * stride(0) + j * stride(1) + ...]`.
/// Indices are not checked unless the code was emitted with
/// `--bounds-check`.
template <typename T, int N = 1> class array {
  static_assert(N >= 1 && N <= 4, "arrays have 1 to 4 dimensions");

public:
  array() = default;

  /// A contiguous 1-D array of `n` elements.
  array(T *data, int64_t n) : data_(data) {
    static_assert(N == 1, "this constructor makes 1-D arrays");
    shape_[0] = n;
    strides_[0] = 1;
  }

  /// A view described through the C ABI.
  explicit array(const ksc_array_desc &desc)
      : data_(static_cast<T *>(desc.data)) {
    for (int d = 0; d < N; ++d) {
      shape_[d] = desc.shape[d];
      strides_[d] = desc.strides[d];
    }
  }

  /// `array<const T>` views anything an `array<T>` does.
  template <typename U,
            typename = std::enable_if_t<std::is_same_v<const U, T> &&
                                        !std::is_same_v<U, T>>>
  array(const array<U, N> &other) : data_(other.data()) {
    for (int d = 0; d < N; ++d) {
      shape_[d] = other.shape(d);
      strides_[d] = other.stride(d);
    }
  }

  T *data() const { return data_; }
  int64_t shape(int d) const { return shape_[d]; }
  int64_t stride(int d) const { return strides_[d]; }
  int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < N; ++d)
      n *= shape_[d];
    return n;
  }

  T &operator[](int64_t i) const {
    static_assert(N == 1, "index a multi-dimensional array with a(i, j)");
    return data_[i * strides_[0]];
  }

  template <typename... I> T &operator()(I... indices) const {
    static_assert(sizeof...(I) == N, "one index per dimension");
    const int64_t index[] = {static_cast<int64_t>(indices)...};
    int64_t offset = 0;
    for (int d = 0; d < N; ++d)
      offset += index[d] * strides_[d];
    return data_[offset];
  }

private:
  T *data_ = nullptr;
  int64_t shape_[N] = {};
  int64_t strides_[N] = {};
};

template <typename T> struct is_array : std::false_type {};
template <typename T, int N> struct is_array<array<T, N>> : std::true_type {};

/// An error that stops a launch, such as a failed bounds check. The C entry
/// points turn it into their error message; C++ callers of the typed
/// launchers see the exception.
class launch_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail_launch(const std::string &message) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw launch_error(message);
#else
  std::fprintf(stderr, "ksc: %s\n", message.c_str());
  std::abort();
#endif
}

/// Stops the launch unless `indices` lie inside the shape of `a`. `name` is
/// the array's source name, `where` the source location of the access.
template <typename T, int N, typename... I>
inline void check_bounds(const array<T, N> &a, const char *name,
                         const char *where, I... indices) {
  static_assert(sizeof...(I) == N, "one index per dimension");
  const int64_t index[] = {static_cast<int64_t>(indices)...};
  bool inside = true;
  for (int d = 0; d < N; ++d)
    inside = inside && index[d] >= 0 && index[d] < a.shape(d);
  if (inside)
    return;
  std::string indexText, shapeText;
  for (int d = 0; d < N; ++d) {
    indexText += (d ? ", " : "") + std::to_string(index[d]);
    shapeText += (d ? ", " : "") + std::to_string(a.shape(d));
  }
  if (N > 1)
    indexText = "(" + indexText + ")";
  fail_launch(std::string(where) + ": index " + indexText +
              " is out of bounds for array '" + name + "' of shape [" +
              shapeText + "]");
}

/// Argument `T` of a C entry point, from the pointer the caller passed.
template <typename T> inline T arg(void *pointer) {
  if constexpr (is_array<T>::value)
    return T(*static_cast<const ksc_array_desc *>(pointer));
  else
    return *static_cast<const T *>(pointer);
}

/// The grid of a launch: the number of threads along each of its three
/// dimensions. `launch_k(100, ...)` is a 1-D launch of 100 threads,
/// `launch_k({16, 8}, ...)` a 2-D launch of 16 x 8.
struct grid {
  int64_t x = 1, y = 1, z = 1;
  grid(int64_t x_ = 1, int64_t y_ = 1, int64_t z_ = 1) : x(x_), y(y_), z(z_) {}
  /// The number of threads.
  int64_t size() const { return x * y * z; }
};

/// Runs `launch` (a call of a typed launcher) for a C entry point: checks
/// the launch grid (every extent and the number of threads must fit an
/// `int`, which is what tid() returns) and turns errors into a message in
/// `error`.
template <typename F>
inline int run_launch(const char *kernel, const grid &dim, char *error,
                      size_t error_size, F &&launch) {
  std::string message;
  const int64_t limit = std::numeric_limits<int32_t>::max();
  bool valid = dim.x >= 0 && dim.y >= 0 && dim.z >= 0 && dim.x <= limit &&
               dim.y <= limit && dim.z <= limit &&
               (dim.x == 0 || dim.y == 0 || dim.z == 0 ||
                (dim.y <= limit / dim.z && dim.x <= limit / (dim.y * dim.z)));
  if (!valid) {
    message = "launch grid (" + std::to_string(dim.x) + ", " +
              std::to_string(dim.y) + ", " + std::to_string(dim.z) +
              ") is invalid: every extent must be >= 0 and the number of "
              "threads at most 2147483647";
  } else {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
      launch();
    } catch (const std::exception &e) {
      message = e.what();
    }
#else
    launch();
#endif
  }
  if (message.empty())
    return 0;
  if (error && error_size)
    std::snprintf(error, error_size, "kernel '%s': %s", kernel,
                  message.c_str());
  return 1;
}

// Floating-point comparisons C++ has no operator for.
template <typename T> inline bool ordered(T a, T b) {
  return !std::isnan(a) && !std::isnan(b);
}
template <typename T> inline bool unordered(T a, T b) {
  return std::isnan(a) || std::isnan(b);
}
template <typename T> inline bool ordered_not_equal(T a, T b) {
  return a < b || a > b;
}
template <typename T> inline bool unordered_or_equal(T a, T b) {
  return !(a < b || a > b);
}

/// IEEE 754-2019 minimum/maximum: NaN if either is NaN, -0 < +0.
template <typename T> inline T minimum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T> inline T maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename To, typename From> inline To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

// Random numbers: NVIDIA Warp's generator (warp/native/rand.h), bit for bit.
// A stream's state is a uint32_t that every draw advances through the PCG
// hash of Jarzynski and Olano, "Hash Functions for GPU Rendering" (JCGT
// 2020); the numbers are computed from the new state.

/// The PCG hash of `x`.
inline uint32_t rand_pcg(uint32_t x) {
  uint32_t b = x * 747796405u + 2891336453u;
  uint32_t c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
  return (c >> 22u) ^ c;
}

/// The state of the stream for `seed`.
inline uint32_t rand_init(int seed) { return rand_pcg(uint32_t(seed)); }

/// The state of stream `offset` (usually the thread index) for `seed`.
inline uint32_t rand_init(int seed, int offset) {
  return rand_pcg(uint32_t(seed) + rand_pcg(uint32_t(offset)));
}

/// The next state, as an int (the same 32 bits).
inline int randi(uint32_t &state) {
  state = rand_pcg(state);
  return int(state);
}

/// A number in [lo, hi) for lo < hi: the next state modulo hi - lo, plus lo,
/// computed on uint32_t (hi == lo divides by zero, as in Warp).
inline int randi(uint32_t &state, int lo, int hi) {
  state = rand_pcg(state);
  return int(state % (uint32_t(hi) - uint32_t(lo)) + uint32_t(lo));
}

/// A float in [0, 1): the top 24 bits of the next state times 2^-24, one of
/// 2^24 evenly spaced values, exactly.
inline float randf(uint32_t &state) {
  state = rand_pcg(state);
  return float(state >> 8) * (1.0f / 16777216.0f);
}

/// A float in [lo, hi): (hi - lo) * randf(state) + lo, each step rounded to
/// float.
inline float randf(uint32_t &state, float lo, float hi) {
  float unit = randf(state);
  float scaled = (hi - lo) * unit;
  return scaled + lo;
}

/// A float from the standard normal distribution (Box-Muller): the first
/// draw gives the radius, the second the angle; 5.96e-8 keeps the logarithm
/// finite.
inline float randn(uint32_t &state) {
  float u1 = randf(state);
  float u2 = randf(state);
  float radius = std::sqrt(-2.0f * std::log(u1 + 5.96e-8f));
  float angle = 2.0f * 3.14159265358979323846f * u2;
  return radius * std::cos(angle);
}

} // namespace ksc

#endif // KSC_RUNTIME_H
