//===- ksc_runtime.h - Runtime of C++ emitted by ksc ------------*- C++ -*-===//
//
// Part of ksc. The only header the C++ that `ksc --target=cpu` emits needs:
// compile that code with `-I$(ksc --print-runtime-dir)`, or emit it with
// `--standalone` to get this header copied in. C++17, header-only. The
// CUDA C++ of `ksc --target=cuda` includes it too: what device code calls
// compiles for the GPU with nvcc (and clang -x cuda), without
// --expt-relaxed-constexpr, and with NVRTC (-default-device), which has
// no standard library headers: see __CUDACC_RTC__ below.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNTIME_H
#define KSC_RUNTIME_H

// KSC_INLINE marks the functions that must be inlined for the emitted
// kernels to be fast: the vector and matrix operations and the thread
// bodies the launchers call in their loops (the host compiler's heuristics
// otherwise keep some of them as calls, e.g. g++ -O2 when a body has large
// locals); KSC_INLINE_LAMBDA the lambdas of the component loops.
//
// KSC_HD marks what CUDA device code may call too (`__host__ __device__`
// under nvcc or clang -x cuda; KSC_INLINE functions are both as well): the
// arrays, the launch grid, vectors and matrices, atomics, bounds checks,
// comparisons, random numbers and accumulators. KSC_DEVICE marks what
// only device code calls (the reductions of sums before their atomics).
// Launching, errors as exceptions and the growing tape are for the host
// only. Both CUDA compilers accept always_inline on the lambdas of device
// code.
#if defined(__CUDACC__)
#define KSC_HD __host__ __device__
#define KSC_INLINE __host__ __device__ __forceinline__
#define KSC_DEVICE __device__ __forceinline__
#else
#define KSC_DEVICE inline
#define KSC_HD
#if defined(__GNUC__) || defined(__clang__)
#define KSC_INLINE inline __attribute__((always_inline))
#else
#define KSC_INLINE inline
#endif
#endif
#if defined(__GNUC__) || defined(__clang__)
#define KSC_INLINE_LAMBDA __attribute__((always_inline))
#else
#define KSC_INLINE_LAMBDA
#endif

#if defined(__CUDACC_RTC__)
// NVRTC compiles device code only, and has no C++ standard library: what
// the device code of this header and of ksc's CUDA C++ uses of it is
// defined here (fixed-width integers, a few type traits, integer
// sequences, the math functions under their std:: names, INFINITY, NAN).
// The host-only parts below (launching, exceptions, the tape) are left out.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
namespace std {
using ::size_t;
template <typename T, T V> struct integral_constant {
  static constexpr T value = V;
  using value_type = T;
  using type = integral_constant;
  __host__ __device__ constexpr operator T() const { return V; }
};
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;
template <bool B, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> { using type = T; };
template <bool B, typename T = void>
using enable_if_t = typename enable_if<B, T>::type;
template <bool B, typename T, typename F> struct conditional {
  using type = T;
};
template <typename T, typename F> struct conditional<false, T, F> {
  using type = F;
};
template <bool B, typename T, typename F>
using conditional_t = typename conditional<B, T, F>::type;
template <typename A, typename B> struct is_same : false_type {};
template <typename A> struct is_same<A, A> : true_type {};
template <typename A, typename B>
inline constexpr bool is_same_v = is_same<A, B>::value;
template <typename T> struct is_const : false_type {};
template <typename T> struct is_const<const T> : true_type {};
template <typename T> inline constexpr bool is_const_v = is_const<T>::value;
template <typename T> struct remove_cv { using type = T; };
template <typename T> struct remove_cv<const T> { using type = T; };
template <typename T> struct remove_cv<volatile T> { using type = T; };
template <typename T> struct remove_cv<const volatile T> { using type = T; };
template <typename T> using remove_cv_t = typename remove_cv<T>::type;
template <typename T, typename... U>
inline constexpr bool ksc_is_one_of_v = (is_same_v<remove_cv_t<T>, U> || ...);
template <typename T>
inline constexpr bool is_integral_v =
    ksc_is_one_of_v<T, bool, char, signed char, unsigned char, short,
                unsigned short, int, unsigned int, long, unsigned long,
                long long, unsigned long long>;
template <typename T>
inline constexpr bool is_floating_point_v =
    ksc_is_one_of_v<T, float, double, long double>;
template <typename T>
inline constexpr bool is_signed_v =
    (is_integral_v<T> || is_floating_point_v<T>) && T(-1) < T(0);
template <typename T, T... I> struct integer_sequence {};
template <typename T, long long N, T... I>
struct ksc_make_sequence : ksc_make_sequence<T, N - 1, T(N - 1), I...> {};
template <typename T, T... I> struct ksc_make_sequence<T, 0, I...> {
  using type = integer_sequence<T, I...>;
};
template <typename T, T N>
using make_integer_sequence = typename ksc_make_sequence<T, N>::type;
// CUDA's device math functions, float and double overloads.
using ::abs, ::acos, ::acosh, ::asin, ::asinh, ::atan, ::atan2, ::atanh,
    ::cbrt, ::ceil, ::copysign, ::cos, ::cosh, ::erf, ::erfc, ::exp, ::exp2,
    ::expm1, ::fabs, ::floor, ::fma, ::fmax, ::fmin, ::fmod, ::isfinite,
    ::isinf, ::isnan, ::log, ::log10, ::log1p, ::log2, ::memcpy, ::nearbyint,
    ::pow, ::round, ::signbit, ::sin, ::sinh, ::sqrt, ::tan, ::tanh, ::trunc;
} // namespace std
#else
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#endif

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
  KSC_HD array(T *data, int64_t n) : data_(data) {
    static_assert(N == 1, "this constructor makes 1-D arrays");
    shape_[0] = n;
    strides_[0] = 1;
  }

  /// A view described through the C ABI.
  KSC_HD explicit array(const ksc_array_desc &desc)
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
  KSC_HD array(const array<U, N> &other) : data_(other.data()) {
    for (int d = 0; d < N; ++d) {
      shape_[d] = other.shape(d);
      strides_[d] = other.stride(d);
    }
  }

  KSC_HD T *data() const { return data_; }
  KSC_HD int64_t shape(int d) const { return shape_[d]; }
  KSC_HD int64_t stride(int d) const { return strides_[d]; }
  KSC_HD int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < N; ++d)
      n *= shape_[d];
    return n;
  }

  /// Element `i` of a 1-D array; of an N-D array, the (N-1)-D view of its
  /// slice `i` (a row of a 2-D array), sharing its memory.
  KSC_HD decltype(auto) operator[](int64_t i) const {
    if constexpr (N == 1) {
      return data_[i * strides_[0]];
    } else {
      array<T, N - 1> slice;
      slice.data_ = data_ + i * strides_[0];
      for (int d = 1; d < N; ++d) {
        slice.shape_[d - 1] = shape_[d];
        slice.strides_[d - 1] = strides_[d];
      }
      return slice;
    }
  }

  template <typename... I> KSC_HD T &operator()(I... indices) const {
    static_assert(sizeof...(I) == N, "one index per dimension");
    const int64_t index[] = {static_cast<int64_t>(indices)...};
    int64_t offset = 0;
    for (int d = 0; d < N; ++d)
      offset += index[d] * strides_[d];
    return data_[offset];
  }

private:
  template <typename, int> friend class array;

  T *data_ = nullptr;
  int64_t shape_[N] = {};
  int64_t strides_[N] = {};
};

template <typename T> struct is_array : std::false_type {};
template <typename T, int N> struct is_array<array<T, N>> : std::true_type {};

#ifndef __CUDACC_RTC__
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
#endif // !__CUDACC_RTC__

#ifdef __CUDA_ARCH__
namespace detail {
/// "v0, v1, ..." for the `count` values at `values`, at most four, in
/// decimal as std::to_string writes them (device code has no std::string):
/// the indices and shapes of the bounds-check messages.
struct index_list {
  char text[4 * 22];
  __device__ index_list(const int64_t *values, int count) {
    char *out = text;
    for (int k = 0; k < count; ++k) {
      if (k) {
        *out++ = ',';
        *out++ = ' ';
      }
      if (values[k] < 0)
        *out++ = '-';
      // The magnitude as unsigned, which INT64_MIN's has room for.
      uint64_t rest =
          values[k] < 0 ? 0 - uint64_t(values[k]) : uint64_t(values[k]);
      char digits[20];
      int n = 0;
      do {
        digits[n++] = char('0' + rest % 10);
        rest /= 10;
      } while (rest);
      while (n)
        *out++ = digits[--n];
    }
    *out = '\0';
  }
};
} // namespace detail
#endif

/// Stops the launch unless `indices` lie inside the shape of `a`. `name` is
/// the array's source name, `where` the source location of the access.
template <typename T, int N, typename... I>
KSC_HD inline void check_bounds(const array<T, N> &a, const char *name,
                                const char *where, I... indices) {
  // One index per dimension for an element, fewer for a slice (a[i] of a
  // 2-D array), checked against the leading dimensions.
  constexpr int count = sizeof...(I);
  static_assert(count >= 1 && count <= N, "1 to N indices");
  const int64_t index[] = {static_cast<int64_t>(indices)...};
  bool inside = true;
  for (int d = 0; d < count; ++d)
    inside = inside && index[d] >= 0 && index[d] < a.shape(d);
  if (inside)
    return;
#ifdef __CUDA_ARCH__
  // On the GPU: the message in one printf (so that those of threads failing
  // together do not interleave), then a trap that ends the launch with an
  // error (cudaErrorLaunchFailure on the host).
  int64_t shape[N];
  for (int d = 0; d < N; ++d)
    shape[d] = a.shape(d);
  detail::index_list indexText(index, count), shapeText(shape, N);
  const char *open = count > 1 ? "(" : "", *close = count > 1 ? ")" : "";
  printf("ksc: %s: index %s%s%s is out of bounds for array '%s' of shape "
         "[%s]\n",
         where, open, indexText.text, close, name, shapeText.text);
  __trap();
#else
  std::string indexText, shapeText;
  for (int d = 0; d < N; ++d) {
    if (d < count)
      indexText += (d ? ", " : "") + std::to_string(index[d]);
    shapeText += (d ? ", " : "") + std::to_string(a.shape(d));
  }
  if (count > 1)
    indexText = "(" + indexText + ")";
  fail_launch(std::string(where) + ": index " + indexText +
              " is out of bounds for array '" + name + "' of shape [" +
              shapeText + "]");
#endif
}

