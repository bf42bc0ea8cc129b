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

/// `array<T>`: a 1-D view of memory that the launch's caller owns, passed to
/// kernels and functions by value (the view is copied, not the data).
/// `array<const T>` is read-only, and an `array<T>` can be passed where one
/// is expected. `a[i]` is element i; indices are not checked unless ksc runs
/// with --bounds-check.
template <typename T> class array {
public:
  array() = default;
  array(const array &) = default;
  array &operator=(const array &) = default;
  template <typename U, typename = typename detail::enable_if<
                            detail::same_type<const U, T>::value>::type>
  array(const array<U> &other);

  template <typename Index> T &operator[](Index index) const;
};

/// The index of the running thread, in [0, dim) for a launch of dim threads.
/// Only valid in kernels.
int tid();

// The math library. Each function exists for float and double.
//
// Each builtin is a function template with a defaulted parameter. C++ prefers
// a plain function to a template when both match a call equally well, so a
// device function of your own with a builtin's name and parameter types (say
// `KSC_FUNC float max(float a, float b)`) is the one called, instead of the
// call being ambiguous. Among the builtins, overloads are chosen as for plain
// functions.
#define KSC_BUILTIN template <bool ksc_builtin = true>

KSC_BUILTIN float sin(float x);
KSC_BUILTIN double sin(double x);
KSC_BUILTIN float cos(float x);
KSC_BUILTIN double cos(double x);
KSC_BUILTIN float exp(float x);
KSC_BUILTIN double exp(double x);
KSC_BUILTIN float log(float x);
KSC_BUILTIN double log(double x);
KSC_BUILTIN float sqrt(float x);
KSC_BUILTIN double sqrt(double x);

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
KSC_BUILTIN float max(float a, float b);
KSC_BUILTIN double max(double a, double b);
KSC_BUILTIN int max(int a, int b);
KSC_BUILTIN int64_t max(int64_t a, int64_t b);
KSC_BUILTIN long long max(long long a, long long b);

#undef KSC_BUILTIN

} // namespace ksc

using namespace ksc;

#endif // KSC_DSL_H
