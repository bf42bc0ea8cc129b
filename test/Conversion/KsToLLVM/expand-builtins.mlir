// RUN: ksc-opt %s --ks-expand-builtins --split-input-file | FileCheck %s

// The expansions compute what the runtime computes, in its order.

// CHECK-LABEL: func.func @dot(
// CHECK-SAME:    %[[A:.*]]: vector<3xf32>, %[[B:.*]]: vector<3xf32>)
// CHECK-DAG:     %[[A0:.*]] = vector.extract %[[A]][0]
// CHECK-DAG:     %[[B0:.*]] = vector.extract %[[B]][0]
// CHECK:         %[[P0:.*]] = arith.mulf %[[A0]], %[[B0]] : f32
// CHECK:         %[[P1:.*]] = arith.mulf
// CHECK:         %[[P2:.*]] = arith.mulf
// CHECK:         %[[S:.*]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK:         %[[D:.*]] = arith.addf %[[S]], %[[P2]] : f32
// CHECK:         return %[[D]]
func.func @dot(%a: vector<3xf32>, %b: vector<3xf32>) -> f32 {
  %d = ks.dot %a, %b : vector<3xf32>
  return %d : f32
}

// -----

// Integer vectors multiply and add as integers.
// CHECK-LABEL: func.func @dot_int(
// CHECK:         arith.muli
// CHECK:         arith.muli
// CHECK:         arith.addi
// CHECK-NOT:     ks.dot
func.func @dot_int(%a: vector<2xi32>, %b: vector<2xi32>) -> i32 {
  %d = ks.dot %a, %b : vector<2xi32>
  return %d : i32
}

// -----

// cross: (a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x).
// CHECK-LABEL: func.func @cross(
// CHECK-SAME:    %[[A:.*]]: vector<3xf64>, %[[B:.*]]: vector<3xf64>)
// CHECK-DAG:     %[[AX:.*]] = vector.extract %[[A]][0]
// CHECK-DAG:     %[[AY:.*]] = vector.extract %[[A]][1]
// CHECK-DAG:     %[[AZ:.*]] = vector.extract %[[A]][2]
// CHECK-DAG:     %[[BX:.*]] = vector.extract %[[B]][0]
// CHECK-DAG:     %[[BY:.*]] = vector.extract %[[B]][1]
// CHECK-DAG:     %[[BZ:.*]] = vector.extract %[[B]][2]
// CHECK:         %[[T0:.*]] = arith.mulf %[[AY]], %[[BZ]]
// CHECK:         %[[T1:.*]] = arith.mulf %[[AZ]], %[[BY]]
// CHECK:         %[[X:.*]] = arith.subf %[[T0]], %[[T1]]
// CHECK:         %[[T2:.*]] = arith.mulf %[[AZ]], %[[BX]]
// CHECK:         %[[T3:.*]] = arith.mulf %[[AX]], %[[BZ]]
// CHECK:         %[[Y:.*]] = arith.subf %[[T2]], %[[T3]]
// CHECK:         %[[T4:.*]] = arith.mulf %[[AX]], %[[BY]]
// CHECK:         %[[T5:.*]] = arith.mulf %[[AY]], %[[BX]]
// CHECK:         %[[Z:.*]] = arith.subf %[[T4]], %[[T5]]
// CHECK:         %[[R:.*]] = vector.from_elements %[[X]], %[[Y]], %[[Z]] : vector<3xf64>
// CHECK:         return %[[R]]
func.func @cross(%a: vector<3xf64>, %b: vector<3xf64>) -> vector<3xf64> {
  %c = ks.cross %a, %b : vector<3xf64>
  return %c : vector<3xf64>
}

// -----

