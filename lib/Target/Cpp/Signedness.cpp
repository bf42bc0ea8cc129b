//===- Signedness.cpp - int and uint32_t for signless i32 -------------===//
//
// Part of ksc. Which `i32` values the emitter declares as `uint32_t`, and
// the conversions between `int` and `uint32_t` expressions; see Emitter.h.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

static bool isI32(Value value) {
  return value.getType().isSignlessInteger(32);
}

/// The name the frontend recorded for result `index` of a region operation
/// (`ks.names`), or "".
static StringRef recordedName(Operation *op, unsigned index) {
  auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr);
  if (!names || names.size() != op->getNumResults())
    return "";
  auto name = dyn_cast<StringAttr>(names[index]);
  return name ? name.getValue() : "";
}

static bool hasNoSignedWrap(Operation &op) {
  if (auto flags = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op))
    return flags.hasNoSignedWrap();
  return false;
}

void Emitter::analyzeSignedness(func::FuncOp func) {
  unsignedValues.clear();
  unsignedNames.clear();
  if (auto names = func->getAttrOfType<ArrayAttr>(kUnsignedNamesAttr))
    for (Attribute name : names)
      if (auto str = dyn_cast<StringAttr>(name))
        unsignedNames.insert(str.getValue());
  auto mark = [&](Value value, bool isUnsignedValue) {
    if (isUnsignedValue && isI32(value))
      unsignedValues.insert(value);
  };
  // A value that carries a source name has that variable's type; one
  // without gets `fallback`, what its operation computes.
  auto byName = [&](StringRef name, bool fallback) {
    return name.empty() ? fallback : unsignedNames.contains(name);
  };
  auto anyUnsigned = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) {
      return !matchPattern(v, m_Constant()) && isUnsigned(v);
    });
  };

  for (BlockArgument arg : func.getArguments())
    mark(arg, ks::isUnsignedArg(func, arg.getArgNumber()));

  // What an operation computes, for its unnamed `i32` result: wrapping
  // arithmetic and the unsigned operations give `uint32_t`, operations
  // that work on either (bitwise operations, selects) what their operands
  // are; everything else (constants included: a literal takes the type of
  // its use) gives `int`.
  auto computesUnsigned = [&](Operation &op) -> bool {
    if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op))
      return !hasNoSignedWrap(op);
    if (isa<arith::DivUIOp, arith::RemUIOp, arith::ShRUIOp, arith::MinUIOp,
            arith::MaxUIOp, arith::FPToUIOp>(op))
      return true;
    if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
      return anyUnsigned(op.getOperands());
    if (auto shl = dyn_cast<arith::ShLIOp>(op))
      return anyUnsigned(shl.getLhs());
    if (auto select = dyn_cast<arith::SelectOp>(op))
      return anyUnsigned({select.getTrueValue(), select.getFalseValue()});
    if (auto load = dyn_cast<ks::LoadOp>(op))
      return load.getArray().getType().getElementType().isUnsignedInteger(32);
    if (auto extract = dyn_cast<ks::StructExtractOp>(op))
      return extract.getInput()
          .getType()
          .getFieldTypes()[extract.getIndex()]
          .isUnsignedInteger(32);
    if (auto atomic = dyn_cast<ks::AtomicRMWOp>(op))
      return atomic.getArray().getType().getElementType().isUnsignedInteger(32);
    // A generator state.
    return isa<ks::RandInitOp>(op);
  };

  std::function<void(Block &)> visit = [&](Block &block) {
    for (Operation &op : block) {
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        for (auto [index, iterArg, init, result] :
             llvm::enumerate(forOp.getRegionIterArgs(), forOp.getInitArgs(),
                             forOp.getResults())) {
          StringRef name = recordedName(forOp, index);
          if (name.empty())
            name = getNameFromLoc(iterArg.getLoc());
          bool u = byName(name, isUnsigned(init));
          mark(iterArg, u);
          mark(result, u);
        }
        visit(*forOp.getBody());
        continue;
      }
      if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
        Block &before = *whileOp.getBeforeBody();
        Block &after = *whileOp.getAfterBody();
        for (auto [index, arg] : llvm::enumerate(before.getArguments())) {
          StringRef name = recordedName(whileOp, index);
          if (name.empty())
            name = getNameFromLoc(arg.getLoc());
          if (name.empty() && index < after.getNumArguments())
            name = getNameFromLoc(after.getArgument(index).getLoc());
          mark(arg, byName(name, isUnsigned(whileOp.getInits()[index])));
        }
        visit(before);
        // The results share the slots of the before arguments when the
        // condition forwards them (see emitWhile), else have their own.
        ValueRange condArgs = whileOp.getConditionOp().getArgs();
        bool shared = llvm::equal(condArgs, before.getArguments()) ||
                      (after.getOperations().size() == 1 &&
                       llvm::equal(after.getTerminator()->getOperands(),
                                   after.getArguments()));
        for (auto [index, arg] : llvm::enumerate(after.getArguments())) {
          bool u = shared ? isUnsigned(before.getArgument(index))
                          : byName(getNameFromLoc(arg.getLoc()),
                                   isUnsigned(condArgs[index]));
          mark(arg, u);
          mark(whileOp.getResult(index), u);
        }
        visit(after);
        continue;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        visit(ifOp.getThenRegion().front());
        if (!ifOp.getElseRegion().empty())
          visit(ifOp.getElseRegion().front());
        for (auto [index, result] : llvm::enumerate(ifOp.getResults())) {
          bool fallback = false;
          if (!ifOp.getElseRegion().empty())
            fallback = anyUnsigned({ifOp.thenYield().getOperand(index),
                                    ifOp.elseYield().getOperand(index)});
          mark(result, byName(recordedName(ifOp, index), fallback));
        }
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        func::FuncOp callee = functionsByName.lookup(call.getCallee());
        if (!callee)
          continue;
        // An in-out result lives in the variable the call writes through a
        // reference: it has the parameter's type. The function's own result
        // is the variable it is stored in.
        unsigned direct = ks::getNumDirectResults(callee);
        for (auto [index, result] : llvm::enumerate(call.getResults())) {
          bool u = ks::isUnsignedResult(callee, index);
          mark(result,
               index < direct ? byName(getNameFromLoc(call.getLoc()), u) : u);
        }
        continue;
      }
      // The next state of a random draw lives in the uint32_t variable the
      // draw advances.
      if (isa<ks::RandIOp, ks::RandFOp, ks::RandNOp>(op)) {
        mark(op.getResult(1), true);
        if (isI32(op.getResult(0)))
          mark(op.getResult(0), byName(getNameFromLoc(op.getLoc()), false));
        continue;
      }
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          visit(nested);
      if (op.getNumResults() != 1 || !isI32(op.getResult(0)))
        continue;
      Value result = op.getResult(0);
      mark(result, byName(getSourceName(result), computesUnsigned(op)));
    }
  };
  for (Block &block : func.getBody())
    visit(block);
}