/// Stops the launch unless `index` lies in [0, extent): a run-time component
/// index of a vector or matrix of type `type` (`v[i]`, `m[i][j]`).
KSC_HD inline void check_index(int64_t index, int64_t extent, const char *type,
                               const char *where) {
  if (index >= 0 && index < extent)
    return;
#ifdef __CUDA_ARCH__
  printf("ksc: %s: component index %lld is out of range for '%s' (valid: 0 "
         "to %lld)\n",
         where, static_cast<long long>(index), type,
         static_cast<long long>(extent - 1));
  __trap();
#else
  fail_launch(std::string(where) + ": component index " +
              std::to_string(index) + " is out of range for '" + type +
              "' (valid: 0 to " + std::to_string(extent - 1) + ")");
#endif
}

#ifndef __CUDACC_RTC__
/// Argument `T` of a C entry point, from the pointer the caller passed.
template <typename T> inline T arg(void *pointer) {
  if constexpr (is_array<T>::value)
    return T(*static_cast<const ksc_array_desc *>(pointer));
  else
    return *static_cast<const T *>(pointer);
}
#endif // !__CUDACC_RTC__

/// The grid of a launch: the number of threads along each of its three
/// dimensions. `launch_k(100, ...)` is a 1-D launch of 100 threads,
/// `launch_k({16, 8}, ...)` a 2-D launch of 16 x 8.
struct grid {
  int64_t x = 1, y = 1, z = 1;
  KSC_HD grid(int64_t x_ = 1, int64_t y_ = 1, int64_t z_ = 1)
      : x(x_), y(y_), z(z_) {}
  /// The number of threads.
  KSC_HD int64_t size() const { return x * y * z; }
};

#ifndef __CUDACC_RTC__
/// Whether a launch can have grid `dim`: every extent >= 0 and at most
/// 2^31 - 1 threads (what `tid()`, an int, indexes).
inline bool valid_grid(const grid &dim) {
  const int64_t limit = std::numeric_limits<int32_t>::max();
  return dim.x >= 0 && dim.y >= 0 && dim.z >= 0 && dim.x <= limit &&
         dim.y <= limit && dim.z <= limit &&
         (dim.x == 0 || dim.y == 0 || dim.z == 0 ||
          (dim.y <= limit / dim.z && dim.x <= limit / (dim.y * dim.z)));
}

