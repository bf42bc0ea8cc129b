// RUN: ksc %s -o %t.cpp
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: %host-cxx %t.cpp
// RUN: %clangxx %t.cpp

// ks.atomic_rmw is a call of ksc::atomic_<kind>(array, indices..., value)
// that returns the old value: a statement when the old value is unused,
// printed inline only where it is used right away, and never inside a loop
// condition, which would update the element again on every iteration.

// CHECK-LABEL: {{\[\[}}maybe_unused]] static int64_t kinds(ksc::array<float> h, ksc::array<int64_t, 2> m, int i, int64_t j, float v, int64_t w) {
// CHECK-NEXT:    ksc::atomic_add(h, i, v);
// CHECK-NEXT:    ksc::atomic_sub(h, j, v);
// CHECK-NEXT:    ksc::atomic_min(m, i, j, w);
// CHECK-NEXT:    return ksc::atomic_max(m, j, j, w) + w;
// CHECK-NEXT:  }
func.func private @kinds(%h: !ks.array<f32> {ks.name = "h"}, %m: !ks.array<i64, 2> {ks.name = "m"}, %i: i32 {ks.name = "i"}, %j: i64 {ks.name = "j"}, %v: f32 {ks.name = "v"}, %w: i64 {ks.name = "w"}) -> i64 {
  %a = ks.atomic_rmw add %h[%i], %v : !ks.array<f32>, i32
  %s = ks.atomic_rmw sub %h[%j], %v : !ks.array<f32>, i64
  %n = ks.atomic_rmw min %m[%i, %j], %w : !ks.array<i64, 2>, i32, i64
  %x = ks.atomic_rmw max %m[%j, %j], %w : !ks.array<i64, 2>, i64, i64
  %r = arith.addi %x, %w overflow<nsw> : i64
  return %r : i64
}

// Vectors and matrices: the same calls, component by component in the
// runtime; a part of an element (a vector's component, a matrix's row) by
// its address.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static ksc::vec3 vectors(ksc::array<ksc::vec3> p, ksc::array<ksc::mat22d> m, int i, ksc::vec3 v, ksc::vec2d r, float s) {
// CHECK-NEXT:    ksc::atomic_exchange(&p[i][2], s);
// CHECK-NEXT:    ksc::atomic_sub(&m[i][1], r);
// CHECK-NEXT:    return ksc::atomic_max(p, i, v);
// CHECK-NEXT:  }
func.func private @vectors(%p: !ks.array<vector<3xf32>> {ks.name = "p"}, %m: !ks.array<vector<2x2xf64>> {ks.name = "m"}, %i: i32 {ks.name = "i"}, %v: vector<3xf32> {ks.name = "v"}, %r: vector<2xf64> {ks.name = "r"}, %s: f32 {ks.name = "s"}) -> vector<3xf32> {
  %x = ks.atomic_rmw exchange %p[%i] fields [2], %s : !ks.array<vector<3xf32>>, i32
  %y = ks.atomic_rmw sub %m[%i] fields [1], %r : !ks.array<vector<2x2xf64>>, i32
  %old = ks.atomic_rmw max %p[%i], %v : !ks.array<vector<3xf32>>, i32
  return %old : vector<3xf32>
}

// The old value is read after a store: it is computed before the store, in
// a temporary.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static int later(ksc::array<int> c, int i) {
// CHECK-NEXT:    int t = ksc::atomic_add(c, i, 1);
// CHECK-NEXT:    c[0] = i;
// CHECK-NEXT:    return t;
// CHECK-NEXT:  }
func.func private @later(%c: !ks.array<i32> {ks.name = "c"}, %i: i32 {ks.name = "i"}) -> i32 {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %old = ks.atomic_rmw add %c[%i], %one : !ks.array<i32>, i32
  ks.store %i, %c[%zero] : !ks.array<i32>, i32
  return %old : i32
}

// An old value that bounds a loop is taken once, before the loop.
// CHECK-LABEL: {{\[\[}}maybe_unused]] static void bound(ksc::array<int> c, ksc::array<int> out) {
// CHECK-NEXT:    int t = ksc::atomic_add(c, 0, 1);
// CHECK-NEXT:    for (int i = 0; i < t; ++i) {
// CHECK-NEXT:      out[i] = i;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func private @bound(%c: !ks.array<i32> {ks.name = "c"}, %out: !ks.array<i32> {ks.name = "out"}) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %n = ks.atomic_rmw add %c[%zero], %one : !ks.array<i32>, i32
  scf.for %k = %zero to %n step %one : i32 {
    ks.store %k, %out[%k] : !ks.array<i32>, i32
  }
  return
}