Type Emitter::cppType(Type type, bool isUnsignedValue) const {
  if (isUnsignedValue && type.isSignlessInteger(32))
    return IntegerType::get(type.getContext(), 32, IntegerType::Unsigned);
  return type;
}

Type Emitter::cppType(Value value) const {
  return cppType(value.getType(), isUnsigned(value));
}

Expr Emitter::castTo(StringRef type, const Expr &expr) {
  Expr result(type.str() + "(" + operand(expr, kAssign) + ")", kPostfix);
  result.merge(expr);
  return result;
}

Expr Emitter::withSign(const Expr &expr, bool toUnsigned) {
  if (expr.isUnsigned == toUnsigned)
    return expr;
  Expr result = castTo(toUnsigned ? "uint32_t" : "int", expr);
  result.isUnsigned = toUnsigned;
  return result;
}

Expr Emitter::operandAs(Value value, bool toUnsigned) {
  if (!isI32(value))
    return valueExpr(value);
  Attribute constant;
  if (Operation *def = value.getDefiningOp();
      def && isInlined(def) && matchPattern(value, m_Constant(&constant)))
    if (FailureOr<Expr> text = literal(constant, def->getLoc(), toUnsigned);
        succeeded(text))
      return *text;
  return withSign(valueExpr(value), toUnsigned);
}
