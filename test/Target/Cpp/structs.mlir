// RUN: ksc %s -o %t.cpp
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: %host-cxx %t.cpp
// RUN: %clangxx %t.cpp

// Structs are declared once, nested ones first, with their source names;
// fields are read as members, assigned in place when the old struct dies
// (else in a copy), and built by aggregate initialization ({} for zero). A
// field written twice is written once (canonicalization).

// CHECK-LABEL: struct Particle {
// CHECK-NEXT:    ksc::vec3 pos;
// CHECK-NEXT:    float mass;
// CHECK-NEXT:    uint32_t id;
// CHECK-NEXT:  };
// CHECK-LABEL: struct Body {
// CHECK-NEXT:    Particle p;
// CHECK-NEXT:    double v;
// CHECK-NEXT:  };
// CHECK-LABEL: static Particle scale(Particle p, float s) {
// CHECK-NEXT:    p.mass = p.mass * s;
// CHECK-NEXT:    return p;
// CHECK-LABEL: static KSC_INLINE void k(int tid, ksc::array<Body> a, float s) {
// CHECK-NEXT:    Body t = a[tid];
// CHECK-NEXT:    Particle t_1 = scale(t.p, s);
// CHECK-NEXT:    t_1.id = t_1.id + 1u;
// CHECK-NEXT:    t.p = t_1;
// CHECK-NEXT:    a[tid] = t;
// CHECK-NEXT:    a[0] = Body{Particle{}, double(s)};
// CHECK-NEXT:  }
// A named zero struct (`Body b;`, whose Particle is zero too) is printed
// `T{}` where it is used, not kept in variables of its own.
// CHECK-LABEL: static Body make_body(Particle p) {
// CHECK-NEXT:    Body b = Body{};
// CHECK-NEXT:    b.p = p;
// CHECK-NEXT:    return b;
// CHECK-NEXT:  }
// CHECK-LABEL: void launch_k(ksc::grid dim, ksc::array<Body> a, float s) {
ks.func @scale(%p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, %s: f32) -> !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> attributes {arg_names = ["p", "s"]} {
  %m = ks.struct_extract %p[1] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> -> f32
  %m2 = arith.mulf %m, %s : f32
  %q = ks.struct_insert %m2, %p[1] : f32 into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>
  ks.return %q : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>
}
ks.kernel @k(%a: !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>>, %s: f32) attributes {arg_names = ["a", "s"]} {
  %i = ks.tid : i32
  %b = ks.load %a[%i] : !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>>, i32
  %p = ks.struct_extract %b[0] : !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64> -> !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>
  %q = ks.call @scale(%p, %s) : (!ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, f32) -> !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>
  %c = ks.struct_insert %q, %b[0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> into !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>
  %id = ks.struct_extract %q[2] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> -> i32
  %one = arith.constant 1 : i32
  %id2 = arith.addi %id, %one : i32
  %q2 = ks.struct_insert %id2, %q[2] : i32 into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>
  %c2 = ks.struct_insert %q2, %c[0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> into !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>
  ks.store %c2, %a[%i] : !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>>, i32
  %z0 = arith.constant dense<0.0> : vector<3xf32>
  %z1 = arith.constant 0.0 : f32
  %z2 = arith.constant 0 : i32
  %z = ks.struct_make %z0, %z1, %z2 : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>
  %s2 = arith.extf %s : f32 to f64
  %zb = ks.struct_make %z, %s2 : !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>
  ks.store %zb, %a[%z2] : !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>>, i32
  ks.return
}

ks.func @make_body(%p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>) -> !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64> attributes {arg_names = ["p"]} {
  %z0 = arith.constant dense<0.0> : vector<3xf32>
  %z1 = arith.constant 0.0 : f32
  %z2 = arith.constant 0 : i32
  %zd = arith.constant 0.0 : f64
  %z = ks.struct_make %z0, %z1, %z2 : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> loc("b")
  %zb = ks.struct_make %z, %zd : !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64> loc("b")
  %b = ks.struct_insert %p, %zb[0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32> into !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64> loc("b")
  ks.return %b : !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32, id: ui32>, v: f64>
}
