"""The native side: a generated kernel file as plain C++ (the kernel
language's prelude, a harness that runs threads 0..N-1 in order and prints
the arrays as JSON lines), and how to compile it."""

import math
import re

from .types import ARRAY_PARAMS, BOOL, FLOATS, FLT, I64, INPUT_ARRAYS, \
    SCALAR_PARAMS

NATIVE_PRELUDE = r"""// Native prelude of ksc-difftest: the kernel language as plain C++.
#include <stdint.h>
#define KSC_KERNEL
#define KSC_FUNC
namespace kscn {
inline int g_tid = 0;
[[noreturn]] inline void out_of_bounds(long long index, long long size) {
  __builtin_printf("NATIVE-OUT-OF-BOUNDS index %lld size %lld\n", index, size);
  __builtin_abort();
}
template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };
template <bool C, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <class T> struct array {
  T *data = nullptr;
  long long size = 0;
  array() = default;
  array(T *data, long long size) : data(data), size(size) {}
  array(const array &) = default;
  array &operator=(const array &) = default;
  template <class U, class = typename enable_if<same<const U, T>::value>::type>
  array(const array<U> &other) : data(other.data), size(other.size) {}
  template <class I> T &operator[](I index) const {
    long long k = (long long)index;
    if (k < 0 || k >= size)
      out_of_bounds(k, size);
    return data[k];
  }
};
inline int tid() { return g_tid; }
inline float sin(float x) { return __builtin_sinf(x); }
inline double sin(double x) { return __builtin_sin(x); }
inline float cos(float x) { return __builtin_cosf(x); }
inline double cos(double x) { return __builtin_cos(x); }
inline float exp(float x) { return __builtin_expf(x); }
inline double exp(double x) { return __builtin_exp(x); }
inline float log(float x) { return __builtin_logf(x); }
inline double log(double x) { return __builtin_log(x); }
inline float sqrt(float x) { return __builtin_sqrtf(x); }
inline double sqrt(double x) { return __builtin_sqrt(x); }
inline float abs(float x) { return __builtin_fabsf(x); }
inline double abs(double x) { return __builtin_fabs(x); }
inline int abs(int x) { return x < 0 ? -x : x; }
inline int64_t abs(int64_t x) { return x < 0 ? -x : x; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline int min(int a, int b) { return b < a ? b : a; }
inline int64_t min(int64_t a, int64_t b) { return b < a ? b : a; }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }
inline int max(int a, int b) { return a < b ? b : a; }
inline int64_t max(int64_t a, int64_t b) { return a < b ? b : a; }
} // namespace kscn
using namespace kscn;
// ---- the kernel file ----
"""

NATIVE_MAIN_HEAD = r"""
// ---- the harness ----
#include <cmath>
#include <cstdio>
#include <cstring>
namespace harness {
static void put(int v) { std::printf("%d", v); }
static void put(long v) { std::printf("%ld", v); }
static void put(long long v) { std::printf("%lld", v); }
static void put(bool v) { std::printf(v ? "true" : "false"); }
static void putf(double v, const char *fmt) {
  if (std::isnan(v)) std::printf("\"nan\"");
  else if (std::isinf(v)) std::printf(v > 0 ? "\"inf\"" : "\"-inf\"");
  else std::printf(fmt, v);
}
static void put(float v) { putf(v, "%.9g"); }
static void put(double v) { putf(v, "%.17g"); }
template <class T>
static void put_array(const char *name, const T *v, int n, bool last) {
  std::printf("\"%s\": [", name);
  for (int k = 0; k < n; ++k) {
    if (k) std::printf(", ");
    put(v[k]);
  }
  std::printf(last ? "]" : "], ");
}
} // namespace harness
"""


def c_float(x, ty):
    if math.isnan(x):
        return "__builtin_nanf(\"\")" if ty == FLT else "__builtin_nan(\"\")"
    if math.isinf(x):
        inf = "__builtin_inff()" if ty == FLT else "__builtin_inf()"
        return inf if x > 0 else "-" + inf
    text = float(x).hex()
    return text + ("f" if ty == FLT else "")


def c_value(x, ty):
    if ty in FLOATS:
        return c_float(x, ty)
    if ty == BOOL:
        return "true" if x else "false"
    if ty == I64:
        return "int64_t(%dLL)" % x
    return str(x)


# The array parameters a kernel only reads.
READ_ONLY = {name for name, _ in INPUT_ARRAYS}

UNINIT_DECL = re.compile(r"^(\s*)(int|int64_t|float|double|bool) (\w+);$")


def native_kernel_text(source):
    """The kernel file as plain C++: locals declared without an initializer
    start at zero in the kernel language, so they get one. (GCC's
    -ftrivial-auto-var-init=zero is not enough: it still optimizes reads of
    such variables as undefined.)"""
    out = []
    for line in source.splitlines():
        m = UNINIT_DECL.match(line)
        if m:
            line = "%s%s %s = %s();" % (m.group(1), m.group(2), m.group(3),
                                       m.group(2))
        out.append(line)
    return "\n".join(out) + "\n"


def native_source(source, kernels, inputs, nthreads):
    """The C++ program that runs `kernels` ([(name, uses_trans)]) of
    `source` one after the other, each on a fresh copy of `inputs`, and
    prints each one's arrays as a JSON line."""
    out = [NATIVE_PRELUDE, native_kernel_text(source), NATIVE_MAIN_HEAD]
    for name, ty in ARRAY_PARAMS:
        vals = ", ".join(c_value(x, ty) for x in inputs[name])
        out.append("static const %s init_%s[] = {%s};" % (ty, name, vals))
    out.append("int main() {")
    for kernel, _ in kernels:
        out.append("  {")
        for name, ty in ARRAY_PARAMS:
            size = len(inputs[name])
            out.append("    static %s buf_%s[%d];" % (ty, name, size))
            out.append("    std::memcpy(buf_%s, init_%s, sizeof buf_%s);" %
                       (name, name, name))
        args = []
        for name, ty in ARRAY_PARAMS:
            args.append("array<%s%s>(buf_%s, %d)" % (
                "const " if name in READ_ONLY else "", ty, name,
                len(inputs[name])))
        for name, ty in SCALAR_PARAMS:
            args.append(c_value(inputs[name], ty))
        out.append("    for (int t = 0; t < %d; ++t) {" % nthreads)
        out.append("      kscn::g_tid = t;")
        out.append("      %s(%s);" % (kernel, ", ".join(args)))
        out.append("    }")
        out.append("    std::printf(\"{\\\"kernel\\\": \\\"%s\\\", "
                   "\\\"arrays\\\": {\");" % kernel)
        for k, (name, ty) in enumerate(ARRAY_PARAMS):
            out.append("    harness::put_array(\"%s\", buf_%s, %d, %s);" % (
                name, name, len(inputs[name]),
                "true" if k == len(ARRAY_PARAMS) - 1 else "false"))
        out.append("    std::printf(\"}}\\n\");")
        out.append("    std::fflush(stdout);")
        out.append("  }")
    out.append("  return 0;")
    out.append("}")
    return "\n".join(out) + "\n"


def native_cmd(tools, src, exe):
    """The command that compiles native C++ `src` into `exe`."""
    cmd = [tools.cxx, "-std=c++17", "-O1", "-w"]
    if tools.ubsan:
        cmd += ["-fsanitize=undefined,float-cast-overflow",
                "-fno-sanitize-recover=all"]
    return cmd + ["-o", exe, src]