// A 2x2 determinant is m00 * m11 - m01 * m10; the inverse divides the
// transposed cofactors by it and is zero where it is 0.
// CHECK-LABEL: func.func @inverse(
// CHECK-SAME:    %[[M:.*]]: vector<2x2xf32>)
// CHECK-DAG:     %[[M00:.*]] = vector.extract %[[M]][0, 0]
// CHECK-DAG:     %[[M01:.*]] = vector.extract %[[M]][0, 1]
// CHECK-DAG:     %[[M10:.*]] = vector.extract %[[M]][1, 0]
// CHECK-DAG:     %[[M11:.*]] = vector.extract %[[M]][1, 1]
// CHECK:         %[[P:.*]] = arith.mulf %[[M00]], %[[M11]]
// CHECK:         %[[Q:.*]] = arith.mulf %[[M01]], %[[M10]]
// CHECK:         %[[DET:.*]] = arith.subf %[[P]], %[[Q]]
// CHECK:         %[[R00:.*]] = arith.divf %[[M11]], %[[DET]]
// CHECK:         %[[N01:.*]] = arith.negf %[[M10]]
// CHECK:         %[[R10:.*]] = arith.divf %[[N01]], %[[DET]]
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[SINGULAR:.*]] = arith.cmpf oeq, %[[DET]], %[[ZERO]]
// CHECK:         %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK:         vector.insert %{{.*}} [0] : vector<2xf32> into vector<2x2xf32>
// CHECK:         %[[INV:.*]] = vector.insert %{{.*}} [1] : vector<2xf32> into vector<2x2xf32>
// CHECK:         %[[R:.*]] = arith.select %[[SINGULAR]], %[[ZEROS]], %[[INV]]
// CHECK:         return %[[R]]
func.func @inverse(%m: vector<2x2xf32>) -> vector<2x2xf32> {
  %i = ks.inverse %m : vector<2x2xf32>
  return %i : vector<2x2xf32>
}

// -----

// A 3x3 determinant: cofactor expansion along the first row from 0.
// CHECK-LABEL: func.func @determinant(
// CHECK-SAME:    %[[M:.*]]: vector<3x3xf32>)
// CHECK-DAG:     %[[M00:.*]] = vector.extract %[[M]][0, 0]
// CHECK-DAG:     %[[M01:.*]] = vector.extract %[[M]][0, 1]
// CHECK-DAG:     %[[M02:.*]] = vector.extract %[[M]][0, 2]
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[C0:.*]] = arith.subf
// CHECK:         %[[T0:.*]] = arith.mulf %[[M00]], %[[C0]]
// CHECK:         %[[S0:.*]] = arith.addf %[[ZERO]], %[[T0]]
// CHECK:         %[[C1:.*]] = arith.subf
// CHECK:         %[[T1:.*]] = arith.mulf %[[M01]], %[[C1]]
// CHECK:         %[[S1:.*]] = arith.subf %[[S0]], %[[T1]]
// CHECK:         %[[C2:.*]] = arith.subf
// CHECK:         %[[T2:.*]] = arith.mulf %[[M02]], %[[C2]]
// CHECK:         %[[S2:.*]] = arith.addf %[[S1]], %[[T2]]
// CHECK:         return %[[S2]]
func.func @determinant(%m: vector<3x3xf32>) -> f32 {
  %d = ks.determinant %m : vector<3x3xf32>
  return %d : f32
}

// -----

// m * v: element i is dot(m[i], v).
// CHECK-LABEL: func.func @matvec(
// CHECK-COUNT-4: arith.mulf
// CHECK:         vector.from_elements {{.*}} : vector<2xf32>
// CHECK-NOT:     ks.matmul
func.func @matvec(%m: vector<2x2xf32>, %v: vector<2xf32>) -> vector<2xf32> {
  %r = ks.matmul %m, %v : vector<2x2xf32>, vector<2xf32> -> vector<2xf32>
  return %r : vector<2xf32>
}

// -----

// quat_rotate_inv negates the cross term as the runtime's sign * t does.
// CHECK-LABEL: func.func @rotate_inv(
// CHECK:         %[[MINUS:.*]] = arith.constant -1.000000e+00 : f32
// CHECK:         arith.mulf %[[MINUS]],
// CHECK-NOT:     ks.quat_rotate_inv
func.func @rotate_inv(%q: vector<4xf32>, %v: vector<3xf32>) -> vector<3xf32> {
  %r = ks.quat_rotate_inv %q, %v : vector<4xf32>, vector<3xf32>
  return %r : vector<3xf32>
}

// -----

