//===- ExpandLinalg.cpp - Linear algebra and quaternions as arith ---------===//
//
// Part of ksc. The vector, matrix and quaternion patterns of
// `ks-expand-builtins` (include/ksc/Dialect/Ks/Transforms/Passes.td): each computes
// what the runtime's function of the same name computes
// (runtime/ksc_runtime.h), in the same order of operations.
//
//===----------------------------------------------------------------------===//

#include "ExpandBuiltins.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
  // Callers build operands in statements of their own: C++ leaves the
  // order of evaluation of arguments open, and the IR would depend on the
  // compiler that built ksc.
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
  PatternRewriter &builder() { return b; }
  Location location() { return loc; }
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
  /// x1 * y1 - x2 * y2.
  Value difference(Value x1, Value y1, Value x2, Value y2) {
    Value first = mul(x1, y1);
    Value second = mul(x2, y2);
    return sub(first, second);
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
      return difference(m[0][0], m[1][1], m[0][1], m[1][0]);
    Value result = constant(0);
    for (size_t j = 0; j < n; ++j) {
      Value cofactor = determinant(minor(m, 0, j));
      Value term = mul(m[0][j], cofactor);
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
    Value two = constant(2);
    Value one = constant(1);
    Value c = sub(mul(mul(two, q[3]), q[3]), one);
    Value d = mul(two, dot(q.take_front(3), v));
    SmallVector<Value> result;
    for (int i = 0; i < 3; ++i) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      Value scaledV = mul(v[i], c);
      Value scaledQ = mul(q[i], d);
      Value base = add(scaledV, scaledQ);
      Value cross = difference(q[j], v[k], q[k], v[j]);
      Value t = mul(mul(cross, q[3]), two);
      if (inverse) {
        Value minusOne = constant(-1);
        t = mul(minusOne, t);
      }
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
    SmallVector<Value> a = c.components(op.getLhs());
    SmallVector<Value> b = c.components(op.getRhs());
    rewriter.replaceOp(op, c.dot(a, b));
    return success();
  }
};

/// The runtime's length(v): sqrt(dot(v, v)).
Value expandLength(Components &c, Value v) {
  SmallVector<Value> a = c.components(v);
  Value squared = c.dot(a, a);
  return math::SqrtOp::create(c.builder(), c.location(), squared);
}

struct LengthExpansion : OpRewritePattern<ks::LengthOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::LengthOp op,
                                PatternRewriter &rewriter) const override {
    Components c(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, expandLength(c, op.getVector()));
    return success();
  }
};

/// The runtime's normalize(v): l > 0 ? v / l : 0; and quat_normalize(q):
/// l > 0 ? q * (1 / l) : (0, 0, 0, 1).
struct NormalizeExpansion : OpRewritePattern<ks::NormalizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::NormalizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<VectorType>(op.getType());
    Components c(rewriter, loc, type.getElementType());
    Value v = op.getVector();
    Value length = expandLength(c, v);
    Value positive = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGT, length, c.constant(0));
    Value scaled;
    SmallVector<Attribute> fallback(
        type.getDimSize(0), rewriter.getFloatAttr(type.getElementType(), 0));
    if (op.getQuaternion()) {
      Value inverse =
          arith::DivFOp::create(rewriter, loc, c.constant(1), length);
      scaled = arith::MulFOp::create(
          rewriter, loc, v,
          vector::BroadcastOp::create(rewriter, loc, type, inverse));
      fallback.back() = rewriter.getFloatAttr(type.getElementType(), 1);
    } else {
      scaled = arith::DivFOp::create(
          rewriter, loc, v,
          vector::BroadcastOp::create(rewriter, loc, type, length));
    }
    Value otherwise = arith::ConstantOp::create(
        rewriter, loc, type, DenseElementsAttr::get(type, fallback));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, positive, scaled,
                                                 otherwise);
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
    Value x = c.difference(a[1], b[2], a[2], b[1]);
    Value y = c.difference(a[2], b[0], a[0], b[2]);
    Value z = c.difference(a[0], b[1], a[1], b[0]);
    rewriter.replaceOp(op, c.vector({x, y, z}));
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
      SmallVector<Value> v = c.components(op.getLhs());
      Components::Matrix m = c.elements(op.getRhs());
      rewriter.replaceOp(op, c.vector(rowTimes(v, m)));
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
      Value first = c.mul(a[W], b[i]);
      Value second = c.mul(b[W], a[i]);
      Value sum = c.add(first, second);
      Value third = c.mul(a[j], b[k]);
      sum = c.add(sum, third);
      Value fourth = c.mul(b[j], a[k]);
      r.push_back(c.sub(sum, fourth));
    }
    Value w = c.difference(a[W], b[W], a[X], b[X]);
    for (int i : {Y, Z}) {
      Value term = c.mul(a[i], b[i]);
      w = c.sub(w, term);
    }
    r.push_back(w);
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
    SmallVector<Value> q = c.components(op.getQuat());
    SmallVector<Value> v = c.components(op.getVector());
    rewriter.replaceOp(op, c.vector(c.rotate(q, v, Inverse)));
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

void ksc::ks::populateExpandLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<
      DotExpansion, LengthExpansion, NormalizeExpansion, CrossExpansion,
      OuterExpansion, MatmulExpansion, DeterminantExpansion, InverseExpansion,
      QuatMulExpansion, QuatRotateExpansion<ks::QuatRotateOp, false>,
      QuatRotateExpansion<ks::QuatRotateInvOp, true>, QuatToMatrixExpansion>(
      patterns.getContext());
}
