//===- ExpandLinalg.cpp - Linear algebra and quaternions as arith ---------===//
//
// Part of ksc. The vector, matrix and quaternion patterns of
// `ks-expand-builtins` (include/ksc/Conversion/Passes.td): each computes
// what the runtime's function of the same name computes
// (runtime/ksc_runtime.h), in the same order of operations.
//
//===----------------------------------------------------------------------===//

#include "ExpandBuiltins.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace ksc;

namespace {
/// Builds scalar arithmetic on the components of vectors and matrices.
class Components {
public:
  Components(PatternRewriter &rewriter, Location loc, Type scalar)
      : b(rewriter), loc(loc), scalar(scalar), isFloat(isa<FloatType>(scalar)) {
  }

  Value at(Value v, int64_t i) {
    return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i});
  }
  Value at(Value m, int64_t i, int64_t j) {
    return vector::ExtractOp::create(b, loc, m, ArrayRef<int64_t>{i, j});
  }
  Value mul(Value x, Value y) {
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  }
  Value add(Value x, Value y) {
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  }
  Value sub(Value x, Value y) {
    return isFloat ? Value(arith::SubFOp::create(b, loc, x, y))
                   : Value(arith::SubIOp::create(b, loc, x, y));
  }
  Value constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(scalar, value));
  }
  /// The vector of `values`.
  Value vector(ArrayRef<Value> values) {
    auto type = VectorType::get({int64_t(values.size())}, scalar);
    return vector::FromElementsOp::create(b, loc, type, values);
  }
  /// The n x n matrix of `rows` (vectors).
  Value matrix(ArrayRef<Value> rows) {
    int64_t n = rows.size();
    auto type = VectorType::get({n, n}, scalar);
    Value m = arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(scalar)));
    for (auto [i, row] : llvm::enumerate(rows))
      m = vector::InsertOp::create(b, loc, row, m,
                                   ArrayRef<int64_t>{int64_t(i)});
    return m;
  }
  /// Sum of `products` in order: ((p0 + p1) + p2) + ...
  Value sum(ArrayRef<Value> products) {
    Value result;
    for (Value p : products)
      result = result ? add(result, p) : p;
    return result;
  }
  /// The runtime's dot(a, b): a0 * b0 + a1 * b1 + ... in order.
  Value dot(ArrayRef<Value> a, ArrayRef<Value> b) {
    SmallVector<Value> products;
    for (auto [x, y] : llvm::zip_equal(a, b))
      products.push_back(mul(x, y));
    return sum(products);
  }
  SmallVector<Value> components(Value v) {
    SmallVector<Value> result;
    int64_t n = cast<VectorType>(v.getType()).getShape().back();
    for (int64_t i = 0; i < n; ++i)
      result.push_back(at(v, i));
    return result;
  }
  using Matrix = SmallVector<SmallVector<Value>>;
  Matrix elements(Value m) {
    Matrix result;
    int64_t n = cast<VectorType>(m.getType()).getShape().front();
    for (int64_t i = 0; i < n; ++i) {
      result.emplace_back();
      for (int64_t j = 0; j < n; ++j)
        result.back().push_back(at(m, i, j));
    }
    return result;
  }
  Value matrix(const Matrix &m) {
    SmallVector<Value> rows;
    for (const auto &row : m)
      rows.push_back(vector(row));
    return matrix(rows);
  }

  /// The runtime's determinant: cofactor expansion along the first row,
  /// the sum starting at 0 (2x2: m00 * m11 - m01 * m10).
  Value determinant(const Matrix &m) {
    size_t n = m.size();
    if (n == 2)
      return sub(mul(m[0][0], m[1][1]), mul(m[0][1], m[1][0]));
    Value result = constant(0);
    for (size_t j = 0; j < n; ++j) {
      Value term = mul(m[0][j], determinant(minor(m, 0, j)));
      result = j % 2 == 0 ? add(result, term) : sub(result, term);
    }
    return result;
  }
  static Matrix minor(const Matrix &m, size_t row, size_t col) {
    Matrix result;
    for (size_t i = 0; i < m.size(); ++i) {
      if (i == row)
        continue;
      result.emplace_back();
      for (size_t j = 0; j < m.size(); ++j)
        if (j != col)
          result.back().push_back(m[i][j]);
    }
    return result;
  }

  /// The runtime's quat_rotate_impl(q, v, sign): sign * t is t or -t.
  SmallVector<Value> rotate(ArrayRef<Value> q, ArrayRef<Value> v,
                            bool inverse) {
    Value two = constant(2), one = constant(1);
    Value c = sub(mul(mul(two, q[3]), q[3]), one);
    Value d = mul(two, dot(q.take_front(3), v));
    SmallVector<Value> result;
    for (int i = 0; i < 3; ++i) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      Value cross = sub(mul(q[j], v[k]), mul(q[k], v[j]));
      Value t = mul(mul(cross, q[3]), two);
      Value base = add(mul(v[i], c), mul(q[i], d));
      if (inverse)
        t = arith::MulFOp::create(b, loc, constant(-1), t);
      result.push_back(add(base, t));
    }
    return result;
  }

  PatternRewriter &b;
  Location loc;
  Type scalar;
  bool isFloat;
};

