//===- ExpandRandom.cpp - Random numbers as integer arithmetic ------------===//
//
// Part of ksc. The random-number patterns of `ks-expand-builtins`: NVIDIA
// Warp's generator as runtime/ksc_runtime.h computes it (rand_pcg,
// rand_init, randi, randf, randn), bit for bit.
//
//===----------------------------------------------------------------------===//

#include "ExpandBuiltins.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace ksc;

namespace {
class Random {
public:
  Random(PatternRewriter &rewriter, Location loc) : b(rewriter), loc(loc) {}

  Value u32(uint32_t value) {
    return arith::ConstantOp::create(b, loc,
                                     b.getI32IntegerAttr(int32_t(value)));
  }
  Value f32(float value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }

  /// The PCG hash: b = x * 747796405 + 2891336453;
  /// c = ((b >> ((b >> 28) + 4)) ^ b) * 277803737; (c >> 22) ^ c.
  Value pcg(Value x) {
    Value multiplier = u32(747796405u);
    Value product = arith::MulIOp::create(b, loc, x, multiplier);
    Value increment = u32(2891336453u);
    Value bits = arith::AddIOp::create(b, loc, product, increment);
    Value top = arith::ShRUIOp::create(b, loc, bits, u32(28));
    Value shift = arith::AddIOp::create(b, loc, top, u32(4));
    Value shifted = arith::ShRUIOp::create(b, loc, bits, shift);
    Value mixed = arith::XOrIOp::create(b, loc, shifted, bits);
    Value c = arith::MulIOp::create(b, loc, mixed, u32(277803737u));
    Value high = arith::ShRUIOp::create(b, loc, c, u32(22));
    return arith::XOrIOp::create(b, loc, high, c);
  }

  /// float(state >> 8) * 2^-24: exact.
  Value unit(Value state) {
    Value top = arith::ShRUIOp::create(b, loc, state, u32(8));
    Value asFloat = arith::UIToFPOp::create(b, loc, b.getF32Type(), top);
    return arith::MulFOp::create(b, loc, asFloat, f32(1.0f / 16777216.0f));
  }

  PatternRewriter &b;
  Location loc;
};

struct RandInitExpansion : OpRewritePattern<ks::RandInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::RandInitOp op,
                                PatternRewriter &rewriter) const override {
    Random r(rewriter, op.getLoc());
    Value seed = op.getSeed();
    if (Value offset = op.getOffset())
      seed = arith::AddIOp::create(rewriter, op.getLoc(), seed, r.pcg(offset));
    rewriter.replaceOp(op, r.pcg(seed));
    return success();
  }
};

struct RandIExpansion : OpRewritePattern<ks::RandIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::RandIOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Random r(rewriter, loc);
    Value state = r.pcg(op.getState());
    Value value = state;
    if (op.hasBounds()) {
      // state % (high - low) + low on uint32_t.
      Value range =
          arith::SubIOp::create(rewriter, loc, op.getHigh(), op.getLow());
      Value rest = arith::RemUIOp::create(rewriter, loc, state, range);
      value = arith::AddIOp::create(rewriter, loc, rest, op.getLow());
    }
    rewriter.replaceOp(op, {value, state});
    return success();
  }
};

struct RandFExpansion : OpRewritePattern<ks::RandFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::RandFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Random r(rewriter, loc);
    Value state = r.pcg(op.getState());
    Value value = r.unit(state);
    if (op.hasBounds()) {
      // (high - low) * unit + low, each step rounded.
      Value range =
          arith::SubFOp::create(rewriter, loc, op.getHigh(), op.getLow());
      Value scaled = arith::MulFOp::create(rewriter, loc, range, value);
      value = arith::AddFOp::create(rewriter, loc, scaled, op.getLow());
    }
    rewriter.replaceOp(op, {value, state});
    return success();
  }
};

struct RandNExpansion : OpRewritePattern<ks::RandNOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ks::RandNOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Random r(rewriter, loc);
    Value first = r.pcg(op.getState());
    Value second = r.pcg(first);
    Value u1 = r.unit(first);
    Value u2 = r.unit(second);
    // sqrt(-2 * log(u1 + 5.96e-8)) * cos(2 * pi * u2), in float.
    Value shifted = arith::AddFOp::create(rewriter, loc, u1, r.f32(5.96e-8f));
    Value log = math::LogOp::create(rewriter, loc, shifted);
    Value product = arith::MulFOp::create(rewriter, loc, r.f32(-2.0f), log);
    Value radius = math::SqrtOp::create(rewriter, loc, product);
    Value angle = arith::MulFOp::create(
        rewriter, loc, r.f32(2.0f * 3.14159265358979323846f), u2);
    Value cos = math::CosOp::create(rewriter, loc, angle);
    Value value = arith::MulFOp::create(rewriter, loc, radius, cos);
    rewriter.replaceOp(op, {value, second});
    return success();
  }
};
} // namespace

void ksc::ks::populateExpandRandomPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<RandInitExpansion, RandIExpansion, RandFExpansion, RandNExpansion>(
          patterns.getContext());
}