/// Runs `launch` (a call of a typed launcher) for a C entry point: checks
/// the launch grid (every extent and the number of threads must fit an
/// `int`, which is what tid() returns) and turns errors into a message in
/// `error`.
template <typename F>
inline int run_launch(const char *kernel, const grid &dim, char *error,
                      size_t error_size, F &&launch) {
  std::string message;
  if (!valid_grid(dim)) {
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
#endif // !__CUDACC_RTC__

// Floating-point comparisons C++ has no operator for.
template <typename T> KSC_HD inline bool ordered(T a, T b) {
  return !std::isnan(a) && !std::isnan(b);
}
template <typename T> KSC_HD inline bool unordered(T a, T b) {
  return std::isnan(a) || std::isnan(b);
}
template <typename T> KSC_HD inline bool ordered_not_equal(T a, T b) {
  return a < b || a > b;
}
template <typename T> KSC_HD inline bool unordered_or_equal(T a, T b) {
  return !(a < b || a > b);
}

/// IEEE 754-2019 minimum/maximum: NaN if either is NaN, -0 < +0.
template <typename T> KSC_HD inline T minimum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return T(NAN);
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T> KSC_HD inline T maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return T(NAN);
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename To, typename From> KSC_HD inline To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

// Atomic updates of array elements: `atomic_add(a, i, j, v)` updates element
// (i, j) of `a` in one indivisible step and returns the value it had;
// `atomic_add(&a[i].pos, v)` updates a field of a struct element (adjoint
// kernels add the adjoints of structs so, field by field). They
// are atomic with respect to each other on the same element, and order
// nothing else (relaxed, as CUDA's atomicAdd). Integers wrap on overflow.
// Floating-point add and sub round as `old + v` does; min and max ignore a
// NaN as the kernel language's min/max do (a NaN v changes nothing, a NaN
// element is replaced) and keep the element when it equals v (-0.0 vs 0.0).
// GCC has no atomic arithmetic on floats and neither compiler has atomic
// min/max in both, so those are compare-exchange loops on the element.

template <int N, typename T> struct vec;
template <int N, typename T> struct mat;

namespace detail {
enum class atomic_kind { add, sub, min, max, exchange };

/// Updates a vector or matrix component by component, each component
/// atomically with the kind's meaning for it (a max keeps each component's
/// largest). The old value returned is not one atomic snapshot.
template <atomic_kind Kind, bool Exclusive, int N, typename T>
KSC_INLINE vec<N, T> atomic_update(vec<N, T> *p, vec<N, T> v);
template <atomic_kind Kind, bool Exclusive, int N, typename T>
KSC_INLINE mat<N, T> atomic_update(mat<N, T> *p, mat<N, T> v);

template <typename T> struct identity { using type = T; };

/// Whether `desired` replaces `old` in an atomic min (or max).
template <atomic_kind Kind, typename T>
KSC_HD inline bool replaces(T old, T desired) {
  bool better = Kind == atomic_kind::min ? desired < old : desired > old;
  if constexpr (std::is_floating_point_v<T>)
    return better || (std::isnan(old) && !std::isnan(desired));
  else
    return better;
}

#ifdef __CUDA_ARCH__
/// The GPU's atomics: CUDA's atomicAdd, atomicSub, atomicMin and atomicMax
/// where it has them, integers as the CUDA integer type of their size
/// (subtraction from 64-bit integers and from floating-point elements adds
/// the negation, which rounds and wraps as the subtraction); a
/// compare-and-swap loop on the element's bits for floating-point min and
/// max, with the semantics of `replaces`.
template <atomic_kind Kind, typename T>
__device__ __forceinline__ T device_atomic_update(T *p, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                "the GPU's atomics work on 32-bit and 64-bit elements");
  using Bits =
      std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned int>;
  if constexpr (Kind == atomic_kind::exchange) {
    Bits *bits = reinterpret_cast<Bits *>(p);
    return bit_cast<T>(atomicExch(bits, bit_cast<Bits>(v)));
  } else if constexpr (std::is_floating_point_v<T> &&
                       (Kind == atomic_kind::add || Kind == atomic_kind::sub)) {
    return atomicAdd(p, Kind == atomic_kind::add ? v : -v);
  } else if constexpr (std::is_integral_v<T>) {
    // Addition and subtraction wrap, the same on the unsigned bits; min and
    // max compare as CUDA's signed or unsigned type.
    using Signed = std::conditional_t<sizeof(T) == 8, long long, int>;
    using U = std::conditional_t<std::is_signed_v<T>, Signed, Bits>;
    Bits *bits = reinterpret_cast<Bits *>(p);
    if constexpr (Kind == atomic_kind::add)
      return T(atomicAdd(bits, Bits(v)));
    else if constexpr (Kind == atomic_kind::sub && sizeof(T) == 4)
      return T(atomicSub(bits, Bits(v)));
    else if constexpr (Kind == atomic_kind::sub)
      return T(atomicAdd(bits, Bits(0) - Bits(v)));
    else if constexpr (Kind == atomic_kind::min)
      return T(atomicMin(reinterpret_cast<U *>(p), U(v)));
    else
      return T(atomicMax(reinterpret_cast<U *>(p), U(v)));
  } else {
    Bits *bits = reinterpret_cast<Bits *>(p);
    Bits assumed, old = *bits;
    do {
      assumed = old;
      T current = bit_cast<T>(assumed);
      if (!replaces<Kind>(current, v))
        return current;
      old = atomicCAS(bits, assumed, bit_cast<Bits>(v));
    } while (old != assumed);
    return bit_cast<T>(old);
  }
}
#endif

/// Updates `*p` as `Kind` says and returns its old value: atomically, or
/// with `Exclusive` as a plain read and write (the launch guarantees that
/// no other OS thread accesses the element meanwhile: see exclusive_add).
template <atomic_kind Kind, bool Exclusive = false, typename T>
KSC_INLINE T atomic_update(T *p, T v) {
  static_assert(!std::is_const_v<T>, "atomics write: use array<T>, not "
                                     "array<const T>");
  static_assert((std::is_integral_v<T> && !std::is_same_v<T, bool>) ||
                    std::is_floating_point_v<T>,
                "atomics work on int, uint32_t, int64_t, float and double "
                "elements");
  if constexpr (Exclusive) {
    T old = *p;
    if constexpr (Kind == atomic_kind::add)
      *p = T(old + v);
    else if constexpr (Kind == atomic_kind::sub)
      *p = T(old - v);
    else if constexpr (Kind == atomic_kind::exchange)
      *p = v;
    else if (replaces<Kind>(old, v))
      *p = v;
    return old;
  }
#ifdef __CUDA_ARCH__
  return device_atomic_update<Kind>(p, v);
#else
  if constexpr (Kind == atomic_kind::exchange) {
    T old;
    __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
    return old;
  } else if constexpr (std::is_integral_v<T> && Kind == atomic_kind::add)
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  else if constexpr (std::is_integral_v<T> && Kind == atomic_kind::sub)
    return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
  else {
    // The generic builtins compare bytes, so a NaN element compares equal
    // to itself and the loop ends.
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    while (true) {
      T desired;
      if constexpr (Kind == atomic_kind::add)
        desired = old + v;
      else if constexpr (Kind == atomic_kind::sub)
        desired = old - v;
      else if (replaces<Kind>(old, v))
        desired = v;
      else
        return old;
      if (__atomic_compare_exchange(p, &old, &desired, /*weak=*/true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return old;
    }
  }
#endif
}
} // namespace detail

#define KSC_RUNTIME_ATOMIC(name, kind, exclusive)                                         \
  template <typename T>                                                        \
  KSC_INLINE T name(const array<T, 1> &a, int64_t i,                           \
                    typename detail::identity<T>::type v) {                    \
    return detail::atomic_update<detail::atomic_kind::kind, exclusive>(&a(i), v);         \
  }                                                                            \
  template <typename T>                                                        \
  KSC_INLINE T name(const array<T, 2> &a, int64_t i, int64_t j,                \
                    typename detail::identity<T>::type v) {                    \
    return detail::atomic_update<detail::atomic_kind::kind, exclusive>(&a(i, j), v);      \
  }                                                                            \
  template <typename T>                                                        \
  KSC_INLINE T name(const array<T, 3> &a, int64_t i, int64_t j, int64_t k,     \
                    typename detail::identity<T>::type v) {                    \
    return detail::atomic_update<detail::atomic_kind::kind, exclusive>(&a(i, j, k), v);   \
  }                                                                            \
  template <typename T>                                                        \
  KSC_INLINE T name(const array<T, 4> &a, int64_t i, int64_t j, int64_t k,     \
                    int64_t l, typename detail::identity<T>::type v) {         \
    return detail::atomic_update<detail::atomic_kind::kind, exclusive>(&a(i, j, k, l),    \
                                                            v);                \
  }                                                                            \
  template <typename T>                                                        \
  KSC_INLINE T name(T *field, typename detail::identity<T>::type v) {          \
    return detail::atomic_update<detail::atomic_kind::kind, exclusive>(field, v);         \
  }

/// Adds `v` to element (i, ...) of `a`; returns the element's old value.
KSC_RUNTIME_ATOMIC(atomic_add, add, false)
/// Subtracts `v` from element (i, ...) of `a`; returns the old value.
KSC_RUNTIME_ATOMIC(atomic_sub, sub, false)
/// Sets element (i, ...) of `a` to the smaller of it and `v`; returns the
/// old value.
KSC_RUNTIME_ATOMIC(atomic_min, min, false)
/// Sets element (i, ...) of `a` to the larger of it and `v`; returns the
/// old value.
KSC_RUNTIME_ATOMIC(atomic_max, max, false)
/// Sets element (i, ...) of `a` to `v`; returns the old value (the adjoints
/// of atomic_min and atomic_max take an element's adjoint with it).
KSC_RUNTIME_ATOMIC(atomic_exchange, exchange, false)
// The same updates as plain reads and writes, where the launch guarantees
// that no other OS thread accesses the element while the thread runs
// (`ks.atomic_rmw` with `exclusive`: launch-private sums, or every thread
// of a launch on one OS thread). They round and wrap as the atomic ones.
KSC_RUNTIME_ATOMIC(exclusive_add, add, true)
KSC_RUNTIME_ATOMIC(exclusive_sub, sub, true)
KSC_RUNTIME_ATOMIC(exclusive_min, min, true)
KSC_RUNTIME_ATOMIC(exclusive_max, max, true)
KSC_RUNTIME_ATOMIC(exclusive_exchange, exchange, true)
#undef KSC_RUNTIME_ATOMIC

//===----------------------------------------------------------------------===//
// Vectors and matrices
//===----------------------------------------------------------------------===//

namespace detail {
/// The index I as a compile-time constant (std::integral_constant's
/// conversion is not callable from CUDA device code).
template <int I> struct index_constant {
  KSC_HD constexpr operator int() const { return I; }
};
template <typename F, int... I>
KSC_INLINE void unroll_sequence(F &f, std::integer_sequence<int, I...>) {
  (f(index_constant<I>()), ...);
}
} // namespace detail

/// Calls f(0), f(1), ..., f(N - 1) in order, each index an integral
/// constant: the component loops of the vector and matrix operations below
/// become straight-line code with constant component indices whatever the
/// host compiler's loop-unrolling heuristics (g++ -O2 keeps a loop over
/// the three components of a vec3 as a loop with a switch on the index).
template <int N, typename F> KSC_INLINE void unroll(F &&f) {
  detail::unroll_sequence(f, std::make_integer_sequence<int, N>());
}

/// `vec<N, T>`: the kernel language's vec2, vec3, vec4 (float), vec3d
/// (double), vec3i (int), ... N components, named x, y, z, w, with no
/// padding (a vec3 is three floats). Default-constructed vectors are zero.
template <int N, typename T> struct vec;
template <typename T> struct vec<2, T> {
  using scalar = T;
  T x = T(), y = T();
  vec() = default;
  KSC_HD explicit vec(T s) : x(s), y(s) {}
  KSC_HD vec(T x_, T y_) : x(x_), y(y_) {}
  KSC_HD T &operator[](int64_t i) { return i == 0 ? x : y; }
  KSC_HD const T &operator[](int64_t i) const { return i == 0 ? x : y; }
};
template <typename T> struct vec<3, T> {
  using scalar = T;
  T x = T(), y = T(), z = T();
  vec() = default;
  KSC_HD explicit vec(T s) : x(s), y(s), z(s) {}
  KSC_HD vec(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
  KSC_HD T &operator[](int64_t i) { return i == 0 ? x : i == 1 ? y : z; }
  KSC_HD const T &operator[](int64_t i) const {
    return i == 0 ? x : i == 1 ? y : z;
  }
};
template <typename T> struct vec<4, T> {
  using scalar = T;
  T x = T(), y = T(), z = T(), w = T();
  vec() = default;
  KSC_HD explicit vec(T s) : x(s), y(s), z(s), w(s) {}
  KSC_HD vec(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
  KSC_HD T &operator[](int64_t i) {
    return i == 0 ? x : i == 1 ? y : i == 2 ? z : w;
  }
  KSC_HD const T &operator[](int64_t i) const {
    return i == 0 ? x : i == 1 ? y : i == 2 ? z : w;
  }
};

/// `mat<N, T>`: the kernel language's mat22, mat33, mat44 (float) and
/// mat22d, ... (double): N rows of vec<N, T>, row-major, no padding.
template <int N, typename T> struct mat {
  using scalar = T;
  vec<N, T> rows[N];
  mat() = default;
  KSC_HD explicit mat(T s) {
    unroll<N>([&](auto i) KSC_INLINE_LAMBDA { rows[i] = vec<N, T>(s); });
  }
  /// The N * N elements, row by row.
  template <typename... E,
            typename = std::enable_if_t<sizeof...(E) == N * N && N * N != 1>>
  KSC_HD mat(E... elements) {
    const T values[] = {T(elements)...};
    unroll<N>([&](auto i) KSC_INLINE_LAMBDA {
      unroll<N>([&](auto j) KSC_INLINE_LAMBDA {
        rows[i][j] = values[i * N + j];
      });
    });
  }
  KSC_HD vec<N, T> &operator[](int64_t i) { return rows[i]; }
  KSC_HD const vec<N, T> &operator[](int64_t i) const { return rows[i]; }
  KSC_HD T &operator()(int64_t i, int64_t j) { return rows[i][j]; }
  KSC_HD const T &operator()(int64_t i, int64_t j) const { return rows[i][j]; }
};

namespace detail {
template <atomic_kind Kind, bool Exclusive, int N, typename T>
KSC_INLINE vec<N, T> atomic_update(vec<N, T> *p, vec<N, T> v) {
  vec<N, T> old;
  unroll<N>([&](auto c) KSC_INLINE_LAMBDA {
    old[c] = atomic_update<Kind, Exclusive>(&(*p)[c], v[c]);
  });
  return old;
}
template <atomic_kind Kind, bool Exclusive, int N, typename T>
KSC_INLINE mat<N, T> atomic_update(mat<N, T> *p, mat<N, T> v) {
  mat<N, T> old;
  unroll<N>([&](auto r) KSC_INLINE_LAMBDA {
    old[r] = atomic_update<Kind, Exclusive>(&(*p)[r], v[r]);
  });
  return old;
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Sums on the GPU: reduce before the atomic
//===----------------------------------------------------------------------===//
//
// A GPU serializes atomic updates of one address, so the sums ksc's GPU
// code makes (adjoints above all) are combined first, as
// docs/cuda.md ("How adjoints accumulate on the GPU") describes:
//  * a sum at constant indices (the adjoint of a scalar argument) is kept
//    per GPU thread in an `accumulator` and added up across the block at
//    the kernel's end (`block_flush`): one atomic per block;
//  * every other sum whose old value is unused (`aggregate_add`) is
//    combined among the lanes of the warp that update the same element
//    together (`aggregate_update`): one atomic per element and warp.
// ksc launches 1-D blocks. The code below is written against CUDA's warp
// intrinsics, which the SIMT stand-in of the test suite (KSC_SIMT_HOST,
// test/Replay/Inputs/cuda_host.h) provides on the host.
#if defined(__CUDACC__) || defined(KSC_SIMT_HOST)
namespace detail {
/// The scalars a vector or matrix sum adds component by component.
template <typename T> struct sum_parts {
  using scalar = T;
  static constexpr int count = 1;
};
template <int N, typename T> struct sum_parts<vec<N, T>> {
  using scalar = T;
  static constexpr int count = N;
};
template <int N, typename T> struct sum_parts<mat<N, T>> {
  using scalar = T;
  static constexpr int count = N * N;
};

/// How many lanes the calling thread's warp has: 32, fewer in a block's
/// last warp when the block size is not a multiple of 32.
KSC_DEVICE int warp_lanes() {
  int left = int(blockDim.x) - (int(threadIdx.x) & ~31);
  return left < 32 ? left : 32;
}

/// The sum of `v` over lanes [0, n) of the warp, in lane 0: a tree of
/// shuffles that reads only those lanes, each of which must call it.
template <typename S> KSC_DEVICE S warp_sum(S v, int n) {
  unsigned mask = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
  int lane = int(threadIdx.x) & 31;
  for (int d = 16; d >= 1; d /= 2) {
    bool inside = lane + d < n;
    S other = __shfl_sync(mask, v, inside ? lane + d : lane);
    if (inside)
      v = v + other;
  }
  return v;
}

/// Sums, for every scalar `j` in [0, count), the value `get(j)` of every
/// thread of the block, in rounds of up to 8 scalars: each warp's sum by
/// warp_sum, the warps' sums through shared memory, their sum by the
/// first warp; the block's first thread then calls `put(j, sum)`. Every
/// thread of the block calls it with the same count, at a point all of
/// them reach (so the barriers are safe). The order of the additions is
/// fixed by the block size.
template <typename S, typename Get, typename Put>
KSC_DEVICE void block_reduce(int64_t count, Get get, Put put) {
  constexpr int round = 8;
  __shared__ S partial[32 * round];
  int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  int warps = (int(blockDim.x) + 31) >> 5;
  int firstLanes = int(blockDim.x) < 32 ? int(blockDim.x) : 32;
  int lanes = warp_lanes();
  for (int64_t begin = 0; begin < count; begin += round) {
    int size = count - begin < round ? int(count - begin) : round;
    __syncthreads(); // the first warp has read the previous round
    for (int j = 0; j < size; ++j) {
      S sum = warp_sum(get(begin + j), lanes);
      if (lane == 0)
        partial[warp * round + j] = sum;
    }
    __syncthreads();
    if (warp != 0)
      continue;
    for (int j = 0; j < size; ++j) {
      S sum = warp_sum(lane < warps ? partial[lane * round + j] : S(0),
                       firstLanes);
      if (lane == 0)
        put(begin + j, sum);
    }
  }
}

/// Adds `sums[0, extent)` of every thread of the block into
/// `target[0, extent)`, scalar by scalar (block_reduce): one atomic add
/// per scalar by the block's first thread. Every thread of the block
/// calls it, at a point all of them reach.
template <typename T>
KSC_DEVICE void block_flush(const T *sums, int64_t extent,
                            const array<T> &target) {
  using S = typename sum_parts<T>::scalar;
  constexpr int parts = sum_parts<T>::count;
  static_assert(sizeof(T) == parts * sizeof(S), "sums are packed scalars");
  const S *scalars = reinterpret_cast<const S *>(sums);
  block_reduce<S>(
      extent * parts, [&](int64_t j) { return scalars[j]; },
      [&](int64_t j, S sum) {
        S *element = reinterpret_cast<S *>(&target(j / parts));
        atomic_update<atomic_kind::add, false>(element + j % parts, sum);
      });
}

/// block_flush in a fixed order across blocks (`ksc --deterministic`):
/// every block stores its sums in `partials` (element 0: a ticket, zero
/// before the launch; block b's sums as packed scalars from element
/// 1 + b * W, W = ceil(scalars * sizeof(S) / 8)), and the last block to
/// take a ticket adds up every block's, in block order (thread t blocks
/// t, t + blockDim.x, ..., then block_reduce), adds the totals into
/// `target` and sets the ticket back to zero. The bits depend on the
/// launch's grid and block size only.
template <typename T>
KSC_DEVICE void block_flush_ordered(const T *sums, int64_t extent,
                                    const array<T> &target,
                                    const array<int64_t> &partials) {
  using S = typename sum_parts<T>::scalar;
  constexpr int parts = sum_parts<T>::count;
  static_assert(sizeof(T) == parts * sizeof(S), "sums are packed scalars");
  int64_t count = extent * parts;
  int64_t words = (count * int64_t(sizeof(S)) + 7) / 8;
  const S *scalars = reinterpret_cast<const S *>(sums);
  auto blockSums = [&](int64_t block) {
    return reinterpret_cast<S *>(&partials(1 + block * words));
  };
  S *mine = blockSums(blockIdx.x);
  block_reduce<S>(
      count, [&](int64_t j) { return scalars[j]; },
      [&](int64_t j, S sum) { mine[j] = sum; });
  // The last block sees every block's sums: each block's first thread
  // makes them visible before it takes its ticket. (The barrier first:
  // another ordered flush of the kernel may still be reading `last`.)
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    auto *ticket = reinterpret_cast<unsigned long long *>(&partials(0));
    last = atomicAdd(ticket, 1ull) == gridDim.x - 1ull;
  }
  __syncthreads();
  if (!last)
    return;
  __threadfence();
  block_reduce<S>(
      count,
      [&](int64_t j) {
        S sum = S(0);
        for (int64_t b = threadIdx.x; b < int64_t(gridDim.x); b += blockDim.x)
          sum = sum + *static_cast<volatile const S *>(blockSums(b) + j);
        return sum;
      },
      [&](int64_t j, S sum) {
        S *element = reinterpret_cast<S *>(&target(j / parts));
        atomic_update<atomic_kind::add, false>(element + j % parts, sum);
      });
  if (threadIdx.x == 0)
    partials(0) = 0;
}

/// The lane of the `step`-th peer after lane `lane` in `peers`, or -1.
KSC_DEVICE int peer_after(unsigned peers, int lane, int step) {
  // 2u << 31 is 0: no peer is after lane 31.
  unsigned after = peers & ~((2u << lane) - 1u);
  for (int i = 1; i < step && after; ++i)
    after &= after - 1u;
  return after ? __ffs(int(after)) - 1 : -1;
}

/// Adds (or subtracts) `v` to `*p` together with the lanes of the warp
/// that run this call at the same time: lanes with the same `p` (found by
/// __match_any_sync) sum their values in a tree over their ranks (the
/// lowest lane first; 5 steps at most), and the lowest of them updates
/// `*p` once. Lanes updating distinct elements update them as
/// atomic_update does. The shuffles name only the active lanes.
template <atomic_kind Kind, typename T>
KSC_DEVICE void aggregate_update(T *p, T v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
  // No __match_any_sync before sm_70: the plain atomic (as the PTX does).
  atomic_update<Kind, false>(p, v);
#else
  using S = typename sum_parts<T>::scalar;
  constexpr int parts = sum_parts<T>::count;
  static_assert(sizeof(T) == parts * sizeof(S), "sums are packed scalars");
  unsigned active = __activemask();
  unsigned peers =
      __match_any_sync(active, reinterpret_cast<unsigned long long>(p));
  int lane = int(threadIdx.x) & 31;
  if (__all_sync(active, peers == (1u << lane))) {
    atomic_update<Kind, false>(p, v);
    return;
  }
  int rank = __popc(peers & ((1u << lane) - 1u));
  S *values = reinterpret_cast<S *>(&v);
  for (int step = 1; step < 32; step *= 2) {
    if (!__any_sync(active, __popc(peers) > step))
      break;
    int source = peer_after(peers, lane, step);
    bool adds = source >= 0 && (rank & (2 * step - 1)) == 0;
    for (int c = 0; c < parts; ++c) {
      S other = __shfl_sync(active, values[c], source >= 0 ? source : lane);
      if (adds)
        values[c] = values[c] + other;
    }
  }
  if (rank == 0)
    atomic_update<Kind, false>(p, v);
#endif
}
} // namespace detail
#define KSC_AGGREGATE_UPDATE(kind)                                             \
  detail::aggregate_update<detail::atomic_kind::kind>
#define KSC_AGGREGATE_FUNCTION KSC_DEVICE
#else
// CPU code has no warps: an aggregated update is the atomic one.
#define KSC_AGGREGATE_UPDATE(kind)                                             \
  detail::atomic_update<detail::atomic_kind::kind, false>
#define KSC_AGGREGATE_FUNCTION KSC_INLINE
#endif

// `aggregate_add(a, i, v)`: atomic_add(a, i, v) with its old value unused,
// which the GPU combines with the warp's other updates of the element
// first (`ks.atomic_rmw` with `aggregate`).
#define KSC_RUNTIME_AGGREGATE(name, kind)                                      \
  template <typename T>                                                        \
  KSC_AGGREGATE_FUNCTION void name(const array<T, 1> &a, int64_t i,                        \
                       typename detail::identity<T>::type v) {                 \
    KSC_AGGREGATE_UPDATE(kind)(&a(i), v);                                      \
  }                                                                            \
  template <typename T>                                                        \
  KSC_AGGREGATE_FUNCTION void name(const array<T, 2> &a, int64_t i, int64_t j,             \
                       typename detail::identity<T>::type v) {                 \
    KSC_AGGREGATE_UPDATE(kind)(&a(i, j), v);                                   \
  }                                                                            \
  template <typename T>                                                        \
  KSC_AGGREGATE_FUNCTION void name(const array<T, 3> &a, int64_t i, int64_t j, int64_t k,  \
                       typename detail::identity<T>::type v) {                 \
    KSC_AGGREGATE_UPDATE(kind)(&a(i, j, k), v);                                \
  }                                                                            \
  template <typename T>                                                        \
  KSC_AGGREGATE_FUNCTION void name(const array<T, 4> &a, int64_t i, int64_t j, int64_t k,  \
                       int64_t l, typename detail::identity<T>::type v) {      \
    KSC_AGGREGATE_UPDATE(kind)(&a(i, j, k, l), v);                             \
  }                                                                            \
  template <typename T>                                                        \
  KSC_AGGREGATE_FUNCTION void name(T *field, typename detail::identity<T>::type v) {       \
    KSC_AGGREGATE_UPDATE(kind)(field, v);                                      \
  }
KSC_RUNTIME_AGGREGATE(aggregate_add, add)
KSC_RUNTIME_AGGREGATE(aggregate_sub, sub)
#undef KSC_RUNTIME_AGGREGATE
#undef KSC_AGGREGATE_UPDATE
#undef KSC_AGGREGATE_FUNCTION

using vec2 = vec<2, float>;
using vec3 = vec<3, float>;
using vec4 = vec<4, float>;
using vec2d = vec<2, double>;
using vec3d = vec<3, double>;
using vec4d = vec<4, double>;
using vec2i = vec<2, int>;
using vec3i = vec<3, int>;
using vec4i = vec<4, int>;
using mat22 = mat<2, float>;
using mat33 = mat<3, float>;
using mat44 = mat<4, float>;
using mat22d = mat<2, double>;
using mat33d = mat<3, double>;
using mat44d = mat<4, double>;

/// `f(a[i], b[i])` for every component (row) i.
template <int N, typename T, typename F>
KSC_INLINE vec<N, T> componentwise(const vec<N, T> &a, const vec<N, T> &b,
                                   F f) {
  vec<N, T> r;
  unroll<N>([&](auto i) KSC_INLINE_LAMBDA { r[i] = f(a[i], b[i]); });
  return r;
}
template <int N, typename T, typename F>
KSC_INLINE mat<N, T> componentwise(const mat<N, T> &a, const mat<N, T> &b,
                                   F f) {
  mat<N, T> r;
  unroll<N>([&](auto i) KSC_INLINE_LAMBDA {
    r[i] = componentwise(a[i], b[i], f);
  });
  return r;
}

/// Whether V is a vec or mat (the component-wise operators below apply).
template <typename V> struct is_vec_or_mat : std::false_type {};
template <int N, typename T>
struct is_vec_or_mat<vec<N, T>> : std::true_type {};
template <int N, typename T>
struct is_vec_or_mat<mat<N, T>> : std::true_type {};
#define KSC_VEC_OR_MAT(V) std::enable_if_t<is_vec_or_mat<V>::value, V>

template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) operator+(const V &a, const V &b) {
  return componentwise(a, b,
                       [](auto x, auto y) KSC_INLINE_LAMBDA { return x + y; });
}
template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) operator-(const V &a, const V &b) {
  return componentwise(a, b,
                       [](auto x, auto y) KSC_INLINE_LAMBDA { return x - y; });
}
template <typename V> KSC_INLINE KSC_VEC_OR_MAT(V) operator-(const V &a) {
  return componentwise(a, a, [](auto x, auto) KSC_INLINE_LAMBDA { return -x; });
}
template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) cw_mul(const V &a, const V &b) {
  return componentwise(a, b,
                       [](auto x, auto y) KSC_INLINE_LAMBDA { return x * y; });
}
template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) cw_div(const V &a, const V &b) {
  return componentwise(a, b,
                       [](auto x, auto y) KSC_INLINE_LAMBDA { return x / y; });
}
/// Every component (element) times / divided by the scalar `s`.
template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) operator*(const V &a, typename V::scalar s) {
  return componentwise(a, a,
                       [s](auto x, auto) KSC_INLINE_LAMBDA { return x * s; });
}
template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) operator*(typename V::scalar s, const V &a) {
  return componentwise(a, a,
                       [s](auto x, auto) KSC_INLINE_LAMBDA { return s * x; });
}
template <typename V>
KSC_INLINE KSC_VEC_OR_MAT(V) operator/(const V &a, typename V::scalar s) {
  return componentwise(a, a,
                       [s](auto x, auto) KSC_INLINE_LAMBDA { return x / s; });
}
#undef KSC_VEC_OR_MAT

