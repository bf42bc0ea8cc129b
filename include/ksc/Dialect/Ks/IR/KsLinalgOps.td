//===- KsLinalgOps.td - Vector and matrix operations -------*- tablegen -*-===//
//
// Part of ksc. The kernel language's vectors and matrices are builtin MLIR
// vectors: `vec3` is `vector<3xf32>`, `mat33` is `vector<3x3xf32>` (row i is
// `vector.extract %m[i]`). Component-wise arithmetic is `arith` on vectors,
// construction and component access are `vector.from_elements`,
// `vector.broadcast`, `vector.extract` and `vector.insert`, and the
// transpose is `vector.transpose`. The operations below are the rest of the
// language's linear algebra: the ones no upstream operation expresses as
// directly, which the emitters print as calls of the same name.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSLINALGOPS_TD
#define KSC_DIALECT_KS_IR_KSLINALGOPS_TD

// Vectors and matrices of the kernel language.
def Ks_Vector : VectorOfRankAndType<[1], [F32, F64, I32]>;
def Ks_FloatVector : VectorOfRankAndType<[1], [F32, F64]>;
def Ks_Matrix : VectorOfRankAndType<[2], [F32, F64]>;

// The operations of this file.
class Ks_LinalgOp<string mnemonic, list<Trait> traits = []>
    : Ks_Op<mnemonic, [Ks_LinearAlgebra] # traits>;

// A product reads each factor for the other's adjoint.
def Ks_ProductRules : Ks_DerivativeRules<["adjointReadsOperand"]>;

