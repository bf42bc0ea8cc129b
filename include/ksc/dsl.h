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

// The math library: the scalar math of NVIDIA Warp's kernel language, for
// float and double (some functions also for int and int64_t). The table in
// docs/language.md ("Builtins") gives the exact semantics.
//
// Each builtin is a function template with a defaulted parameter. C++ prefers
// a plain function to a template when both match a call equally well, so a
// device function of your own with a builtin's name and parameter types (say
// `KSC_FUNC double floor(double x)`) is the one called, instead of the call
// being ambiguous. Among the builtins, overloads are chosen as for plain
// functions: `pow(2.0f, 3)` is the float pow, `min(1, 2.0f)` is ambiguous.
#define KSC_BUILTIN template <bool ksc_builtin = true>

// Trigonometric and hyperbolic functions, in radians.
KSC_BUILTIN float sin(float x);
KSC_BUILTIN double sin(double x);
KSC_BUILTIN float cos(float x);
KSC_BUILTIN double cos(double x);
KSC_BUILTIN float tan(float x);
KSC_BUILTIN double tan(double x);
/// asin and acos clamp x to [-1, 1] first, as Warp does: asin(2) is pi/2,
/// not NaN (and a NaN x is clamped to -1).
KSC_BUILTIN float asin(float x);
KSC_BUILTIN double asin(double x);
KSC_BUILTIN float acos(float x);
KSC_BUILTIN double acos(double x);
KSC_BUILTIN float atan(float x);
KSC_BUILTIN double atan(double x);
/// The angle of the point (x, y), in [-pi, pi].
KSC_BUILTIN float atan2(float y, float x);
KSC_BUILTIN double atan2(double y, double x);
KSC_BUILTIN float sinh(float x);
KSC_BUILTIN double sinh(double x);
KSC_BUILTIN float cosh(float x);
KSC_BUILTIN double cosh(double x);
KSC_BUILTIN float tanh(float x);
KSC_BUILTIN double tanh(double x);

// Exponentials, logarithms, powers and roots.
KSC_BUILTIN float exp(float x);
KSC_BUILTIN double exp(double x);
KSC_BUILTIN float exp2(float x);
KSC_BUILTIN double exp2(double x);
KSC_BUILTIN float log(float x);
KSC_BUILTIN double log(double x);
KSC_BUILTIN float log2(float x);
KSC_BUILTIN double log2(double x);
KSC_BUILTIN float log10(float x);
KSC_BUILTIN double log10(double x);
/// x raised to the power y (C's pow).
KSC_BUILTIN float pow(float x, float y);
KSC_BUILTIN double pow(double x, double y);
KSC_BUILTIN float sqrt(float x);
KSC_BUILTIN double sqrt(double x);
KSC_BUILTIN float cbrt(float x);
KSC_BUILTIN double cbrt(double x);
/// The error function.
KSC_BUILTIN float erf(float x);
KSC_BUILTIN double erf(double x);

// Rounding to an integral value (the result keeps its floating-point type).
KSC_BUILTIN float floor(float x);
KSC_BUILTIN double floor(double x);
KSC_BUILTIN float ceil(float x);
KSC_BUILTIN double ceil(double x);
/// The nearest integer, halfway cases away from zero (C's round): round(2.5)
/// is 3, round(-0.5) is -1, round(-0.25) is -0.
KSC_BUILTIN float round(float x);
KSC_BUILTIN double round(double x);
KSC_BUILTIN float trunc(float x);
KSC_BUILTIN double trunc(double x);
/// The remainder of x / y with the sign of x: x - trunc(x / y) * y, exactly.
KSC_BUILTIN float fmod(float x, float y);
KSC_BUILTIN double fmod(double x, double y);

// Classification.
KSC_BUILTIN bool isfinite(float x);
KSC_BUILTIN bool isfinite(double x);
KSC_BUILTIN bool isnan(float x);
KSC_BUILTIN bool isnan(double x);
KSC_BUILTIN bool isinf(float x);
KSC_BUILTIN bool isinf(double x);