Type scalarOf(Type type) { return cast<VectorType>(type).getElementType(); }

struct DotExpansion : OpRewritePattern<ks::DotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::DotOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(
        op, c.dot(c.components(op.getLhs()), c.components(op.getRhs())));
    return success();
  }
};

struct CrossExpansion : OpRewritePattern<ks::CrossOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::CrossOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), scalarOf(op.getType()));
    SmallVector<Value> a = c.components(op.getLhs());
    SmallVector<Value> b = c.components(op.getRhs());
    rewriter.replaceOp(op,
                       c.vector({c.sub(c.mul(a[1], b[2]), c.mul(a[2], b[1])),
                                 c.sub(c.mul(a[2], b[0]), c.mul(a[0], b[2])),
                                 c.sub(c.mul(a[0], b[1]), c.mul(a[1], b[0]))}));
    return success();
  }
};

struct OuterExpansion : OpRewritePattern<ks::OuterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::OuterOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), scalarOf(op.getType()));
    SmallVector<Value> a = c.components(op.getLhs());
    SmallVector<Value> b = c.components(op.getRhs());
    Components::Matrix m(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < b.size(); ++j)
        m[i].push_back(c.mul(a[i], b[j]));
    rewriter.replaceOp(op, c.matrix(m));
    return success();
  }
};

struct MatmulExpansion : OpRewritePattern<ks::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), scalarOf(op.getType()));
    auto lhsType = cast<VectorType>(op.getLhs().getType());
    auto rhsType = cast<VectorType>(op.getRhs().getType());
    // Row vector v times matrix m: r[j] = v0 * m[0][j] + v1 * m[1][j] + ...
    auto rowTimes = [&](ArrayRef<Value> v, const Components::Matrix &m) {
      SmallVector<Value> r;
      for (size_t j = 0; j < m.size(); ++j) {
        SmallVector<Value> column;
        for (size_t i = 0; i < m.size(); ++i)
          column.push_back(m[i][j]);
        r.push_back(c.dot(v, column));
      }
      return r;
    };
    if (lhsType.getRank() == 2 && rhsType.getRank() == 1) {
      // m * v: r[i] = dot(m[i], v).
      Components::Matrix m = c.elements(op.getLhs());
      SmallVector<Value> v = c.components(op.getRhs());
      SmallVector<Value> r;
      for (const auto &row : m)
        r.push_back(c.dot(row, v));
      rewriter.replaceOp(op, c.vector(r));
    } else if (lhsType.getRank() == 1) {
      rewriter.replaceOp(op, c.vector(rowTimes(c.components(op.getLhs()),
                                               c.elements(op.getRhs()))));
    } else {
      // a * b: row i is a[i] * b.
      Components::Matrix a = c.elements(op.getLhs());
      Components::Matrix b = c.elements(op.getRhs());
      Components::Matrix r;
      for (const auto &row : a)
        r.push_back(rowTimes(row, b));
      rewriter.replaceOp(op, c.matrix(r));
    }
    return success();
  }
};