/// The sum of the products of the components, added in order.
template <int N, typename T>
KSC_INLINE T dot(const vec<N, T> &a, const vec<N, T> &b) {
  T sum = a[0] * b[0];
  unroll<N - 1>([&](auto i) KSC_INLINE_LAMBDA {
    sum = sum + a[i + 1] * b[i + 1];
  });
  return sum;
}
/// sqrt(dot(v, v)).
template <int N, typename T> KSC_INLINE T length(const vec<N, T> &v) {
  return std::sqrt(dot(v, v));
}
/// v / length(v), and zero where the length is zero (or NaN), as Warp's.
template <int N, typename T>
KSC_INLINE vec<N, T> normalize(const vec<N, T> &v) {
  T l = length(v);
  return l > T(0) ? v / l : vec<N, T>(T(0));
}
template <typename T>
KSC_INLINE vec<3, T> cross(const vec<3, T> &a, const vec<3, T> &b) {
  return vec<3, T>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                   a.x * b.y - a.y * b.x);
}
/// The matrix a b^T.
template <int N, typename T>
KSC_INLINE mat<N, T> outer(const vec<N, T> &a, const vec<N, T> &b) {
  mat<N, T> r;
  unroll<N>([&](auto i) KSC_INLINE_LAMBDA {
    unroll<N>([&](auto j) KSC_INLINE_LAMBDA { r[i][j] = a[i] * b[j]; });
  });
  return r;
}
template <int N, typename T>
KSC_INLINE mat<N, T> transpose(const mat<N, T> &m) {
  mat<N, T> r;
  unroll<N>([&](auto i) KSC_INLINE_LAMBDA {
    unroll<N>([&](auto j) KSC_INLINE_LAMBDA { r[i][j] = m[j][i]; });
  });
  return r;
}
/// Matrix products: each element a sum of products added in index order.
template <int N, typename T>
KSC_INLINE vec<N, T> operator*(const mat<N, T> &m, const vec<N, T> &v) {
  vec<N, T> r;
  unroll<N>([&](auto i) KSC_INLINE_LAMBDA { r[i] = dot(m[i], v); });
  return r;
}
template <int N, typename T>
KSC_INLINE vec<N, T> operator*(const vec<N, T> &v, const mat<N, T> &m) {
  vec<N, T> r;
  unroll<N>([&](auto j) KSC_INLINE_LAMBDA {
    T sum = v[0] * m[0][j];
    unroll<N - 1>([&](auto i) KSC_INLINE_LAMBDA {
      sum = sum + v[i + 1] * m[i + 1][j];
    });
    r[j] = sum;
  });
  return r;
}
template <int N, typename T>
KSC_INLINE mat<N, T> operator*(const mat<N, T> &a, const mat<N, T> &b) {
  mat<N, T> r;
  unroll<N>([&](auto i) KSC_INLINE_LAMBDA { r[i] = a[i] * b; });
  return r;
}