def Ks_DotOp : Ks_LinalgOp<"dot", [Ks_CppExpression, Pure, SameTypeOperands,
    Ks_ProductRules,
    TypesMatchWith<"result is the element type of the operands", "lhs",
                   "result",
                   "::llvm::cast<::mlir::VectorType>($_self).getElementType()">]> {
  let summary = "The dot product of two vectors";
  let description = [{
    The sum of the products of the components of `lhs` and `rhs`, added in
    component order: `(lhs[0] * rhs[0] + lhs[1] * rhs[1]) + ...`.

    ```mlir
    %d = ks.dot %a, %b : vector<3xf32>
    ```
  }];
  let arguments = (ins Ks_Vector:$lhs, Ks_Vector:$rhs);
  let results = (outs AnyTypeOf<[F32, F64, I32]>:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Ks_LengthOp : Ks_LinalgOp<"length", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<["adjointUsesResult"]>,
    TypesMatchWith<"result is the element type of the vector", "vector",
                   "result",
                   "::llvm::cast<::mlir::VectorType>($_self).getElementType()">]> {
  let summary = "The Euclidean length of a vector";
  let description = [{
    `sqrt(dot(v, v))`. Its derivative at the zero vector, where the length
    has none, is zero (NVIDIA Warp's adjoint of `length` is too): the
    distance between two particles that coincide has no gradient rather
    than a NaN that would spread to every other.

    ```mlir
    %l = ks.length %v : vector<3xf32>
    ```
  }];
  let arguments = (ins Ks_FloatVector:$vector);
  let results = (outs AnyTypeOf<[F32, F64]>:$result);
  let assemblyFormat = "$vector attr-dict `:` type($vector)";
}

def Ks_NormalizeOp : Ks_LinalgOp<"normalize", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<>, AllTypesMatch<["vector", "result"]>]> {
  let summary = "A vector scaled to length one";
  let description = [{
    `v / length(v)`, and the zero vector where the length is zero (or NaN),
    as NVIDIA Warp's `normalize`. With `quaternion`, `q * (1 / length(q))`
    and the identity quaternion `(0, 0, 0, 1)` where the length is zero.
    Its derivative there is zero, not NaN.

    ```mlir
    %n = ks.normalize %v : vector<3xf32>
    %r = ks.normalize %q quaternion : vector<4xf32>
    ```
  }];
  let arguments = (ins Ks_FloatVector:$vector, UnitAttr:$quaternion);
  let results = (outs Ks_FloatVector:$result);
  let assemblyFormat = "$vector (`quaternion` $quaternion^)? attr-dict `:` type($vector)";
  let hasVerifier = 1;
}

def Ks_CrossOp : Ks_LinalgOp<"cross", [Ks_CppExpression, Pure, Ks_ProductRules,
    AllTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "The cross product of two 3-vectors";
  let description = [{
    `(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)`.

    ```mlir
    %n = ks.cross %a, %b : vector<3xf32>
    ```
  }];
  let arguments = (ins Ks_FloatVector:$lhs, Ks_FloatVector:$rhs);
  let results = (outs Ks_FloatVector:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ks_OuterOp : Ks_LinalgOp<"outer", [Ks_CppExpression, Pure, SameTypeOperands,
    Ks_ProductRules]> {
  let summary = "The outer product of two vectors";
  let description = [{
    The matrix whose element `(i, j)` is `lhs[i] * rhs[j]`.

    ```mlir
    %m = ks.outer %a, %b : vector<3xf32> -> vector<3x3xf32>
    ```
  }];
  let arguments = (ins Ks_FloatVector:$lhs, Ks_FloatVector:$rhs);
  let results = (outs Ks_Matrix:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Ks_MatmulOp : Ks_LinalgOp<"matmul", [Ks_CppExpression, Pure, Ks_ProductRules]> {
  let summary = "The product of two matrices, or of a matrix and a vector";
  let description = [{
    The matrix product of `lhs` and `rhs`: a square matrix times a matrix of
    the same type, a matrix times a vector (a column: `m * v` in the source),
    or a vector (a row: `v * m`) times a matrix. Each element is a sum of
    products added in index order.

    ```mlir
    %c = ks.matmul %a, %b : vector<3x3xf32>, vector<3x3xf32> -> vector<3x3xf32>
    %u = ks.matmul %m, %v : vector<3x3xf32>, vector<3xf32> -> vector<3xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Ks_FloatVector, Ks_Matrix]>:$lhs,
                       AnyTypeOf<[Ks_FloatVector, Ks_Matrix]>:$rhs);
  let results = (outs AnyTypeOf<[Ks_FloatVector, Ks_Matrix]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ks_DeterminantOp : Ks_LinalgOp<"determinant", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<["adjointUsesResult"]>,
    TypesMatchWith<"result is the element type of the matrix", "matrix",
                   "result",
                   "::llvm::cast<::mlir::VectorType>($_self).getElementType()">]> {
  let summary = "The determinant of a square matrix";
  let description = [{
    The determinant of a 2x2, 3x3 or 4x4 matrix, by cofactor expansion along
    the first row.

    ```mlir
    %d = ks.determinant %m : vector<3x3xf32>
    ```
  }];
  let arguments = (ins Ks_Matrix:$matrix);
  let results = (outs AnyTypeOf<[F32, F64]>:$result);
  let assemblyFormat = "$matrix attr-dict `:` type($matrix)";
  let hasVerifier = 1;
}

def Ks_InverseOp : Ks_LinalgOp<"inverse", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<["adjointUsesResult", "adjointReadsOperand"]>,
    AllTypesMatch<["matrix", "result"]>]> {
  let summary = "The inverse of a square matrix";
  let description = [{
    The inverse of a 2x2, 3x3 or 4x4 matrix: the adjugate divided by the
    determinant, or the zero matrix when the determinant is zero (as NVIDIA
    Warp's `inverse` does).

    ```mlir
    %inv = ks.inverse %m : vector<3x3xf32>
    ```
  }];
  let arguments = (ins Ks_Matrix:$matrix);
  let results = (outs Ks_Matrix:$result);
  let assemblyFormat = "$matrix attr-dict `:` type($matrix)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quaternions
//===----------------------------------------------------------------------===//

// A quaternion (`quat` in the source) is a `vector<4xf32>` (x, y, z, w); its
// component-wise arithmetic is arith on vectors. The formulas are NVIDIA
// Warp's, evaluated in the order written.
def Ks_Quat : Type<And<[Ks_FloatVector.predicate, IsVectorOfShape<[4]>]>,
                   "quaternion (vector<4xf32> or vector<4xf64>)",
                   "::mlir::VectorType">;
def Ks_Vec3 : Type<And<[Ks_FloatVector.predicate, IsVectorOfShape<[3]>]>,
                   "3-vector of float or double", "::mlir::VectorType">;

def Ks_QuatMulOp : Ks_LinalgOp<"quat_mul", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<>, AllTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "The product of two quaternions";
  let description = [{
    The Hamilton product `lhs * rhs` (the rotation `rhs`, then `lhs`):

    ```
    (a.w*b.x + b.w*a.x + a.y*b.z - b.y*a.z,
     a.w*b.y + b.w*a.y + a.z*b.x - b.z*a.x,
     a.w*b.z + b.w*a.z + a.x*b.y - b.x*a.y,
     a.w*b.w - a.x*b.x - a.y*b.y - a.z*b.z)
    ```

    ```mlir
    %q = ks.quat_mul %a, %b : vector<4xf32>
    ```
  }];
  let arguments = (ins Ks_Quat:$lhs, Ks_Quat:$rhs);
  let results = (outs Ks_Quat:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

class Ks_QuatRotateBase<string mnemonic, string sign> : Ks_LinalgOp<mnemonic, [Ks_CppExpression, Pure,
    Ks_DerivativeRules<>,
    AllTypesMatch<["vector", "result"]>,
    TypesMatchWith<"quaternion and vector have one element type", "vector",
                   "quat",
                   "::mlir::VectorType::get({4}, ::llvm::cast<::mlir::VectorType>($_self).getElementType())">]> {
  let arguments = (ins Ks_Quat:$quat, Ks_Vec3:$vector);
  let results = (outs Ks_Vec3:$result);
  let assemblyFormat = "$quat `,` $vector attr-dict `:` type($quat) `,` type($result)";
  let description = [{
    With `c = 2 * q.w * q.w - 1` and `d = 2 * (q.x * v.x + q.y * v.y + q.z * v.z)`,
    component i of the result is
    `v[i] * c + q[i] * d }] # sign # [{ cross(q.xyz, v)[i] * q.w * 2`.

    ```mlir
    %r = ks.}] # mnemonic # [{ %q, %v : vector<4xf32>, vector<3xf32>
    ```
  }];
}

def Ks_QuatRotateOp : Ks_QuatRotateBase<"quat_rotate", "+"> {
  let summary = "Rotates a 3-vector by a unit quaternion";
}

def Ks_QuatRotateInvOp : Ks_QuatRotateBase<"quat_rotate_inv", "-"> {
  let summary = "Rotates a 3-vector by the inverse of a unit quaternion";
}

def Ks_QuatToMatrixOp : Ks_LinalgOp<"quat_to_matrix", [Ks_CppExpression, Pure,
    Ks_DerivativeRules<>]> {
  let summary = "The rotation matrix of a unit quaternion";
  let description = [{
    The 3x3 matrix whose column j is `ks.quat_rotate` of the quaternion and
    the unit vector e_j.

    ```mlir
    %m = ks.quat_to_matrix %q : vector<4xf32> -> vector<3x3xf32>
    ```
  }];
  let arguments = (ins Ks_Quat:$quat);
  let results = (outs Ks_Matrix:$result);
  let assemblyFormat = "$quat attr-dict `:` type($quat) `->` type($result)";
  let hasVerifier = 1;
}

#endif // KSC_DIALECT_KS_IR_KSLINALGOPS_TD
