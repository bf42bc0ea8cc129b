// RUN: ksc %s -o %t.cpp
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: %host-cxx %t.cpp
// RUN: %clangxx %t.cpp

// Every arith and math operation the emitter supports, as C++ operators and
// library calls with the same semantics.

// Unsigned operations convert their operands; (i64) extui then trunci folds
// away. Single-use values are printed where they are used.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static int integers(int a, int b, int64_t c) {
// An expression longer than 100 characters gets a temporary.
// CHECK-NEXT:    int t = (a << b) + (int(uint32_t(a) / uint32_t(b)) + int(uint32_t(a) % uint32_t(b))) * int(uint32_t(a) >> uint32_t(b));
// CHECK-NEXT:    return t + int(std::min(uint32_t(a), uint32_t(b))) + a + int(c) + (~a ^ -b) + std::max(a, b);
// CHECK-NEXT:  }
func.func private @integers(%a: i32 {ks.name = "a"}, %b: i32 {ks.name = "b"}, %c: i64 {ks.name = "c"}) -> i32 {
  %zero = arith.constant 0 : i32
  %ones = arith.constant -1 : i32
  %0 = arith.divui %a, %b : i32
  %1 = arith.remui %a, %b : i32
  %2 = arith.shrui %a, %b : i32
  %3 = arith.minui %a, %b : i32
  %4 = arith.extui %a : i32 to i64
  %5 = arith.trunci %c : i64 to i32
  %6 = arith.xori %a, %ones : i32
  %7 = arith.subi %zero, %b : i32
  %8 = arith.shli %a, %b : i32
  %9 = arith.addi %0, %1 : i32
  %10 = arith.muli %9, %2 : i32
  %11 = arith.addi %8, %10 : i32
  %12 = arith.addi %11, %3 : i32
  %13 = arith.trunci %4 : i64 to i32
  %14 = arith.addi %12, %13 : i32
  %15 = arith.addi %14, %5 : i32
  %16 = arith.xori %6, %7 : i32
  %17 = arith.addi %15, %16 : i32
  %18 = arith.maxsi %a, %b : i32
  %19 = arith.addi %17, %18 : i32
  func.return %19 : i32
}

// Unordered comparisons are the negations of ordered ones; the others go
// through the runtime.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static bool comparisons(float x, float y, bool p, bool q) {
// A signed comparison of i1 (-1 < 0) differs from C++'s bool (0 < 1).
// && inside || and comparisons inside != get parentheses.
// CHECK-NEXT:    return ((!(x >= y) && ksc::ordered_not_equal(x, y)) || ksc::unordered(x, y) != (x != y)) && -p < -q;
// CHECK-NEXT:  }
func.func private @comparisons(%x: f32 {ks.name = "x"}, %y: f32 {ks.name = "y"}, %p: i1 {ks.name = "p"}, %q: i1 {ks.name = "q"}) -> i1 {
  %0 = arith.cmpf ult, %x, %y : f32
  %1 = arith.cmpf one, %x, %y : f32
  %2 = arith.cmpf uno, %x, %y : f32
  %3 = arith.cmpf une, %x, %y : f32
  %4 = arith.cmpi slt, %p, %q : i1
  %5 = arith.andi %0, %1 : i1
  %6 = arith.xori %2, %3 : i1
  %7 = arith.ori %5, %6 : i1
  %8 = arith.andi %7, %4 : i1
  func.return %8 : i1
}

// CHECK-LABEL: {{\[\[}}maybe_unused]] static double floats(double x, float f, int64_t bits) {
// CHECK-NEXT:    double t = std::fmod(x, double(f)) + double(std::fmin(f, f * 2.0f)) + ksc::minimum(x, -x) + std::pow(x, x) + 1.0 / std::sqrt(x);
// CHECK-NEXT:    return t + std::fma(x, x, x) + ksc::bit_cast<double>(bits);
// CHECK-NEXT:  }
func.func private @floats(%x: f64 {ks.name = "x"}, %f: f32 {ks.name = "f"}, %seven: i64 {ks.name = "bits"}) -> f64 {
  %two = arith.constant 2.0 : f32
  %fd = arith.extf %f : f32 to f64
  %0 = arith.remf %x, %fd : f64
  %f2 = arith.mulf %f, %two : f32
  %1 = arith.minnumf %f, %f2 : f32
  %2 = arith.extf %1 : f32 to f64
  %nx = arith.negf %x : f64
  %3 = arith.minimumf %x, %nx : f64
  %4 = math.powf %x, %x : f64
  %5 = math.rsqrt %x : f64
  %6 = math.fma %x, %x, %x : f64
  %7 = arith.bitcast %seven : i64 to f64
  %s0 = arith.addf %0, %2 : f64
  %s1 = arith.addf %s0, %3 : f64
  %s2 = arith.addf %s1, %4 : f64
  %s3 = arith.addf %s2, %5 : f64
  %s4 = arith.addf %s3, %6 : f64
  %s5 = arith.addf %s4, %7 : f64
  func.return %s5 : f64
}

func.func @use(%dim: i64) {
  func.return
}