// Quaternions: the kernel language's quat and quatd are vec4 and vec4d
// (x, y, z, w). The formulas are NVIDIA Warp's.

/// The Hamilton product a b.
template <typename T>
KSC_INLINE vec<4, T> quat_mul(const vec<4, T> &a, const vec<4, T> &b) {
  return vec<4, T>(a.w * b.x + b.w * a.x + a.y * b.z - b.y * a.z,
                   a.w * b.y + b.w * a.y + a.z * b.x - b.z * a.x,
                   a.w * b.z + b.w * a.z + a.x * b.y - b.x * a.y,
                   a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
/// q * (1 / length(q)), and the identity where the length is zero (or
/// NaN), as Warp's.
template <typename T>
KSC_INLINE vec<4, T> quat_normalize(const vec<4, T> &q) {
  T l = length(q);
  return l > T(0) ? q * (T(1) / l) : vec<4, T>(T(0), T(0), T(0), T(1));
}
/// v rotated by the unit quaternion q (by its inverse when `sign` is -1).
template <typename T>
KSC_INLINE vec<3, T> quat_rotate_impl(const vec<4, T> &q, const vec<3, T> &v,
                                      T sign) {
  T c = T(2) * q.w * q.w - T(1);
  T d = T(2) * (q.x * v.x + q.y * v.y + q.z * v.z);
  return vec<3, T>(
      v.x * c + q.x * d + sign * ((q.y * v.z - q.z * v.y) * q.w * T(2)),
      v.y * c + q.y * d + sign * ((q.z * v.x - q.x * v.z) * q.w * T(2)),
      v.z * c + q.z * d + sign * ((q.x * v.y - q.y * v.x) * q.w * T(2)));
}
template <typename T>
KSC_INLINE vec<3, T> quat_rotate(const vec<4, T> &q, const vec<3, T> &v) {
  return quat_rotate_impl(q, v, T(1));
}
template <typename T>
KSC_INLINE vec<3, T> quat_rotate_inv(const vec<4, T> &q, const vec<3, T> &v) {
  return quat_rotate_impl(q, v, T(-1));
}
/// Column j is quat_rotate(q, e_j).
template <typename T> KSC_INLINE mat<3, T> quat_to_matrix(const vec<4, T> &q) {
  mat<3, T> r;
  unroll<3>([&](auto j) KSC_INLINE_LAMBDA {
    vec<3, T> e;
    e[j] = T(1);
    vec<3, T> column = quat_rotate(q, e);
    unroll<3>([&](auto i) KSC_INLINE_LAMBDA { r[i][j] = column[i]; });
  });
  return r;
}

/// m without row `row` and column `col`.
template <int N, typename T>
KSC_HD inline mat<N - 1, T> minor_of(const mat<N, T> &m, int row, int col) {
  mat<N - 1, T> r;
  for (int i = 0, ri = 0; i < N; ++i) {
    if (i == row)
      continue;
    for (int j = 0, rj = 0; j < N; ++j)
      if (j != col)
        r[ri][rj++] = m[i][j];
    ++ri;
  }
  return r;
}
/// By cofactor expansion along the first row.
template <int N, typename T> KSC_HD inline T determinant(const mat<N, T> &m) {
  if constexpr (N == 2) {
    return m[0][0] * m[1][1] - m[0][1] * m[1][0];
  } else {
    T sum = T(0);
    for (int j = 0; j < N; ++j) {
      T term = m[0][j] * determinant(minor_of(m, 0, j));
      sum = j % 2 == 0 ? sum + term : sum - term;
    }
    return sum;
  }
}
/// The adjugate divided by the determinant; zero for a singular matrix (as
/// Warp's inverse).
template <int N, typename T>
KSC_HD inline mat<N, T> inverse(const mat<N, T> &m) {
  T det = determinant(m);
  if (det == T(0))
    return mat<N, T>();
  mat<N, T> r;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      T cofactor;
      if constexpr (N == 2)
        cofactor = m[1 - i][1 - j];
      else
        cofactor = determinant(minor_of(m, i, j));
      r[j][i] = ((i + j) % 2 == 0 ? cofactor : -cofactor) / det;
    }
  return r;
}

// Random numbers: NVIDIA Warp's generator (warp/native/rand.h), bit for bit.
// A stream's state is a uint32_t that every draw advances through the PCG
// hash of Jarzynski and Olano, "Hash Functions for GPU Rendering" (JCGT
// 2020); the numbers are computed from the new state.

/// The PCG hash of `x`.
KSC_HD inline uint32_t rand_pcg(uint32_t x) {
  uint32_t b = x * 747796405u + 2891336453u;
  uint32_t c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
  return (c >> 22u) ^ c;
}

/// The state of the stream for `seed`.
KSC_HD inline uint32_t rand_init(int seed) { return rand_pcg(uint32_t(seed)); }

/// The state of stream `offset` (usually the thread index) for `seed`.
KSC_HD inline uint32_t rand_init(int seed, int offset) {
  return rand_pcg(uint32_t(seed) + rand_pcg(uint32_t(offset)));
}

/// The next state, as an int (the same 32 bits).
KSC_HD inline int randi(uint32_t &state) {
  state = rand_pcg(state);
  return int(state);
}

/// A number in [lo, hi) for lo < hi: the next state modulo hi - lo, plus lo,
/// computed on uint32_t (hi == lo divides by zero, as in Warp).
KSC_HD inline int randi(uint32_t &state, int lo, int hi) {
  state = rand_pcg(state);
  return int(state % (uint32_t(hi) - uint32_t(lo)) + uint32_t(lo));
}

/// A float in [0, 1): the top 24 bits of the next state times 2^-24, one of
/// 2^24 evenly spaced values, exactly.
KSC_HD inline float randf(uint32_t &state) {
  state = rand_pcg(state);
  return float(state >> 8) * (1.0f / 16777216.0f);
}

/// A float in [lo, hi): (hi - lo) * randf(state) + lo, each step rounded to
/// float.
KSC_HD inline float randf(uint32_t &state, float lo, float hi) {
  float unit = randf(state);
  float scaled = (hi - lo) * unit;
  return scaled + lo;
}

/// A float from the standard normal distribution (Box-Muller): the first
/// draw gives the radius, the second the angle; 5.96e-8 keeps the logarithm
/// finite.
KSC_HD inline float randn(uint32_t &state) {
  float u1 = randf(state);
  float u2 = randf(state);
  float radius = std::sqrt(-2.0f * std::log(u1 + 5.96e-8f));
  float angle = 2.0f * 3.14159265358979323846f * u2;
  return radius * std::cos(angle);
}

/// The partial sums of the first N elements of a 1-D array that a launch
/// only adds into (`ks.accumulator`): the CPU launchers give kernels one in
/// place of such an array, private to a chunk of threads, and add it into
/// the array with `flush_into`; a GPU kernel gives each GPU thread one
/// (registers, for constant indices) and adds up the block's with
/// `flush_block_into`. It converts to an array of extent min(N, the
/// array's), so that the threads' sums stay out of memory.
template <typename T, int N> class accumulator {
public:
  KSC_HD explicit accumulator(const array<T> &target)
      : extent_(target.size() < N ? target.size() : N) {}
  accumulator(const accumulator &) = delete;
  accumulator &operator=(const accumulator &) = delete;
  KSC_HD operator array<T>() { return array<T>(sums_, extent_); }
  KSC_HD int64_t extent() const { return extent_; }
  KSC_HD const T &operator[](int64_t k) const { return sums_[k]; }
  KSC_HD void flush_into(const array<T> &target) const {
    for (int64_t k = 0; k < extent_; ++k)
      atomic_add(target, k, sums_[k]);
  }
#if defined(__CUDACC__) || defined(KSC_SIMT_HOST)
  /// Adds the sums of every GPU thread of the block into `target`: every
  /// thread of the block must call it (see detail::block_flush).
  KSC_DEVICE void flush_block_into(const array<T> &target) const {
    detail::block_flush(sums_, extent_, target);
  }
  /// flush_block_into with the blocks' sums added in a fixed order, through
  /// `partials` (see detail::block_flush_ordered).
  KSC_DEVICE void flush_block_into(const array<T> &target,
                                   const array<int64_t> &partials) const {
    detail::block_flush_ordered(sums_, extent_, target, partials);
  }
#endif

private:
  T sums_[N] = {};
  int64_t extent_;
};

#ifndef __CUDACC_RTC__
// The tape of adjoint kernels (`ks.tape_push`, `ks.tape_pop`): a last-in,
// first-out stack of values per thread. An adjoint kernel's forward sweep
// pushes what its loops compute and its reverse sweep pops it back, so the
// tape is empty again when a thread ends. Threads of a CPU launch run on
// one OS thread one after another and reuse its tape's memory.
class tape {
public:
  tape() = default;
  tape(const tape &) = delete;
  tape &operator=(const tape &) = delete;
  ~tape() { std::free(begin_); }

  template <typename T> void push(const T &value) {
    static_assert(std::is_trivially_copyable_v<T>, "tape values are plain");
    if (std::size_t(end_ - top_) < sizeof(T))
      grow(sizeof(T));
    std::memcpy(top_, &value, sizeof(T));
    top_ += sizeof(T);
  }
  template <typename T> T pop() {
    T value;
    top_ -= sizeof(T);
    std::memcpy(&value, top_, sizeof(T));
    return value;
  }
  /// The bytes a loop's values may take before adjoint kernels checkpoint
  /// the loop instead (`ks.tape_capacity`): the tape grows as needed, this
  /// only bounds what one loop keeps.
  int64_t capacity() const { return int64_t(1) << 20; }

private:
  void grow(std::size_t more) {
    std::size_t used = std::size_t(top_ - begin_);
    std::size_t size = std::max<std::size_t>(
        4096, 2 * std::size_t(end_ - begin_) + more);
    auto *bytes = static_cast<unsigned char *>(std::realloc(begin_, size));
    if (!bytes)
      fail_launch("out of memory for the tape of an adjoint kernel (" +
                  std::to_string(size) + " bytes)");
    begin_ = bytes;
    top_ = bytes + used;
    end_ = bytes + size;
  }

  unsigned char *begin_ = nullptr, *top_ = nullptr, *end_ = nullptr;
};

/// The running OS thread's tape. The adjoints ksc emits look it up once
/// per call (`ksc::tape &tape = ksc::thread_tape();`) and push and pop on
/// the reference.
inline tape &thread_tape() {
  static thread_local tape instance;
  tape *result = &instance;
#if defined(__GNUC__)
  // In code compiled with -fPIC, the address of a thread_local is a call
  // of __tls_get_addr, which GCC would make again at every use of the
  // reference (it rematerializes TLS addresses): the empty asm makes the
  // address an ordinary value that stays in a register.
  asm("" : "+r"(result));
#endif
  return *result;
}

//===----------------------------------------------------------------------===//
// Parallel CPU launches
//===----------------------------------------------------------------------===//
//
// The launchers ksc emits for the CPU (`ksc --cpu-launch=parallel`, the
// default) run a launch's threads on several OS threads with
// `parallel_launch`: the launch is cut into chunks of consecutive threads,
// a function of the launch size only, and OS threads claim chunks in
// increasing order until none is left. The calling thread works too.
// See "How CPU launches run" in docs/language.md.

/// An application's own scheduler for the CPU launches of ksc code (see
/// `set_executor`): runs `task(context, k)` for every k in [0, count),
/// concurrently as far as it can (in any order, on any OS threads, all on
/// the calling one included), and returns when every call has returned.
/// The tasks never throw and never wait for each other.
using executor = void (*)(int count, void (*task)(void *context, int k),
                          void *context, void *user);

namespace detail {
struct parallel_settings {
  std::atomic<int> threads{0};
  std::mutex mutex;
  executor run = nullptr;
  void *user = nullptr;
};
inline parallel_settings &settings() {
  static parallel_settings instance;
  return instance;
}

/// KSC_NUM_THREADS as a number from 1 to 4096, else 0 (read once).
inline int env_num_threads() {
  static const int value = [] {
    const char *text = std::getenv("KSC_NUM_THREADS");
    if (!text || !*text)
      return 0;
    char *end = nullptr;
    long n = std::strtol(text, &end, 10);
    return *end == '\0' && n >= 1 && n <= 4096 ? int(n) : 0;
  }();
  return value;
}

/// Whether the calling OS thread runs part of a launch: a launch it starts
/// (a launch inside a launch) runs on it alone.
inline bool &in_launch() {
  static thread_local bool value = false;
  return value;
}

inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// ksc's own pool of OS threads, started on first use and grown on demand.
/// One launch uses it at a time; another launch that finds it busy runs on
/// its calling thread alone. Its threads wait a little for the next launch
/// (back-to-back launches are common), then sleep.
class thread_pool {
public:
  thread_pool() = default;
  thread_pool(const thread_pool &) = delete;
  thread_pool &operator=(const thread_pool &) = delete;
  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &worker : workers_)
      worker.join();
  }

  /// The pool for one launch, or an unlocked lock if another launch has it.
  std::unique_lock<std::mutex> acquire() {
    return std::unique_lock<std::mutex>(busy_, std::try_to_lock);
  }

  /// With the pool acquired: runs task(context, k) for k in [0, count), k = 0
  /// on the calling thread and the others on the pool's threads. A task
  /// returns when no work is left to claim, so once the calling thread's
  /// has returned, pool threads that have not started theirs yet skip it:
  /// the launch waits only for the tasks that are running.
  void run(int count, void (*task)(void *, int), void *context) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      count = 1 + start_workers(count - 1);
      task_ = task;
      context_ = context;
      count_ = count;
      if (++generation_ == 0) // 0 is what a new thread has seen
        ++generation_;
      state_.store(uint64_t(generation_) << 32, std::memory_order_release);
    }
    wake_.notify_all();
    task(context, 0);
    uint64_t state = state_.fetch_or(kClosed, std::memory_order_acq_rel);
    for (int spin = 0; spin < kSpin && (state & kRunning); ++spin) {
      spin_pause();
      state = state_.load(std::memory_order_acquire);
    }
    if (state & kRunning) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] {
        return !(state_.load(std::memory_order_acquire) & kRunning);
      });
    }
  }

