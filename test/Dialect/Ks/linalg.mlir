// RUN: ksc-opt %s | FileCheck %s
// RUN: ksc-opt %s | ksc-opt | FileCheck %s
// RUN: ksc-opt %s --mlir-print-op-generic | ksc-opt | FileCheck %s

// The vector and matrix operations of the ks dialect round-trip, and arrays
// and functions take vectors and matrices.

// CHECK-LABEL: ks.func @products(
// CHECK-SAME:      %[[A:.*]]: vector<3xf32>, %[[B:.*]]: vector<3xf32>, %[[M:.*]]: vector<3x3xf32>)
// CHECK-NEXT:    %[[D:.*]] = ks.dot %[[A]], %[[B]] : vector<3xf32>
// CHECK-NEXT:    %[[C:.*]] = ks.cross %[[A]], %[[B]] : vector<3xf32>
// CHECK-NEXT:    %[[O:.*]] = ks.outer %[[A]], %[[B]] : vector<3xf32> -> vector<3x3xf32>
// CHECK-NEXT:    %[[MM:.*]] = ks.matmul %[[M]], %[[O]] : vector<3x3xf32>, vector<3x3xf32> -> vector<3x3xf32>
// CHECK-NEXT:    %[[MV:.*]] = ks.matmul %[[MM]], %[[C]] : vector<3x3xf32>, vector<3xf32> -> vector<3xf32>
// CHECK-NEXT:    %[[VM:.*]] = ks.matmul %[[MV]], %[[M]] : vector<3xf32>, vector<3x3xf32> -> vector<3xf32>
// CHECK-NEXT:    %[[S:.*]] = vector.broadcast %[[D]] : f32 to vector<3xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[VM]], %[[S]] : vector<3xf32>
// CHECK-NEXT:    ks.return %[[R]] : vector<3xf32>
ks.func @products(%a: vector<3xf32>, %b: vector<3xf32>, %m: vector<3x3xf32>) -> vector<3xf32> {
  %d = ks.dot %a, %b : vector<3xf32>
  %c = ks.cross %a, %b : vector<3xf32>
  %o = ks.outer %a, %b : vector<3xf32> -> vector<3x3xf32>
  %mm = ks.matmul %m, %o : vector<3x3xf32>, vector<3x3xf32> -> vector<3x3xf32>
  %mv = ks.matmul %mm, %c : vector<3x3xf32>, vector<3xf32> -> vector<3xf32>
  %vm = ks.matmul %mv, %m : vector<3xf32>, vector<3x3xf32> -> vector<3xf32>
  %s = vector.broadcast %d : f32 to vector<3xf32>
  %r = arith.mulf %vm, %s : vector<3xf32>
  ks.return %r : vector<3xf32>
}

// Length and normalize (of a vector, of a quaternion).
// CHECK-LABEL: ks.func @lengths(
// CHECK-SAME:      %[[V:.*]]: vector<3xf32>, %[[Q:.*]]: vector<4xf64>)
// CHECK-NEXT:    %[[L:.*]] = ks.length %[[V]] : vector<3xf32>
// CHECK-NEXT:    %[[N:.*]] = ks.normalize %[[V]] : vector<3xf32>
// CHECK-NEXT:    %[[R:.*]] = ks.normalize %[[Q]] quaternion : vector<4xf64>
// CHECK-NEXT:    %[[QL:.*]] = ks.length %[[R]] : vector<4xf64>
// CHECK-NEXT:    %[[X:.*]] = vector.extract %[[N]][0] : f32 from vector<3xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.truncf %[[QL]] : f64 to f32
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[L]], %[[X]] : f32
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[A]], %[[S]] : f32
// CHECK-NEXT:    ks.return %[[T]] : f32
ks.func @lengths(%v: vector<3xf32>, %q: vector<4xf64>) -> f32 {
  %l = ks.length %v : vector<3xf32>
  %n = ks.normalize %v : vector<3xf32>
  %r = ks.normalize %q quaternion : vector<4xf64>
  %ql = ks.length %r : vector<4xf64>
  %x = vector.extract %n[0] : f32 from vector<3xf32>
  %s = arith.truncf %ql : f64 to f32
  %a = arith.addf %l, %x : f32
  %t = arith.addf %a, %s : f32
  ks.return %t : f32
}