/// |x|.
KSC_BUILTIN float abs(float x);
KSC_BUILTIN double abs(double x);
KSC_BUILTIN int abs(int x);
KSC_BUILTIN int64_t abs(int64_t x);
KSC_BUILTIN long long abs(long long x);

/// The smaller/larger argument. For float and double, a NaN argument is
/// ignored (as fmin/fmax do).
KSC_BUILTIN float min(float a, float b);
KSC_BUILTIN double min(double a, double b);
KSC_BUILTIN int min(int a, int b);
KSC_BUILTIN int64_t min(int64_t a, int64_t b);
KSC_BUILTIN long long min(long long a, long long b);
KSC_BUILTIN uint32_t min(uint32_t a, uint32_t b);
KSC_BUILTIN float max(float a, float b);
KSC_BUILTIN double max(double a, double b);
KSC_BUILTIN int max(int a, int b);
KSC_BUILTIN int64_t max(int64_t a, int64_t b);
KSC_BUILTIN long long max(long long a, long long b);
KSC_BUILTIN uint32_t max(uint32_t a, uint32_t b);

/// min(max(x, lo), hi): x limited to [lo, hi]. For float and double a NaN x
/// gives lo (min and max ignore NaN).
KSC_BUILTIN float clamp(float x, float lo, float hi);
KSC_BUILTIN double clamp(double x, double lo, double hi);
KSC_BUILTIN int clamp(int x, int lo, int hi);
KSC_BUILTIN int64_t clamp(int64_t x, int64_t lo, int64_t hi);
KSC_BUILTIN long long clamp(long long x, long long lo, long long hi);
KSC_BUILTIN uint32_t clamp(uint32_t x, uint32_t lo, uint32_t hi);

/// Warp's sign: -1 if x < 0, else 1 (so sign(0), sign(-0.0) and sign(NaN)
/// are 1).
KSC_BUILTIN float sign(float x);
KSC_BUILTIN double sign(double x);
KSC_BUILTIN int sign(int x);
KSC_BUILTIN int64_t sign(int64_t x);
KSC_BUILTIN long long sign(long long x);

/// Warp's step: 1 if x < 0, else 0. (Not GLSL's step(edge, x).)
KSC_BUILTIN float step(float x);
KSC_BUILTIN double step(double x);

/// a * (1 - t) + b * t.
KSC_BUILTIN float lerp(float a, float b, float t);
KSC_BUILTIN double lerp(double a, double b, double t);

/// t * t * (3 - 2 * t) with t = clamp((x - edge0) / (edge1 - edge0), 0, 1):
/// 0 at or below edge0, 1 at or above edge1.
KSC_BUILTIN float smoothstep(float edge0, float edge1, float x);
KSC_BUILTIN double smoothstep(double edge0, double edge1, double x);

// Random numbers: NVIDIA Warp's generator, bit for bit. A stream's state is
// a uint32_t variable (or array element) that randi, randf and randn advance
// through their reference parameter:
//
//   uint32_t s = rand_init(seed, tid());
//   float r = randf(s);       // s has moved on
//   int k = randi(s, 0, 10);
//
// docs/language.md ("Random numbers") gives the exact definitions.

/// The state of the stream for `seed`.
KSC_BUILTIN uint32_t rand_init(int seed);
/// The state of stream `offset` (usually the thread index) for `seed`.
KSC_BUILTIN uint32_t rand_init(int seed, int offset);
/// Advances `state` and returns it as an int (the same bits).
KSC_BUILTIN int randi(uint32_t &state);
/// Advances `state` and returns an int in [lo, hi) (lo < hi).
KSC_BUILTIN int randi(uint32_t &state, int lo, int hi);
/// Advances `state` and returns a float in [0, 1).
KSC_BUILTIN float randf(uint32_t &state);
/// Advances `state` and returns a float in [lo, hi).
KSC_BUILTIN float randf(uint32_t &state, float lo, float hi);
/// Advances `state` twice and returns a float from the standard normal
/// distribution.
KSC_BUILTIN float randn(uint32_t &state);

#undef KSC_BUILTIN

} // namespace ksc

using namespace ksc;

#endif // KSC_DSL_H