private:
  static constexpr int kSpin = 20000;
  /// state_: the generation of the current launch (high 32 bits), whether
  /// it is closed to tasks that have not started, and how many run.
  static constexpr uint64_t kClosed = uint64_t(1) << 31;
  static constexpr uint64_t kRunning = kClosed - 1;

  /// Starts threads until there are `n` (under mutex_); returns how many
  /// there are, at most `n`.
  int start_workers(int n) {
    while (int(workers_.size()) < n) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
      try {
        int index = int(workers_.size()) + 1;
        workers_.emplace_back([this, index] { work(index); });
      } catch (...) {
        break;
      }
#else
      int index = int(workers_.size()) + 1;
      workers_.emplace_back([this, index] { work(index); });
#endif
    }
    return std::min(n, int(workers_.size()));
  }

  /// Joins launch `generation` unless it is closed or over.
  bool join(uint32_t generation) {
    uint64_t state = state_.load(std::memory_order_acquire);
    do {
      if (uint32_t(state >> 32) != generation || (state & kClosed))
        return false;
    } while (!state_.compare_exchange_weak(state, state + 1,
                                           std::memory_order_acq_rel));
    return true;
  }

  void work(int index) {
    in_launch() = true;
    uint32_t seen = 0;
    while (true) {
      for (int spin = 0;
           spin < kSpin &&
           uint32_t(state_.load(std::memory_order_acquire) >> 32) == seen;
           ++spin)
        spin_pause();
      void (*task)(void *, int);
      void *context;
      int count;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_)
          return;
        seen = generation_;
        task = task_;
        context = context_;
        count = count_;
      }
      if (index >= count || !join(seen))
        continue;
      task(context, index);
      uint64_t left = state_.fetch_sub(1, std::memory_order_acq_rel) - 1;
      if (!(left & kRunning)) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_all();
      }
    }
  }

  std::mutex busy_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  uint32_t generation_ = 0;
  std::atomic<uint64_t> state_{0};
  void (*task_)(void *, int) = nullptr;
  void *context_ = nullptr;
  int count_ = 0;
  bool stop_ = false;
};