// CHECK-LABEL: ks.func @square(
// CHECK-SAME:      %[[M:.*]]: vector<4x4xf64>)
// CHECK-NEXT:    %[[D:.*]] = ks.determinant %[[M]] : vector<4x4xf64>
// CHECK-NEXT:    %[[I:.*]] = ks.inverse %[[M]] : vector<4x4xf64>
// CHECK-NEXT:    %[[E:.*]] = vector.extract %[[I]][1, 2] : f64 from vector<4x4xf64>
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[D]], %[[E]] : f64
// CHECK-NEXT:    ks.return %[[R]] : f64
ks.func @square(%m: vector<4x4xf64>) -> f64 {
  %d = ks.determinant %m : vector<4x4xf64>
  %i = ks.inverse %m : vector<4x4xf64>
  %e = vector.extract %i[1, 2] : f64 from vector<4x4xf64>
  %r = arith.mulf %d, %e : f64
  ks.return %r : f64
}

// CHECK-LABEL: ks.kernel @int_dot(
// CHECK-SAME:      %p: !ks.array<const vector<2xi32>>, %out: !ks.array<i32>, %ms: !ks.array<vector<2x2xf64>, 2>)
// CHECK:         ks.dot %{{.*}}, %{{.*}} : vector<2xi32>
ks.kernel @int_dot(%p: !ks.array<const vector<2xi32>>, %out: !ks.array<i32>, %ms: !ks.array<vector<2x2xf64>, 2>) {
  %i = ks.tid : i32
  %v = ks.load %p[%i] : !ks.array<const vector<2xi32>>, i32
  %d = ks.dot %v, %v : vector<2xi32>
  ks.store %d, %out[%i] : !ks.array<i32>, i32
  ks.return
}

// CHECK-LABEL: ks.func @quaternions(
// CHECK-SAME:      %[[Q:.*]]: vector<4xf32>, %[[V:.*]]: vector<3xf32>)
// CHECK-NEXT:    %[[P:.*]] = ks.quat_mul %[[Q]], %[[Q]] : vector<4xf32>
// CHECK-NEXT:    %[[R:.*]] = ks.quat_rotate %[[P]], %[[V]] : vector<4xf32>, vector<3xf32>
// CHECK-NEXT:    %[[B:.*]] = ks.quat_rotate_inv %[[Q]], %[[R]] : vector<4xf32>, vector<3xf32>
// CHECK-NEXT:    %[[M:.*]] = ks.quat_to_matrix %[[Q]] : vector<4xf32> -> vector<3x3xf32>
// CHECK-NEXT:    %[[MB:.*]] = ks.matmul %[[M]], %[[B]] : vector<3x3xf32>, vector<3xf32> -> vector<3xf32>
// CHECK-NEXT:    ks.return %[[MB]] : vector<3xf32>
ks.func @quaternions(%q: vector<4xf32>, %v: vector<3xf32>) -> vector<3xf32> {
  %p = ks.quat_mul %q, %q : vector<4xf32>
  %r = ks.quat_rotate %p, %v : vector<4xf32>, vector<3xf32>
  %b = ks.quat_rotate_inv %q, %r : vector<4xf32>, vector<3xf32>
  %m = ks.quat_to_matrix %q : vector<4xf32> -> vector<3x3xf32>
  %mb = ks.matmul %m, %b : vector<3x3xf32>, vector<3xf32> -> vector<3xf32>
  ks.return %mb : vector<3xf32>
}
