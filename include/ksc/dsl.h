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
/// Marks a device function as the reverse-mode derivative rule of device
/// function `f` (docs/autodiff.md, "Custom derivatives"): it takes f's
/// parameters, the adjoint of f's result, and a reference to the adjoint of
/// each parameter with a derivative, to add to.
#define KSC_ADJOINT(f)                                                         \
  __attribute__((annotate("ksc.func"), annotate("ksc.adjoint:" #f)))
/// Marks a device function as the forward-mode derivative rule of device
/// function `f`: it takes f's parameters and the tangent of each parameter
/// with a derivative, and returns the tangent of f's result.
#define KSC_TANGENT(f)                                                         \
  __attribute__((annotate("ksc.func"), annotate("ksc.tangent:" #f)))
#else
// Other compilers (for syntax checks) have no annotate attribute.
#define KSC_KERNEL
#define KSC_FUNC
#define KSC_ADJOINT(f)
#define KSC_TANGENT(f)
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
/// `T`, in a parameter type that takes no part in deducing `T`.
template <typename T> struct identity { using type = T; };
/// The type an array's elements are stored as: a reference type names
/// no storage (array<float &> is an error the frontend reports itself).
template <typename T> struct stored { using type = T; };
template <typename T> struct stored<T &> { using type = T; };
/// The element types atomics update: `atomic_element<T>::type` is T for
/// float, double, int, uint32_t and int64_t, for vectors (of float, double
/// or int), matrices and quaternions (below, after their definitions), and
/// does not exist for const, bool or struct elements.
template <typename T> struct atomic_element {};
template <> struct atomic_element<float> { using type = float; };
template <> struct atomic_element<double> { using type = double; };
template <> struct atomic_element<int> { using type = int; };
template <> struct atomic_element<unsigned> { using type = unsigned; };
template <> struct atomic_element<long> { using type = long; };
template <> struct atomic_element<long long> { using type = long long; };
} // namespace detail

/// `array<T, N>`: an N-dimensional (N = 1..4, default 1) view of memory that
/// the launch's caller owns, with a shape and strides, passed to kernels and
/// functions by value (the view is copied, not the data). `array<const T, N>`
/// is read-only, and an `array<T, N>` can be passed where one is expected.
/// Element (i, j, ...) is `a(i, j, ...)` or `a[i][j]...`; `a[i]` of an N-D
/// array is a view of one slice; `a.shape(d)` is the extent of dimension d. Indices are not checked unless ksc runs with
/// --bounds-check.
template <typename T, int N = 1> class array {
public:
  array() = default;
  array(const array &) = default;
  array &operator=(const array &) = default;
  template <typename U, typename = typename detail::enable_if<
                            detail::same_type<const U, T>::value>::type>
  array(const array<U, N> &other);

  /// `a[i]` of a multi-dimensional array is the (N-1)-D view of its slice
  /// i (a row of a 2-D array), sharing its memory; `a[i][j]` indexes it
  /// further.
  template <typename Index> array<T, N - 1> operator[](Index i) const;
  /// Element (i, j, ...): one index per dimension.
  template <typename... Index> T &operator()(Index... indices) const;
  /// The number of elements along dimension `dim` (a constant in [0, N)).
  int shape(int dim) const;

private:
  // The layout of the runtime's ksc::array, so that sizeof and alignof
  // (and those of a struct holding an array) are what the emitted C++ has.
  typename detail::stored<T>::type *data_;
  long shape_[N];
  long strides_[N];
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

private:
  typename detail::stored<T>::type *data_;
  long shape_[1];
  long strides_[1];
};

/// The index of the running thread among all threads of the launch, in
/// [0, X * Y * Z) for a launch of grid (X, Y, Z), counted in row-major order
/// (the last dimension varies fastest). Only valid in kernels.
int tid();
/// The coordinate of the running thread along dimension `dim` (the constant
/// 0, 1 or 2) of the launch grid: for a 2-D launch of (X, Y), tid(0) is in
/// [0, X) and tid(1) in [0, Y). Only valid in kernels.
int tid(int dim);

// Vectors and matrices: small values of the kernel language, passed and
// assigned by value like scalars (see docs/language.md, "Vectors and
// matrices").
namespace detail {
/// `T` in a position that template argument deduction ignores, so that
/// `v * 2` scales a vec3 by the float 2.
template <typename T> using scalar = typename identity<T>::type;
} // namespace detail

/// `vec<N, T>`: N (2, 3 or 4) components of type T (float, double or int),
/// named x, y, z, w. `vec3()` is zero, `vec3(s)` has every component s,
/// `vec3(x, y, z)` the components given; `v[i]` is component i.
template <int N, typename T> struct vec;
template <typename T> struct vec<2, T> {
  T x, y;
  vec();
  explicit vec(T s);
  vec(T x, T y);
  template <typename Index> T &operator[](Index i);
  template <typename Index> const T &operator[](Index i) const;
};
template <typename T> struct vec<3, T> {
  T x, y, z;
  vec();
  explicit vec(T s);
  vec(T x, T y, T z);
  template <typename Index> T &operator[](Index i);
  template <typename Index> const T &operator[](Index i) const;
};
template <typename T> struct vec<4, T> {
  T x, y, z, w;
  vec();
  explicit vec(T s);
  vec(T x, T y, T z, T w);
  template <typename Index> T &operator[](Index i);
  template <typename Index> const T &operator[](Index i) const;
};

/// `mat<N, T>`: an N x N (N = 2, 3 or 4) matrix of float or double, stored
/// by rows. `mat33()` is zero, `mat33(s)` has every element s, and
/// `mat33(m00, m01, m02, m10, ...)` lists the elements row by row.
/// `m(i, j)` and `m[i][j]` are the element in row i, column j; `m[i]` is
/// row i as a vector.
template <int N, typename T> struct mat;
template <typename T> struct mat<2, T> {
  mat();
  explicit mat(T s);
  mat(T m00, T m01, T m10, T m11);
  template <typename Index> vec<2, T> &operator[](Index i);
  template <typename Index> const vec<2, T> &operator[](Index i) const;
  template <typename I, typename J> T &operator()(I i, J j);
  template <typename I, typename J> const T &operator()(I i, J j) const;

private:
  vec<2, T> rows_[2]; // the runtime's layout (sizeof, alignof)
};
template <typename T> struct mat<3, T> {
  mat();
  explicit mat(T s);
  mat(T m00, T m01, T m02, T m10, T m11, T m12, T m20, T m21, T m22);
  template <typename Index> vec<3, T> &operator[](Index i);
  template <typename Index> const vec<3, T> &operator[](Index i) const;
  template <typename I, typename J> T &operator()(I i, J j);
  template <typename I, typename J> const T &operator()(I i, J j) const;

private:
  vec<3, T> rows_[3]; // the runtime's layout (sizeof, alignof)
};
template <typename T> struct mat<4, T> {
  mat();
  explicit mat(T s);
  mat(T m00, T m01, T m02, T m03, T m10, T m11, T m12, T m13, T m20, T m21,
      T m22, T m23, T m30, T m31, T m32, T m33);
  template <typename Index> vec<4, T> &operator[](Index i);
  template <typename Index> const vec<4, T> &operator[](Index i) const;
  template <typename I, typename J> T &operator()(I i, J j);
  template <typename I, typename J> const T &operator()(I i, J j) const;

private:
  vec<4, T> rows_[4]; // the runtime's layout (sizeof, alignof)
};

/// `quat_t<T>`: a quaternion x i + y j + z k + w of float (`quat`) or double
/// (`quatd`) components, in Warp's order (x, y, z, w). `quat()` is zero;
/// `quat_identity()` is (0, 0, 0, 1). `q[i]` is component i.
template <typename T> struct quat_t {
  T x, y, z, w;
  quat_t();
  quat_t(T x, T y, T z, T w);
  template <typename Index> T &operator[](Index i);
  template <typename Index> const T &operator[](Index i) const;
};
using quat = quat_t<float>;
using quatd = quat_t<double>;

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

namespace detail {
// Atomics on vectors, matrices and quaternions update them component by
// component, each component atomically (docs/language.md, "Atomics").
template <int N> struct atomic_element<vec<N, float>> {
  using type = vec<N, float>;
};
template <int N> struct atomic_element<vec<N, double>> {
  using type = vec<N, double>;
};
template <int N> struct atomic_element<vec<N, int>> {
  using type = vec<N, int>;
};
template <int N> struct atomic_element<mat<N, float>> {
  using type = mat<N, float>;
};
template <int N> struct atomic_element<mat<N, double>> {
  using type = mat<N, double>;
};
template <> struct atomic_element<quat> { using type = quat; };
template <> struct atomic_element<quatd> { using type = quatd; };
} // namespace detail

// Arithmetic: + and - of two vectors (matrices) of the same type, and the
// negation, are per component; a vector (matrix) times or divided by a
// scalar of its component type scales every component. `*` of two matrices
// or of a matrix and a vector is the matrix product (cw_mul multiplies per
// component).
template <int N, typename T> vec<N, T> operator+(const vec<N, T> &a, const vec<N, T> &b);
template <int N, typename T> vec<N, T> operator-(const vec<N, T> &a, const vec<N, T> &b);
template <int N, typename T> vec<N, T> operator-(const vec<N, T> &a);
template <int N, typename T> vec<N, T> operator*(const vec<N, T> &a, detail::scalar<T> s);
template <int N, typename T> vec<N, T> operator*(detail::scalar<T> s, const vec<N, T> &a);
template <int N, typename T> vec<N, T> operator/(const vec<N, T> &a, detail::scalar<T> s);
template <int N, typename T> vec<N, T> &operator+=(vec<N, T> &a, const vec<N, T> &b);
template <int N, typename T> vec<N, T> &operator-=(vec<N, T> &a, const vec<N, T> &b);
template <int N, typename T> vec<N, T> &operator*=(vec<N, T> &a, detail::scalar<T> s);
template <int N, typename T> vec<N, T> &operator/=(vec<N, T> &a, detail::scalar<T> s);
template <int N, typename T> mat<N, T> operator+(const mat<N, T> &a, const mat<N, T> &b);
template <int N, typename T> mat<N, T> operator-(const mat<N, T> &a, const mat<N, T> &b);
template <int N, typename T> mat<N, T> operator-(const mat<N, T> &a);
template <int N, typename T> mat<N, T> operator*(const mat<N, T> &a, detail::scalar<T> s);
template <int N, typename T> mat<N, T> operator*(detail::scalar<T> s, const mat<N, T> &a);
template <int N, typename T> mat<N, T> operator/(const mat<N, T> &a, detail::scalar<T> s);
template <int N, typename T> mat<N, T> &operator+=(mat<N, T> &a, const mat<N, T> &b);
template <int N, typename T> mat<N, T> &operator-=(mat<N, T> &a, const mat<N, T> &b);
template <int N, typename T> mat<N, T> &operator*=(mat<N, T> &a, detail::scalar<T> s);
template <int N, typename T> mat<N, T> &operator/=(mat<N, T> &a, detail::scalar<T> s);
template <typename T> quat_t<T> operator+(const quat_t<T> &a, const quat_t<T> &b);
template <typename T> quat_t<T> operator-(const quat_t<T> &a, const quat_t<T> &b);
template <typename T> quat_t<T> operator-(const quat_t<T> &a);
template <typename T> quat_t<T> operator*(const quat_t<T> &a, detail::scalar<T> s);
template <typename T> quat_t<T> operator*(detail::scalar<T> s, const quat_t<T> &a);
template <typename T> quat_t<T> operator/(const quat_t<T> &a, detail::scalar<T> s);
template <typename T> quat_t<T> &operator+=(quat_t<T> &a, const quat_t<T> &b);
template <typename T> quat_t<T> &operator-=(quat_t<T> &a, const quat_t<T> &b);
template <typename T> quat_t<T> &operator*=(quat_t<T> &a, detail::scalar<T> s);
template <typename T> quat_t<T> &operator/=(quat_t<T> &a, detail::scalar<T> s);
/// The quaternion (Hamilton) product: the rotation b, then a.
template <typename T> quat_t<T> operator*(const quat_t<T> &a, const quat_t<T> &b);
/// The matrix product; m * v treats v as a column, v * m as a row.
template <int N, typename T> mat<N, T> operator*(const mat<N, T> &a, const mat<N, T> &b);
template <int N, typename T> vec<N, T> operator*(const mat<N, T> &m, const vec<N, T> &v);
template <int N, typename T> vec<N, T> operator*(const vec<N, T> &v, const mat<N, T> &m);

// The math library: the scalar math of NVIDIA Warp's kernel language, for
// float and double (some also for int, int64_t and uint32_t). The table in
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

// Vector and matrix functions (for float and double components; dot,
// length_sq, cw_mul and cw_div also for int). The table in docs/language.md
// gives the formulas.
namespace detail {
/// `floating<T>::type` exists for float and double only: it keeps the
/// functions that need a square root or a matrix from matching int vectors.
template <typename T> struct floating {};
template <> struct floating<float> { using type = float; };
template <> struct floating<double> { using type = double; };
} // namespace detail
#define KSC_VEC_BUILTIN template <int N, typename T, bool ksc_builtin = true>
#define KSC_FLOAT_VEC_BUILTIN                                                  \
  template <int N, typename T, bool ksc_builtin = true,                        \
            typename = typename detail::floating<T>::type>
/// The sum of the products of the components.
KSC_VEC_BUILTIN T dot(const vec<N, T> &a, const vec<N, T> &b);
template <typename T, bool ksc_builtin = true,
          typename = typename detail::floating<T>::type>
vec<3, T> cross(const vec<3, T> &a, const vec<3, T> &b);
/// sqrt(dot(v, v)) and dot(v, v).
KSC_FLOAT_VEC_BUILTIN T length(const vec<N, T> &v);
KSC_VEC_BUILTIN T length_sq(const vec<N, T> &v);
/// v / length(v); the zero vector when length(v) is 0 (as in Warp).
KSC_FLOAT_VEC_BUILTIN vec<N, T> normalize(const vec<N, T> &v);
/// The matrix a b^T: element (i, j) is a[i] * b[j].
KSC_FLOAT_VEC_BUILTIN mat<N, T> outer(const vec<N, T> &a, const vec<N, T> &b);
KSC_VEC_BUILTIN vec<N, T> cw_mul(const vec<N, T> &a, const vec<N, T> &b);
KSC_VEC_BUILTIN vec<N, T> cw_div(const vec<N, T> &a, const vec<N, T> &b);
KSC_VEC_BUILTIN mat<N, T> cw_mul(const mat<N, T> &a, const mat<N, T> &b);
KSC_VEC_BUILTIN mat<N, T> cw_div(const mat<N, T> &a, const mat<N, T> &b);
KSC_VEC_BUILTIN mat<N, T> transpose(const mat<N, T> &m);
KSC_VEC_BUILTIN T determinant(const mat<N, T> &m);
/// The inverse matrix; the zero matrix when the determinant is 0 (as in
/// Warp).
KSC_VEC_BUILTIN mat<N, T> inverse(const mat<N, T> &m);
/// The sum of the diagonal.
KSC_VEC_BUILTIN T trace(const mat<N, T> &m);
/// The matrix with v on its diagonal and zeros elsewhere.
KSC_FLOAT_VEC_BUILTIN mat<N, T> diag(const vec<N, T> &v);
// Quaternions (docs/language.md gives the formulas, which are Warp's).
#define KSC_QUAT_BUILTIN template <typename T, bool ksc_builtin = true>
KSC_QUAT_BUILTIN T dot(const quat_t<T> &a, const quat_t<T> &b);
KSC_QUAT_BUILTIN T length(const quat_t<T> &q);
KSC_QUAT_BUILTIN T length_sq(const quat_t<T> &q);
/// q / length(q); the identity quaternion when length(q) is 0 (as in Warp).
KSC_QUAT_BUILTIN quat_t<T> normalize(const quat_t<T> &q);
/// The rotation by `angle` radians about `axis` (not normalized for you).
KSC_QUAT_BUILTIN quat_t<T> quat_from_axis_angle(const vec<3, T> &axis,
                                                detail::scalar<T> angle);
/// (-x, -y, -z, w): the inverse rotation of a unit quaternion.
KSC_QUAT_BUILTIN quat_t<T> quat_inverse(const quat_t<T> &q);
/// v rotated by the unit quaternion q, and by its inverse.
KSC_QUAT_BUILTIN vec<3, T> quat_rotate(const quat_t<T> &q, const vec<3, T> &v);
KSC_QUAT_BUILTIN vec<3, T> quat_rotate_inv(const quat_t<T> &q,
                                           const vec<3, T> &v);
/// The rotation matrix of q: column j is quat_rotate(q, e_j).
KSC_QUAT_BUILTIN mat<3, T> quat_to_matrix(const quat_t<T> &q);
/// (0, 0, 0, 1): `quat_identity()`, `quat_identity<double>()`.
template <typename T = float, bool ksc_builtin = true> quat_t<T> quat_identity();
#undef KSC_QUAT_BUILTIN
/// The identity matrix of type M: `identity<mat33>()`.
template <typename M, bool ksc_builtin = true> M identity();
#undef KSC_VEC_BUILTIN
#undef KSC_FLOAT_VEC_BUILTIN
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

// Atomics, as in Warp: `atomic_add(a, i, j, v)` adds v to element (i, j) of
// `a` in one indivisible step and returns the value the element had, so that
// threads updating the same element never lose an update. One overload per
// rank, one index per dimension, then the value, which converts to the
// element type as any argument does. Only arrays of float, double, int,
// uint32_t, int64_t, vectors, matrices and quaternions that are not const:
// for other arrays `atomic_element<T>::type` does not exist and Clang finds
// no overload. Vectors, matrices and quaternions are updated component by
// component (a max keeps each component's largest), each component
// atomically, and the old value returned is each component's. `a[i] += v`
// and `a[i] -= v` (and ++, --) on array elements are atomic adds and
// subtractions too. The semantics are in docs/language.md ("Atomics").

//   atomic_add  adds v to the element;
//   atomic_sub  subtracts v from the element;
//   atomic_min  sets the element to min(element, v), where a NaN is ignored
//               as by min();
//   atomic_max  sets the element to max(element, v), where a NaN is ignored
//               as by max();
//
// each returning the element's old value. The build writes their
// declarations, one per rank, from the Atomic rows of the builtin table
// (include/ksc/Frontend/Builtins.def; CMakeLists.txt, "The prelude"):
@KSC_ATOMIC_DECLARATIONS@

} // namespace ksc

using namespace ksc;

#endif // KSC_DSL_H