inline thread_pool &pool() {
  static thread_pool instance;
  return instance;
}
} // namespace detail

/// The most OS threads a CPU launch runs on: KSC_NUM_THREADS when it is set
/// to a number from 1 to 4096, else what `set_num_threads` asked for, else
/// the number of hardware threads.
inline int num_threads() {
  if (int n = detail::env_num_threads())
    return n;
  if (int n = detail::settings().threads.load(std::memory_order_relaxed))
    return n;
  unsigned hardware = std::thread::hardware_concurrency();
  return hardware ? int(hardware) : 1;
}

/// Makes CPU launches run on at most `n` OS threads (n >= 1), or on the
/// default number again (n = 0). KSC_NUM_THREADS, when set, wins.
inline void set_num_threads(int n) {
  detail::settings().threads.store(n < 0 ? 0 : std::min(n, 4096),
                                   std::memory_order_relaxed);
}

/// Hands the CPU launches of ksc code to an application's scheduler (see
/// `executor`), which then runs `num_threads()` tasks per launch; nullptr
/// goes back to ksc's own pool.
inline void set_executor(executor run, void *user = nullptr) {
  detail::parallel_settings &s = detail::settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.run = run;
  s.user = user;
}

namespace detail {
/// The chunks of a launch of `threads` threads: consecutive threads, at
/// least `grain` per chunk and at most kMaxChunks chunks. Only the launch
/// size and the kernel's grain decide them, never the number of OS threads,
/// so that sums per chunk come out the same for any number.
struct launch_chunks {
  static constexpr int64_t kMaxChunks = 1024;
  int64_t threads, size, count;
  launch_chunks(int64_t threads_, int64_t grain)
      : threads(threads_),
        size(std::max<int64_t>(std::max<int64_t>(grain, 1),
                               (threads_ + kMaxChunks - 1) / kMaxChunks)),
        count((threads_ + size - 1) / size) {}
};

/// What a launch does with one of its sums (the spec types below): the
/// memory the threads of a chunk add into, and how it reaches the array.
template <typename Spec> struct launch_part;
} // namespace detail

/// The first Size elements of 1-D array `target`, which the kernel only adds
/// into at constant indices (`ks.accumulator`): every chunk sums into its
/// own accumulator; after the launch the chunks' sums are added up in chunk
/// order and then into `target`. The result is the same for any number of
/// OS threads.
template <int Size, typename T> struct chunk_sums_of {
  array<T> target;
};
template <int Size, typename T>
inline chunk_sums_of<Size, T> chunk_sums(const array<T> &target) {
  return {target};
}

/// Array `target`, which the kernel only adds into (atomic adds and
/// subtracts at any index whose old values it never reads): every OS thread
/// of the launch adds into a zeroed copy of its own, and after the launch
/// the copies are added into `target`, in the order of the OS threads. A
/// launch on one OS thread adds into `target` directly.
template <typename T, int N> struct worker_sums_of {
  array<T, N> target;
};
template <typename T, int N>
inline worker_sums_of<T, N> worker_sums(const array<T, N> &target) {
  return {target};
}

namespace detail {
template <int Size, typename T> struct launch_part<chunk_sums_of<Size, T>> {
  static constexpr bool per_chunk = true;
  array<T> target;
  std::vector<T> sums;

  launch_part(const chunk_sums_of<Size, T> &spec, const launch_chunks &chunks,
              int /*workers*/)
      : target(spec.target), sums(size_t(chunks.count) * Size) {}
  /// The memory each OS thread of the launch adds into on its own.
  static size_t bytes_per_worker(const chunk_sums_of<Size, T> &) { return 0; }
  template <typename G> KSC_INLINE void run(int, int64_t chunk, G &&g) {
    accumulator<T, Size> local(target);
    g(array<T>(local));
    for (int64_t k = 0; k < local.extent(); ++k)
      sums[size_t(chunk) * Size + k] = local[k];
  }
  void finish(const launch_chunks &chunks) {
    int64_t extent = std::min<int64_t>(Size, target.size());
    for (int64_t k = 0; k < extent; ++k) {
      T total = sums[k];
      for (int64_t c = 1; c < chunks.count; ++c)
        total = total + sums[size_t(c) * Size + k];
      atomic_add(target, k, total);
    }
  }
};

template <typename T, int N> struct launch_part<worker_sums_of<T, N>> {
  static constexpr bool per_chunk = false;
  array<T, N> target;
  std::vector<std::unique_ptr<T[]>> copies;

  launch_part(const worker_sums_of<T, N> &spec, const launch_chunks &,
              int workers)
      : target(spec.target), copies(workers > 1 ? workers : 0) {}
  static size_t bytes_per_worker(const worker_sums_of<T, N> &spec) {
    return size_t(spec.target.size()) * sizeof(T);
  }
  template <typename G> KSC_INLINE void run(int worker, int64_t, G &&g) {
    if (copies.empty()) {
      g(array<T, N>(target));
      return;
    }
    std::unique_ptr<T[]> &copy = copies[worker];
    if (!copy)
      allocate(copy);
    ksc_array_desc desc = {copy.get(), N, {}, {}};
    int64_t stride = 1;
    for (int d = N - 1; d >= 0; --d) {
      desc.shape[d] = target.shape(d);
      desc.strides[d] = stride;
      stride *= target.shape(d);
    }
    g(array<T, N>(desc));
  }
  void allocate(std::unique_ptr<T[]> &copy) {
    size_t n = size_t(target.size());
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
      copy.reset(new T[n ? n : 1]());
    } catch (const std::bad_alloc &) {
      fail_launch("out of memory for an OS thread's copy of an array the "
                  "launch sums into (" +
                  std::to_string(n * sizeof(T)) + " bytes)");
    }
#else
    copy.reset(new T[n ? n : 1]());
#endif
  }
  void finish(const launch_chunks &) {
    int64_t index[N] = {};
    for (const std::unique_ptr<T[]> &copy : copies) {
      if (!copy)
        continue;
      int64_t n = target.size();
      for (int64_t flat = 0; flat < n; ++flat) {
        int64_t rest = flat, offset = 0;
        for (int d = N - 1; d >= 0; --d) {
          index[d] = rest % target.shape(d);
          rest /= target.shape(d);
          offset += index[d] * target.stride(d);
        }
        T &element = target.data()[offset];
        element = element + copy[flat];
      }
    }
  }
};

