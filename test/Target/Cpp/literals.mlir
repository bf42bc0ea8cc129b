// RUN: ksc %s -o %t.cpp
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: %host-cxx %t.cpp
// RUN: %clangxx %t.cpp

// Constants print as C++ literals of the right type, with the fewest digits
// that read back exactly.

// CHECK-LABEL: static KSC_INLINE void literals(ksc::array<float> f, ksc::array<double> d, ksc::array<int> i, ksc::array<int64_t> l, ksc::array<bool> b) {
// CHECK-NEXT:    f[0] = 0.1f;
// CHECK-NEXT:    f[1] = 1.0f;
// CHECK-NEXT:    f[2] = -2.5f;
// CHECK-NEXT:    f[3] = 1e30f;
// CHECK-NEXT:    f[4] = 1.5e-7f;
// CHECK-NEXT:    f[5] = std::numeric_limits<float>::infinity();
// CHECK-NEXT:    f[6] = -std::numeric_limits<float>::infinity();
// CHECK-NEXT:    f[7] = std::numeric_limits<float>::quiet_NaN();
// CHECK-NEXT:    f[8] = -0.0f;
// CHECK-NEXT:    d[0] = 0.1;
// CHECK-NEXT:    d[1] = 3.0;
// CHECK-NEXT:    d[2] = 1e-300;
// CHECK-NEXT:    i[0] = -7;
// CHECK-NEXT:    i[1] = 2147483647;
// CHECK-NEXT:    i[2] = (-2147483647 - 1);
// CHECK-NEXT:    l[0] = int64_t(5);
// CHECK-NEXT:    l[1] = int64_t(-9223372036854775807 - 1);
// CHECK-NEXT:    b[0] = true;
// CHECK-NEXT:    b[1] = false;
// CHECK-NEXT:  }
ks.kernel @literals(%f: !ks.array<f32>, %d: !ks.array<f64>, %i: !ks.array<i32>,
                    %l: !ks.array<i64>, %b: !ks.array<i1>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %f0 = arith.constant 0.1 : f32
  %f1 = arith.constant 1.0 : f32
  %f2 = arith.constant -2.5 : f32
  %f3 = arith.constant 1.0e30 : f32
  %f4 = arith.constant 1.5e-7 : f32
  %f5 = arith.constant 0x7F800000 : f32
  %f6 = arith.constant 0xFF800000 : f32
  %f7 = arith.constant 0x7FC00000 : f32
  %f8 = arith.constant -0.0 : f32
  ks.store %f0, %f[%c0] : !ks.array<f32>, i32
  ks.store %f1, %f[%c1] : !ks.array<f32>, i32
  ks.store %f2, %f[%c2] : !ks.array<f32>, i32
  ks.store %f3, %f[%c3] : !ks.array<f32>, i32
  ks.store %f4, %f[%c4] : !ks.array<f32>, i32
  ks.store %f5, %f[%c5] : !ks.array<f32>, i32
  ks.store %f6, %f[%c6] : !ks.array<f32>, i32
  ks.store %f7, %f[%c7] : !ks.array<f32>, i32
  ks.store %f8, %f[%c8] : !ks.array<f32>, i32
  %d0 = arith.constant 0.1 : f64
  %d1 = arith.constant 3.0 : f64
  %d2 = arith.constant 1.0e-300 : f64
  ks.store %d0, %d[%c0] : !ks.array<f64>, i32
  ks.store %d1, %d[%c1] : !ks.array<f64>, i32
  ks.store %d2, %d[%c2] : !ks.array<f64>, i32
  %i0 = arith.constant -7 : i32
  %i1 = arith.constant 2147483647 : i32
  %i2 = arith.constant -2147483648 : i32
  ks.store %i0, %i[%c0] : !ks.array<i32>, i32
  ks.store %i1, %i[%c1] : !ks.array<i32>, i32
  ks.store %i2, %i[%c2] : !ks.array<i32>, i32
  %l0 = arith.constant 5 : i64
  %l1 = arith.constant -9223372036854775808 : i64
  ks.store %l0, %l[%c0] : !ks.array<i64>, i32
  ks.store %l1, %l[%c1] : !ks.array<i64>, i32
  %true = arith.constant true
  %false = arith.constant false
  ks.store %true, %b[%c0] : !ks.array<i1>, i32
  ks.store %false, %b[%c1] : !ks.array<i1>, i32
  ks.return
}