struct DeterminantExpansion : OpRewritePattern<ks::DeterminantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::DeterminantOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, c.determinant(c.elements(op.getMatrix())));
    return success();
  }
};

struct InverseExpansion : OpRewritePattern<ks::InverseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::InverseOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Components c(rewriter, loc, scalarOf(op.getType()));
    Components::Matrix m = c.elements(op.getMatrix());
    size_t n = m.size();
    Value det = c.determinant(m);
    Components::Matrix r(n, SmallVector<Value>(n));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        Value cofactor = n == 2 ? m[1 - i][1 - j]
                                : c.determinant(Components::minor(m, i, j));
        if ((i + j) % 2)
          cofactor = arith::NegFOp::create(rewriter, loc, cofactor);
        r[j][i] = arith::DivFOp::create(rewriter, loc, cofactor, det);
      }
    // A singular matrix has the zero matrix as its inverse.
    Value singular = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OEQ, det, c.constant(0));
    auto type = cast<VectorType>(op.getType());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, type,
        DenseElementsAttr::get(type, rewriter.getZeroAttr(c.scalar)));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, singular, zero,
                                                 c.matrix(r));
    return success();
  }
};

struct QuatMulExpansion : OpRewritePattern<ks::QuatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::QuatMulOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), scalarOf(op.getType()));
    SmallVector<Value> a = c.components(op.getLhs());
    SmallVector<Value> b = c.components(op.getRhs());
    enum { X, Y, Z, W };
    // Component i (x, y, z): a.w*b.i + b.w*a.i + a.j*b.k - b.j*a.k.
    SmallVector<Value> r;
    for (int i = 0; i < 3; ++i) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      r.push_back(c.sub(
          c.add(c.add(c.mul(a[W], b[i]), c.mul(b[W], a[i])), c.mul(a[j], b[k])),
          c.mul(b[j], a[k])));
    }
    r.push_back(c.sub(
        c.sub(c.sub(c.mul(a[W], b[W]), c.mul(a[X], b[X])), c.mul(a[Y], b[Y])),
        c.mul(a[Z], b[Z])));
    rewriter.replaceOp(op, c.vector(r));
    return success();
  }
};

template <typename Op, bool Inverse>
struct QuatRotateExpansion : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), scalarOf(op.getType()));
    rewriter.replaceOp(
        op, c.vector(c.rotate(c.components(op.getQuat()),
                              c.components(op.getVector()), Inverse)));
    return success();
  }
};

struct QuatToMatrixExpansion : OpRewritePattern<ks::QuatToMatrixOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::QuatToMatrixOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), scalarOf(op.getType()));
    SmallVector<Value> q = c.components(op.getQuat());
    Components::Matrix r(3, SmallVector<Value>(3));
    // Column j is the rotation of the unit vector e_j (zeros included, as
    // the runtime multiplies them).
    for (int j = 0; j < 3; ++j) {
      SmallVector<Value> e;
      for (int i = 0; i < 3; ++i)
        e.push_back(c.constant(i == j ? 1 : 0));
      SmallVector<Value> column = c.rotate(q, e, /*inverse=*/false);
      for (int i = 0; i < 3; ++i)
        r[i][j] = column[i];
    }
    rewriter.replaceOp(op, c.matrix(r));
    return success();
  }
};
} // namespace

void ksc::conversion::populateExpandLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DotExpansion, CrossExpansion, OuterExpansion, MatmulExpansion,
               DeterminantExpansion, InverseExpansion, QuatMulExpansion,
               QuatRotateExpansion<ks::QuatRotateOp, false>,
               QuatRotateExpansion<ks::QuatRotateInvOp, true>,
               QuatToMatrixExpansion>(patterns.getContext());
}
