//===- PromoteToF64.cpp - Compute in double precision ------------------===//
//
// Part of ksc. See the description of `ks-promote-to-f64` in
// include/ksc/Dialect/Ks/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <charconv>

namespace ksc::ks {
#define GEN_PASS_DEF_KSPROMOTETOF64
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

namespace {
/// f32 -> f64 in every type that holds one.
class PromoteTypeConverter : public TypeConverter {
public:
  explicit PromoteTypeConverter(MLIRContext *ctx) {
    addConversion([](Type type) { return type; });
    addConversion([ctx](FloatType type) -> Type {
      return type.isF32() ? Float64Type::get(ctx) : type;
    });
    addConversion([this](VectorType type) -> Type {
      return type.clone(convertType(type.getElementType()));
    });
    addConversion([this](ArrayType type) -> Type {
      return ArrayType::get(convertType(type.getElementType()), type.getRank(),
                            type.getIsConst());
    });
    addConversion([this, ctx](StructType type) -> Type {
      SmallVector<Type> fields;
      for (Type field : type.getFieldTypes())
        fields.push_back(convertType(field));
      return StructType::get(ctx, type.getName(), type.getFieldNames(),
                             fields);
    });
    addConversion([this, ctx](FunctionType type) -> Type {
      SmallVector<Type> inputs, results;
      for (Type input : type.getInputs())
        inputs.push_back(convertType(input));
      for (Type result : type.getResults())
        results.push_back(convertType(result));
      return FunctionType::get(ctx, inputs, results);
    });
    // Values of the operations that stay f32 (random numbers).
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                   Location loc) -> Value {
      if (inputs.size() != 1 || !isa<FloatType>(type))
        return nullptr;
      Value input = inputs.front();
      if (type.getIntOrFloatBitWidth() >
          input.getType().getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, loc, type, input);
      return arith::TruncFOp::create(b, loc, type, input);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }

  /// `attr` with its f32 parts in f64: float constants are re-read from
  /// their shortest decimal form (0.1f -> 0.1).
  Attribute convertAttr(Attribute attr) {
    if (auto value = dyn_cast<FloatAttr>(attr); value && value.getType().isF32())
      return FloatAttr::get(Float64Type::get(attr.getContext()),
                            promote(value.getValue()));
    if (auto dense = dyn_cast<DenseFPElementsAttr>(attr);
        dense && dense.getElementType().isF32()) {
      auto type = cast<ShapedType>(convertType(dense.getType()));
      SmallVector<APFloat> values;
      for (const APFloat &value : dense.getValues<APFloat>())
        values.push_back(promote(value));
      return DenseElementsAttr::get(type, values);
    }
    if (auto type = dyn_cast<TypeAttr>(attr))
      return TypeAttr::get(convertType(type.getValue()));
    return attr;
  }

  bool isLegalAttr(Attribute attr) { return convertAttr(attr) == attr; }

private:
  static APFloat promote(const APFloat &value) {
    float single = value.convertToFloat();
    if (!value.isFinite())
      return APFloat(double(single)); // inf, nan
    // std::to_chars writes the shortest text that reads back as `single`.
    char text[64];
    auto [end, error] = std::to_chars(text, text + sizeof(text), single);
    if (error != std::errc())
      return APFloat(double(single));
    return APFloat(APFloat::IEEEdouble(), StringRef(text, end - text));
  }
};

/// Whether `op` uses no f32 anywhere: operands, results, attributes and
/// the arguments of its blocks (function signatures included).
static bool isPromoted(Operation *op, PromoteTypeConverter &converter) {
  if (!converter.isLegal(op))
    return false;
  for (NamedAttribute attr : op->getAttrs())
    if (!converter.isLegalAttr(attr.getValue()))
      return false;
  for (Region &region : op->getRegions())
    if (!converter.isLegal(&region))
      return false;
  return true;
}

/// Rebuilds any operation with promoted types and attributes.
struct PromoteOp : ConversionPattern {
  PromoteOp(PromoteTypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        converter(converter) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // Conversions between float and double are the identity now.
    if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
        converter.convertType(op->getResult(0).getType()) ==
            operands.front().getType()) {
      rewriter.replaceOp(op, operands.front());
      return success();
    }
    SmallVector<Type> results;
    if (failed(converter.convertTypes(op->getResultTypes(), results)))
      return failure();
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : op->getAttrs())
      attrs.emplace_back(attr.getName(), converter.convertAttr(attr.getValue()));
    OperationState state(op->getLoc(), op->getName(), operands, results, attrs,
                         op->getSuccessors());
    for (Region &region : op->getRegions()) {
      Region *target = state.addRegion();
      rewriter.inlineRegionBefore(region, *target, target->end());
      if (failed(rewriter.convertRegionTypes(target, converter)))
        return failure();
    }
    Operation *promoted = rewriter.create(state);
    rewriter.replaceOp(op, promoted->getResults());
    return success();
  }

  PromoteTypeConverter &converter;
};

struct PromoteToF64 : public ks::impl::KsPromoteToF64Base<PromoteToF64> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    PromoteTypeConverter converter(ctx);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return isPromoted(op, converter); });
    target.addLegalOp<ModuleOp>();
    // The generator draws floats (Warp's, bit for bit): their values are
    // extended where they are used.
    target.addLegalOp<RandFOp, RandNOp>();
    RewritePatternSet patterns(ctx);
    patterns.add<PromoteOp>(converter, ctx);
    if (failed(applyFullConversion(getOperation(), target,
                                   std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
