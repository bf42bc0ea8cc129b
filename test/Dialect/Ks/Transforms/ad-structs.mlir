// RUN: ksc-opt %s --ks-reverse-ad --canonicalize --cse | FileCheck %s
// RUN: ksc-opt %s --ks-forward-ad --canonicalize --cse | FileCheck %s --check-prefix=JVP

// Structs carry derivatives: the adjoint of an array of structs is an
// array of the same structs, that of a struct argument a one-element array
// of it (its integer fields mean nothing and are left alone). The rules of
// struct_extract, struct_insert and struct_make move the fields'
// derivatives; a struct adjoint is added into its element field by field:
// read, add and insert the fields the adjoint has, then store, at the
// thread's own index, and one atomic update per differentiable field
// (`fields [0]`) into the element every thread shares.

// CHECK-LABEL: ks.kernel @scale_adj(
// CHECK-SAME:      %[[PS:.*]]: !ks.array<const !ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32>>, %[[S:.*]]: !ks.struct<"S", k: f32, n: i32>, %{{.*}}: !ks.array<vector<3xf32>>,
// CHECK-SAME:      %[[ADJ_PS:.*]]: !ks.array<!ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32>>, %[[ADJ_S:.*]]: !ks.array<!ks.struct<"S", k: f32, n: i32>>, %[[ADJ_OUT:.*]]: !ks.array<vector<3xf32>>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK:         %[[I:.*]] = ks.tid : i32
// CHECK-NEXT:    %[[P:.*]] = ks.load %[[PS]][%[[I]]]
// CHECK-NEXT:    %[[POS:.*]] = ks.struct_extract %[[P]][0]
// CHECK-NEXT:    %[[M:.*]] = ks.struct_extract %[[P]][1]
// CHECK-NEXT:    %[[K:.*]] = ks.struct_extract %[[S]][0]
// CHECK:         %[[DR:.*]] = ks.load %[[ADJ_OUT]][%[[I]]]
// CHECK:         %[[DK:.*]] = arith.mulf %[[DF:.*]], %[[M]] : f32
// CHECK-NEXT:    %[[DM:.*]] = arith.mulf %[[DF]], %[[K]] : f32
// CHECK-NEXT:    %[[OLD:.*]] = ks.load %[[ADJ_PS]][%[[I]]]
// CHECK-NEXT:    %[[OLD_POS:.*]] = ks.struct_extract %[[OLD]][0]
// CHECK-NEXT:    %[[NEW_POS:.*]] = arith.addf %[[OLD_POS]], %{{.*}} fastmath<nsz> : vector<3xf32>
// CHECK-NEXT:    %[[OLD_M:.*]] = ks.struct_extract %[[OLD]][1]
// CHECK-NEXT:    %[[NEW_M:.*]] = arith.addf %[[OLD_M]], %[[DM]] fastmath<nsz> : f32
// CHECK-NEXT:    %[[T:.*]] = ks.struct_insert %[[NEW_POS]], %[[OLD]][0]
// CHECK-NEXT:    %[[NEW:.*]] = ks.struct_insert %[[NEW_M]], %[[T]][1]
// CHECK-NEXT:    ks.store %[[NEW]], %[[ADJ_PS]][%[[I]]]
// CHECK-NEXT:    ks.atomic_rmw add %[[ADJ_S]][%[[C0]]] fields [0], %[[DK]] : !ks.array<!ks.struct<"S", k: f32, n: i32>>, i32
// CHECK-NEXT:    ks.return

// The tangent of a struct is a struct of the same type, by value for a
// struct argument; the tangents of its fields are read as the fields are.
// JVP-LABEL: ks.kernel @scale_jvp(
// JVP-SAME:      %[[TAN_PS:[a-z_]*]]: !ks.array<const !ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32>>, %[[TAN_S:[a-z_]*]]: !ks.struct<"S", k: f32, n: i32>, %[[TAN_OUT:[a-z_]*]]: !ks.array<vector<3xf32>>)
// JVP:           %[[I:.*]] = ks.tid : i32
// JVP-NEXT:      %[[P:.*]] = ks.load %ps[%[[I]]]
// JVP-NEXT:      %[[TP:.*]] = ks.load %[[TAN_PS]][%[[I]]]
// JVP-NEXT:      %[[POS:.*]] = ks.struct_extract %[[P]][0]
// JVP-NEXT:      %[[TPOS:.*]] = ks.struct_extract %[[TP]][0]
// JVP-NEXT:      %[[M:.*]] = ks.struct_extract %[[P]][1]
// JVP-NEXT:      %[[TM:.*]] = ks.struct_extract %[[TP]][1]
// JVP-NEXT:      %[[K:.*]] = ks.struct_extract %s[0]
// JVP-NEXT:      %[[TK:.*]] = ks.struct_extract %[[TAN_S]][0]
// JVP:           ks.store %{{.*}}, %[[TAN_OUT]][%[[I]]]
// JVP-NEXT:      ks.return
ks.kernel @scale(%ps: !ks.array<const !ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32>>, %s: !ks.struct<"S", k: f32, n: i32>, %out: !ks.array<vector<3xf32>>) {
  %i = ks.tid : i32
  %p = ks.load %ps[%i] : !ks.array<const !ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32>>, i32
  %pos = ks.struct_extract %p[0] : !ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32> -> vector<3xf32>
  %m = ks.struct_extract %p[1] : !ks.struct<"P", pos: vector<3xf32>, m: f32, id: i32> -> f32
  %k = ks.struct_extract %s[0] : !ks.struct<"S", k: f32, n: i32> -> f32
  %f = arith.mulf %m, %k : f32
  %b = vector.broadcast %f : f32 to vector<3xf32>
  %r = arith.mulf %pos, %b : vector<3xf32>
  ks.store %r, %out[%i] : !ks.array<vector<3xf32>>, i32
  ks.return
}
