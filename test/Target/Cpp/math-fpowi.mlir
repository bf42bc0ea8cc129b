// RUN: ksc %s -o %t.cpp
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: %host-cxx %t.cpp
// RUN: %clangxx %t.cpp

// math.fpowi (no builtin produces it; the math dialect has it): C++'s
// std::pow with an integer argument converts both arguments to double and
// returns a double, so an f32 power is converted back to float before it is
// used; otherwise `* y` would multiply in double.
// CHECK-LABEL: static float power_f32(float x, int n, float y) {
// CHECK-NEXT:    return float(std::pow(x, n)) * y;
// CHECK-NEXT:  }
func.func private @power_f32(%x: f32 {ks.name = "x"}, %n: i32 {ks.name = "n"}, %y: f32 {ks.name = "y"}) -> f32 {
  %0 = math.fpowi %x, %n : f32, i32
  %1 = arith.mulf %0, %y : f32
  func.return %1 : f32
}

// CHECK-LABEL: static double power_f64(double x, int64_t n, double y) {
// CHECK-NEXT:    return std::pow(x, n) * y;
// CHECK-NEXT:  }
func.func private @power_f64(%x: f64 {ks.name = "x"}, %n: i64 {ks.name = "n"}, %y: f64 {ks.name = "y"}) -> f64 {
  %0 = math.fpowi %x, %n : f64, i64
  %1 = arith.mulf %0, %y : f64
  func.return %1 : f64
}

func.func @use(%dim: i64) {
  func.return
}
