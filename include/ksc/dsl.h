//===- dsl.h - The ksc kernel language -------------------------*- C++ -*-===//
//
// Part of ksc. ksc puts this header in front of every .kdsl file it
// compiles. Include it yourself (`#include "ksc/dsl.h"`, with
// `-I <prefix>/include`, see `ksc --print-include-dir`) so that clangd and
// other C++ tools understand kernel files; including it twice is harmless.
//
// Everything here is a declaration: ksc gives these names their meaning,
// nothing is ever linked against them. See docs/language.md.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DSL_H
#define KSC_DSL_H

#include <stdint.h>

#if defined(__KSC__) || defined(__clang__)
/// Marks a kernel: an entry point run once per thread of a launch.
#define KSC_KERNEL __attribute__((annotate("ksc.kernel")))
/// Marks a device function, callable from kernels and device functions.
#define KSC_FUNC __attribute__((annotate("ksc.func")))
#else
// Other compilers (for syntax checks) have no annotate attribute.
#define KSC_KERNEL
#define KSC_FUNC
#endif

namespace ksc {

namespace detail {
template <typename A, typename B> struct same_type {
  static constexpr bool value = false;
};
template <typename A> struct same_type<A, A> {
  static constexpr bool value = true;
};
template <bool Condition, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> { using type = T; };
} // namespace detail

/// `array<T, N>`: an N-dimensional (N = 1..4, default 1) view of memory that
/// the launch's caller owns, with a shape and strides, passed to kernels and
/// functions by value (the view is copied, not the data). `array<const T, N>`
/// is read-only, and an `array<T, N>` can be passed where one is expected.
/// Element (i, j, ...) is `a(i, j, ...)` or `a[i][j]...`; `a.shape(d)` is the
/// extent of dimension d. Indices are not checked unless ksc runs with
/// --bounds-check.
template <typename T, int N = 1> class array {
public:
  array() = default;
  array(const array &) = default;
  array &operator=(const array &) = default;
  template <typename U, typename = typename detail::enable_if<
                            detail::same_type<const U, T>::value>::type>
  array(const array<U, N> &other);

  /// `a[i]` of a multi-dimensional array is only valid indexed further, as
  /// in `a[i][j]`.
  template <typename Index> array<T, N - 1> operator[](Index i) const;
  template <typename... Index> T &operator()(Index... indices) const;
  /// The number of elements along dimension `dim` (a constant in [0, N)).
  int shape(int dim) const;
};

/// `array<T>`: a 1-D array; `a[i]` is element i.
template <typename T> class array<T, 1> {
public:
  array() = default;
  array(const array &) = default;
  array &operator=(const array &) = default;
  template <typename U, typename = typename detail::enable_if<
                            detail::same_type<const U, T>::value>::type>
  array(const array<U, 1> &other);

  template <typename Index> T &operator[](Index i) const;
  template <typename Index> T &operator()(Index i) const;
  /// The number of elements (dim must be 0).
  int shape(int dim) const;
};

/// The index of the running thread among all threads of the launch, in
/// [0, X * Y * Z) for a launch of grid (X, Y, Z), counted in row-major order
/// (the last dimension varies fastest). Only valid in kernels.
int tid();
/// The coordinate of the running thread along dimension `dim` (the constant
/// 0, 1 or 2) of the launch grid: for a 2-D launch of (X, Y), tid(0) is in
/// [0, X) and tid(1) in [0, Y). Only valid in kernels.
int tid(int dim);

// The math library. Each function exists for float and double.
float sin(float x);
double sin(double x);
float cos(float x);
double cos(double x);
float exp(float x);
double exp(double x);
float log(float x);
double log(double x);
float sqrt(float x);
double sqrt(double x);

/// |x|.
float abs(float x);
double abs(double x);
int abs(int x);
int64_t abs(int64_t x);
long long abs(long long x);

/// The smaller/larger argument. For float and double, a NaN argument is
/// ignored (as fmin/fmax do).
float min(float a, float b);
double min(double a, double b);
int min(int a, int b);
int64_t min(int64_t a, int64_t b);
long long min(long long a, long long b);
float max(float a, float b);
double max(double a, double b);
int max(int a, int b);
int64_t max(int64_t a, int64_t b);
long long max(long long a, long long b);

} // namespace ksc

using namespace ksc;

#endif // KSC_DSL_H