// The PCG hash: b = x * 747796405 + 2891336453 (-1403630843 as i32), and
// randf is float(state >> 8) * 2^-24.
// CHECK-LABEL: func.func @randf(
// CHECK-SAME:    %[[S:.*]]: i32)
// CHECK:         %[[MUL:.*]] = arith.constant 747796405 : i32
// CHECK:         %[[B0:.*]] = arith.muli %[[S]], %[[MUL]]
// CHECK:         %[[INC:.*]] = arith.constant -1403630843 : i32
// CHECK:         %[[B:.*]] = arith.addi %[[B0]], %[[INC]]
// CHECK:         arith.shrui %[[B]]
// CHECK:         arith.xori
// CHECK:         %[[STATE:.*]] = arith.xori
// CHECK:         %[[TOP:.*]] = arith.shrui %[[STATE]], %{{.*}} : i32
// CHECK:         %[[F:.*]] = arith.uitofp %[[TOP]] : i32 to f32
// CHECK:         %[[UNIT:.*]] = arith.mulf %[[F]], %{{.*}} : f32
// CHECK:         return %[[UNIT]], %[[STATE]]
func.func @randf(%s: i32) -> (f32, i32) {
  %r, %s1 = ks.randf %s
  return %r, %s1 : f32, i32
}

// -----

// randn: Box-Muller through math.log, math.sqrt and math.cos.
// CHECK-LABEL: func.func @randn(
// CHECK:         math.log
// CHECK:         math.sqrt
// CHECK:         math.cos
// CHECK-NOT:     ks.randn
func.func @randn(%s: i32) -> (f32, i32) {
  %r, %s1 = ks.randn %s
  return %r, %s1 : f32, i32
}

// -----

// length: sqrt(dot(v, v)); normalize: l > 0 ? v / l : 0.
// CHECK-LABEL: func.func @normalize(
// CHECK-SAME:    %[[V:.*]]: vector<2xf32>)
// CHECK-DAG:     %[[X:.*]] = vector.extract %[[V]][0]
// CHECK-DAG:     %[[Y:.*]] = vector.extract %[[V]][1]
// CHECK:         %[[XX:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:         %[[YY:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK:         %[[SQ:.*]] = arith.addf %[[XX]], %[[YY]] : f32
// CHECK:         %[[L:.*]] = math.sqrt %[[SQ]] : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[POS:.*]] = arith.cmpf ogt, %[[L]], %[[ZERO]] : f32
// CHECK:         %[[LV:.*]] = vector.broadcast %[[L]] : f32 to vector<2xf32>
// CHECK:         %[[UNIT:.*]] = arith.divf %[[V]], %[[LV]] : vector<2xf32>
// CHECK:         %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<2xf32>
// CHECK:         %[[N:.*]] = arith.select %[[POS]], %[[UNIT]], %[[ZEROS]] : vector<2xf32>
// CHECK:         return %[[N]]
func.func @normalize(%v: vector<2xf32>) -> vector<2xf32> {
  %n = ks.normalize %v : vector<2xf32>
  return %n : vector<2xf32>
}

// -----

// A quaternion's: l > 0 ? q * (1 / l) : the identity (0, 0, 0, 1).
// CHECK-LABEL: func.func @normalize_quat(
// CHECK-SAME:    %[[Q:.*]]: vector<4xf64>)
// CHECK:         %[[L:.*]] = math.sqrt
// CHECK:         %[[POS:.*]] = arith.cmpf ogt, %[[L]]
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK:         %[[INV:.*]] = arith.divf %[[ONE]], %[[L]] : f64
// CHECK:         %[[INVV:.*]] = vector.broadcast %[[INV]] : f64 to vector<4xf64>
// CHECK:         %[[UNIT:.*]] = arith.mulf %[[Q]], %[[INVV]] : vector<4xf64>
// CHECK:         %[[IDENTITY:.*]] = arith.constant dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]> : vector<4xf64>
// CHECK:         %[[N:.*]] = arith.select %[[POS]], %[[UNIT]], %[[IDENTITY]] : vector<4xf64>
// CHECK:         return %[[N]]
func.func @normalize_quat(%q: vector<4xf64>) -> vector<4xf64> {
  %n = ks.normalize %q quaternion : vector<4xf64>
  return %n : vector<4xf64>
}
