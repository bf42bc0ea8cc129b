// RUN: ksc %s -o %t.cpp
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: %host-cxx %t.cpp
// RUN: %clangxx %t.cpp

// Every arith and math operation the emitter supports, as C++ operators and
// library calls with the same semantics.

// Unsigned operations convert their operands to uint32_t, and their results
// are uint32_t; (i64) extui then trunci folds away. Single-use values are
// printed where they are used. The additions are nsw: int arithmetic.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static int integers(int a, int b, int64_t c) {
// An expression longer than 100 characters gets a temporary.
// CHECK-NEXT:    int t = (a << b) + (int(uint32_t(a) / uint32_t(b)) + int(uint32_t(a) % uint32_t(b))) * int(uint32_t(a) >> b) + int(std::min(uint32_t(a), uint32_t(b)));
// CHECK-NEXT:    return t + a + int(c) + (~a ^ -b) + std::max(a, b);
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
  %7 = arith.subi %zero, %b overflow<nsw> : i32
  %8 = arith.shli %a, %b : i32
  %9 = arith.addi %0, %1 overflow<nsw> : i32
  %10 = arith.muli %9, %2 overflow<nsw> : i32
  %11 = arith.addi %8, %10 overflow<nsw> : i32
  %12 = arith.addi %11, %3 overflow<nsw> : i32
  %13 = arith.trunci %4 : i64 to i32
  %14 = arith.addi %12, %13 overflow<nsw> : i32
  %15 = arith.addi %14, %5 overflow<nsw> : i32
  %16 = arith.xori %6, %7 : i32
  %17 = arith.addi %15, %16 overflow<nsw> : i32
  %18 = arith.maxsi %a, %b : i32
  %19 = arith.addi %17, %18 overflow<nsw> : i32
  func.return %19 : i32
}

// Additions, subtractions and multiplications without nsw wrap: C++ has
// that only for unsigned types, so they are computed in uint32_t (an
// unnamed result stays one) or in uint64_t and converted back.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static int64_t wrapping(int a, int b, int64_t c) {
// A sign extension of a uint32_t value extends the int of the same bits.
// CHECK-NEXT:    int64_t t = int64_t(uint64_t(int64_t(int((uint32_t(a) + uint32_t(b)) * uint32_t(b) - 1u))) * uint64_t(int64_t(-uint64_t(c))));
// CHECK-NEXT:    return t + -c;
// CHECK-NEXT:  }
func.func private @wrapping(%a: i32 {ks.name = "a"}, %b: i32 {ks.name = "b"}, %c: i64 {ks.name = "c"}) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i32
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %b : i32
  %2 = arith.subi %1, %one : i32
  %3 = arith.extsi %2 : i32 to i64
  %4 = arith.subi %zero, %c : i64
  %5 = arith.muli %3, %4 : i64
  %6 = arith.subi %zero, %c overflow<nsw> : i64
  %7 = arith.addi %5, %6 overflow<nsw> : i64
  func.return %7 : i64
}

// uint32_t: parameters and results marked ks.unsigned, variables named in
// ks.unsigned_names, and the results of unsigned operations are uint32_t;
// every operation reads its operands as the type it needs (literals too),
// so int and uint32_t values mix correctly.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static uint32_t hash(uint32_t x, int n, float f, int64_t w) {
// CHECK-NEXT:    uint32_t h = (x ^ (x >> 16)) * 73244475u;
// CHECK-NEXT:    uint32_t q = h / uint32_t(n);
// CHECK-NEXT:    int k = int(h % 10u) + n;
// CHECK-NEXT:    uint32_t c = uint32_t(w);
// CHECK-NEXT:    float g = float(h) + float(n) + float(k);
// CHECK-NEXT:    uint32_t m = q < uint32_t(n) && int(x) > -1 ? q : uint32_t(f);
// CHECK-NEXT:    uint32_t t = (m == c ? h : uint32_t(k)) + uint32_t(std::max(int(c), n)) + uint32_t(int(int64_t(h) + w)) + uint32_t(g);
// The shift amount keeps its type, as in C++.
// CHECK-NEXT:    return t + (h >> n);
// CHECK-NEXT:  }
func.func private @hash(%x: i32 {ks.name = "x", ks.unsigned}, %n: i32 {ks.name = "n"}, %f: f32 {ks.name = "f"}, %w: i64 {ks.name = "w"}) -> (i32 {ks.unsigned}) attributes {ks.unsigned_names = ["c", "h", "m", "q"]} {
  %c16 = arith.constant 16 : i32
  %c10 = arith.constant 10 : i32
  %cm1 = arith.constant -1 : i32
  %mul = arith.constant 73244475 : i32
  %0 = arith.shrui %x, %c16 : i32
  %1 = arith.xori %x, %0 : i32
  %h = arith.muli %1, %mul : i32 loc("h")
  %q = arith.divui %h, %n : i32 loc("q")
  %2 = arith.remui %h, %c10 : i32
  %k = arith.addi %2, %n overflow<nsw> : i32 loc("k")
  %c = arith.trunci %w : i64 to i32 loc("c")
  %3 = arith.uitofp %h : i32 to f32
  %4 = arith.sitofp %n : i32 to f32
  %5 = arith.addf %3, %4 : f32
  %6 = arith.sitofp %k : i32 to f32
  %g = arith.addf %5, %6 : f32 loc("g")
  %7 = arith.cmpi ult, %q, %n : i32
  %8 = arith.cmpi sgt, %x, %cm1 : i32
  %9 = arith.andi %7, %8 : i1
  %10 = arith.fptoui %f : f32 to i32
  %m = arith.select %9, %q, %10 : i32 loc("m")
  %11 = arith.cmpi eq, %m, %c : i32
  %12 = arith.select %11, %h, %k : i32
  %13 = arith.maxsi %c, %n : i32
  %14 = arith.addi %12, %13 : i32
  %15 = arith.extui %h : i32 to i64
  %16 = arith.addi %15, %w overflow<nsw> : i64
  %17 = arith.trunci %16 : i64 to i32
  %18 = arith.addi %14, %17 : i32
  %19 = arith.fptoui %g : f32 to i32
  %20 = arith.addi %18, %19 : i32
  %21 = arith.shrui %h, %n : i32
  %22 = arith.addi %20, %21 : i32
  func.return %22 : i32
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