/// One launch: the chunks, the OS threads' claims on them, the first
/// failure, and the launch's sums.
template <typename F, typename... Specs> class parallel_job {
public:
  parallel_job(F &body, const launch_chunks &chunks, int workers,
               const Specs &...specs)
      : body_(body), chunks_(chunks), workers_(workers),
        parts_(launch_part<Specs>(specs, chunks, workers)...) {}

  static void task(void *self, int worker) {
    bool &nested = in_launch();
    bool saved = nested;
    nested = true;
    static_cast<parallel_job *>(self)->work(worker);
    nested = saved;
  }

  /// After every task returned: rethrows the failure of the lowest thread
  /// index that failed, else adds the sums into their arrays.
  void finish() {
    if (error_)
      std::rethrow_exception(error_);
    std::apply([&](auto &...part) { (part.finish(chunks_), ...); }, parts_);
  }

private:
  static constexpr bool kPerChunk =
      (false || ... || launch_part<Specs>::per_chunk);

  void work(int worker) {
    while (true) {
      // Guided claims: large while much is left, single chunks at the end.
      int64_t left =
          chunks_.count - next_.load(std::memory_order_relaxed);
      int64_t claim = std::max<int64_t>(1, left / (2 * int64_t(workers_)));
      int64_t first = next_.fetch_add(claim, std::memory_order_relaxed);
      if (first >= chunks_.count ||
          first > failed_.load(std::memory_order_acquire))
        return;
      int64_t last = std::min(first + claim, chunks_.count);
      if constexpr (kPerChunk) {
        for (int64_t c = first; c < last; ++c)
          if (!run(worker, c, c + 1))
            return;
      } else if (!run(worker, first, last)) {
        return;
      }
    }
  }

  /// Runs chunks [first, last); false if a thread failed.
  bool run(int worker, int64_t first, int64_t last) {
    int begin = int(first * chunks_.size);
    int end = int(std::min(last * chunks_.size, chunks_.threads));
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
      call<0>(worker, first, begin, end);
    } catch (...) {
      // Chunks run their threads in order and are claimed in order: the
      // failure of the lowest chunk is that of the lowest thread index.
      std::lock_guard<std::mutex> lock(mutex_);
      if (first < failed_.load(std::memory_order_relaxed)) {
        failed_.store(first, std::memory_order_release);
        error_ = std::current_exception();
      }
      return false;
    }
#else
    call<0>(worker, first, begin, end);
#endif
    return true;
  }

  /// Calls the body with the memory of parts I... for the chunk.
  template <size_t I, typename... Views>
  KSC_INLINE void call(int worker, int64_t chunk, int begin, int end,
                       const Views &...views) {
    if constexpr (I == sizeof...(Specs)) {
      // A copy of the body on this thread's stack: what it captures by
      // value (ksc's launchers capture the kernel's arguments so) cannot
      // alias the arrays the threads write, and stays in registers across
      // the threads of the range instead of being loaded for each.
      F body = body_;
      body(begin, end, views...);
    } else {
      std::get<I>(parts_).run(worker, chunk,
                              [&](const auto &view) KSC_INLINE_LAMBDA {
                                call<I + 1>(worker, chunk, begin, end,
                                            views..., view);
                              });
    }
  }

  F &body_;
  launch_chunks chunks_;
  int workers_;
  std::tuple<launch_part<Specs>...> parts_;
  std::atomic<int64_t> next_{0};
  std::atomic<int64_t> failed_{std::numeric_limits<int64_t>::max()};
  std::mutex mutex_;
  std::exception_ptr error_;
};

/// The most memory the OS threads' copies of a launch's sums may take.
inline constexpr size_t kMaxPrivateBytes = size_t(256) << 20;

template <typename F, typename Tuple, size_t... I>
inline void launch_on_cores(int64_t threads, int64_t grain, F &body,
                            Tuple &specs, std::index_sequence<I...>) {
  using Job =
      parallel_job<F, std::decay_t<std::tuple_element_t<I, Tuple>>...>;
  launch_chunks chunks(threads, grain);
  if (chunks.count == 0)
    return;
  int workers = 1;
  std::unique_lock<std::mutex> pool_lock;
  executor run = nullptr;
  void *user = nullptr;
  if (chunks.count > 1 && !in_launch()) {
    workers = int(std::min<int64_t>(num_threads(), chunks.count));
    size_t bytes =
        (size_t(0) + ... +
         launch_part<std::decay_t<std::tuple_element_t<I, Tuple>>>::
             bytes_per_worker(std::get<I>(specs)));
    if (bytes)
      workers = int(std::max<size_t>(
          1, std::min<size_t>(workers, kMaxPrivateBytes / bytes)));
    if (workers > 1) {
      {
        parallel_settings &s = settings();
        std::lock_guard<std::mutex> lock(s.mutex);
        run = s.run;
        user = s.user;
      }
      if (!run) {
        pool_lock = pool().acquire();
        if (!pool_lock.owns_lock())
          workers = 1;
      }
    }
  }
  Job job(body, chunks, workers, std::get<I>(specs)...);
  if (workers == 1)
    Job::task(&job, 0);
  else if (run)
    run(workers, &Job::task, &job, user);
  else
    pool().run(workers, &Job::task, &job);
  if (pool_lock.owns_lock())
    pool_lock.unlock();
  job.finish();
}
} // namespace detail

/// Runs a launch of `dim.size()` threads on the CPU's cores: `args` are the
/// launch's sums (`chunk_sums`, `worker_sums`) followed by the body, which
/// `parallel_launch` calls as `body(begin, end, sums...)` to run threads
/// [begin, end) in order, each sum as the array its threads add into.
/// Chunks have at least `grain` threads; a launch of one chunk, or one
/// started inside a launch, runs on the calling thread. The body is copied
/// for each range of threads it runs (so a capture by value is not shared
/// between ranges; state the ranges share goes in captures by reference).
/// Errors: the first failure (launch_error) of the lowest thread index that
/// failed is thrown after every OS thread has stopped; sums are then not
/// added.
template <typename... A>
inline void parallel_launch(const grid &dim, int64_t grain, A &&...args) {
  static_assert(sizeof...(A) >= 1, "the body comes last");
  auto all = std::forward_as_tuple(std::forward<A>(args)...);
  auto &body = std::get<sizeof...(A) - 1>(all);
  detail::launch_on_cores(dim.size(), grain, body, all,
                          std::make_index_sequence<sizeof...(A) - 1>{});
}

#endif // !__CUDACC_RTC__

/// The tape of one GPU thread (`ks.tape_create`): a handle on the
/// `local_tape` the thread's kernel declares, which the thread function
/// receives as an argument (GPU threads have no thread-local storage to
/// find it in). Every value takes its size rounded up to 8 bytes, as in the
/// PTX ksc writes; a push that does not fit stops the launch.
class device_tape {
public:
  KSC_HD device_tape(unsigned char *bytes, int64_t *top, int64_t capacity,
                     const char *kernel)
      : bytes_(bytes), top_(top), capacity_(capacity), kernel_(kernel) {}

  template <typename T> KSC_HD void push(const T &value) {
    if (*top_ + slot<T> > capacity_)
      overflow();
    copy(bytes_ + *top_, reinterpret_cast<const unsigned char *>(&value),
         sizeof(T));
    *top_ += slot<T>;
  }
  /// The tape's size in bytes (`--tape-bytes`).
  KSC_HD int64_t capacity() const { return capacity_; }
  template <typename T> KSC_HD T pop() {
    T value;
    *top_ -= slot<T>;
    copy(reinterpret_cast<unsigned char *>(&value), bytes_ + *top_,
         sizeof(T));
    return value;
  }

private:
  template <typename T>
  static constexpr int64_t slot = (int64_t(sizeof(T)) + 7) / 8 * 8;
  KSC_HD static void copy(unsigned char *to, const unsigned char *from,
                          size_t size) {
    for (size_t i = 0; i < size; ++i)
      to[i] = from[i];
  }
  KSC_HD void overflow() const {
#ifdef __CUDA_ARCH__
    printf("ksc: kernel '%s': the thread's tape is full (%lld bytes); "
           "compile with a larger --tape-bytes\n",
           kernel_, static_cast<long long>(capacity_));
    __trap();
#else
    fail_launch(std::string("kernel '") + kernel_ +
                "': the thread's tape is full (" + std::to_string(capacity_) +
                " bytes); compile with a larger --tape-bytes");
#endif
  }

  unsigned char *bytes_;
  int64_t *top_;
  int64_t capacity_;
  const char *kernel_;
};

/// The memory of a GPU thread's tape, `Capacity` bytes in the thread's
/// local memory; converts to the `device_tape` a thread function takes.
template <int64_t Capacity> class local_tape {
public:
  KSC_HD explicit local_tape(const char *kernel) : kernel_(kernel) {}
  local_tape(const local_tape &) = delete;
  local_tape &operator=(const local_tape &) = delete;
  KSC_HD operator device_tape() {
    return device_tape(bytes_, &top_, Capacity, kernel_);
  }

private:
  alignas(16) unsigned char bytes_[Capacity];
  int64_t top_ = 0;
  const char *kernel_;
};

} // namespace ksc

#endif // KSC_RUNTIME_H
