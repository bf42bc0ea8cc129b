//===- Emitter.cpp - Variables, expressions and liveness --------------===//
//
// Part of ksc. The op-independent half of the C++ emitter; see Emitter.h.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

void Expr::merge(const Expr &other) {
  for (unsigned var : other.reads)
    if (!llvm::is_contained(reads, var))
      reads.push_back(var);
  readsMemory |= other.readsMemory;
}

std::string Emitter::operand(const Expr &expr, int prec) {
  if (expr.prec >= prec)
    return expr.text;
  return "(" + expr.text + ")";
}

Expr Emitter::valueExpr(Value value) {
  if (auto it = exprOf.find(value); it != exprOf.end())
    return it->second;
  if (auto it = varOf.find(value); it != varOf.end()) {
    Expr expr(vars[it->second].name, kPrimary);
    expr.reads.push_back(it->second);
    return expr;
  }
  // Only reachable for IR the structural checks let through by mistake.
  hadError = true;
  if (Operation *def = value.getDefiningOp())
    def->emitError("internal error: value used before the C++ emitter "
                   "gave it a name");
  return Expr("<error>", kPrimary);
}

/// Whether an operand of precedence `operandPrec` inside an operator of
/// precedence `prec` reads better (and avoids compiler warnings) with
/// parentheses even where C++ does not need them: `a && b || c`,
/// `a & b == c`, `a << b + c`.
static bool wantsClarifyingParens(int prec, int operandPrec) {
  if (operandPrec == prec || operandPrec >= kUnary)
    return false;
  if (prec == kLogOr && operandPrec == kLogAnd)
    return true;
  if (prec >= kBitOr && prec <= kBitAnd && operandPrec >= kBitOr)
    return true;
  if (prec == kShift && operandPrec >= kShift)
    return true;
  return false;
}

Expr Emitter::binary(StringRef op, int prec, Value lhs, Value rhs) {
  return binary(op, prec, valueExpr(lhs), valueExpr(rhs));
}

Expr Emitter::binary(StringRef op, int prec, const Expr &l, const Expr &r) {
  auto wrap = [&](const Expr &e, int minPrec) {
    if (wantsClarifyingParens(prec, e.prec))
      return "(" + e.text + ")";
    return operand(e, minPrec);
  };
  // Left-associative: the right operand needs strictly higher precedence.
  Expr result(wrap(l, prec) + " " + op.str() + " " + wrap(r, prec + 1), prec);
  result.merge(l);
  result.merge(r);
  return result;
}

Expr Emitter::negate(Value cond) {
  Operation *def = cond.getDefiningOp();
  if (def && isInlined(def)) {
    if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
      using P = arith::CmpIPredicate;
      StringRef op;
      int prec = kRel;
      switch (cmp.getPredicate()) {
      case P::eq: op = "!="; prec = kEq; break;
      case P::ne: op = "=="; prec = kEq; break;
      case P::slt: op = ">="; break;
      case P::sle: op = ">"; break;
      case P::sgt: op = "<="; break;
      case P::sge: op = "<"; break;
      default: break;
      }
      if (!op.empty())
        return binary(op, prec, cmp.getLhs(), cmp.getRhs());
    }
    if (auto xorOp = dyn_cast<arith::XOrIOp>(def)) {
      APInt one;
      if (cond.getType().isSignlessInteger(1) &&
          matchPattern(xorOp.getRhs(), m_ConstantInt(&one)) && !one.isZero())
        return valueExpr(xorOp.getLhs());
    }
  }
  return negate(valueExpr(cond));
}

Expr Emitter::negate(const Expr &cond) {
  Expr result("!" + operand(cond, kUnary), kUnary);
  result.merge(cond);
  return result;
}

Expr Emitter::unary(StringRef op, Value value) {
  Expr e = valueExpr(value);
  std::string inner = operand(e, kUnary);
  // `- -x` must not become the decrement operator.
  if (!inner.empty() && (inner[0] == '-' || inner[0] == '+') &&
      (op == "-" || op == "+"))
    inner = "(" + inner + ")";
  Expr result(op.str() + inner, kUnary);
  result.merge(e);
  return result;
}

Expr Emitter::call(StringRef callee, ValueRange args) {
  Expr result;
  std::string text = callee.str() + "(";
  llvm::ListSeparator sep;
  for (Value arg : args) {
    Expr e = valueExpr(arg);
    text += std::string(StringRef(sep)) + operand(e, kAssign);
    result.merge(e);
  }
  result.text = text + ")";
  result.prec = kPostfix;
  return result;
}

Expr Emitter::ternary(const Expr &cond, const Expr &lhs, const Expr &rhs) {
  Expr result(operand(cond, kLogOr) + " ? " + operand(lhs, kAssign) + " : " +
                  operand(rhs, kCond),
              kCond);
  result.merge(cond);
  result.merge(lhs);
  result.merge(rhs);
  return result;
}

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

static bool executesAfter(Operation *site, Operation *point);

bool ksc::cpp::isMacroOfRuntimeHeaders(StringRef name) {
  // Macros of the C and C++ standard library headers (C17 annex B, <cmath>'s
  // POSIX constants, glibc's), which the runtime header brings in: a
  // variable or function with one of these names would not compile.
  static const llvm::StringSet<> macros = {
      "assert", "errno", "NULL", "EOF", "BUFSIZ", "FILENAME_MAX",
      "FOPEN_MAX", "L_tmpnam", "SEEK_CUR", "SEEK_END", "SEEK_SET", "TMP_MAX",
      "stdin", "stdout", "stderr", "EXIT_FAILURE", "EXIT_SUCCESS",
      "MB_CUR_MAX", "RAND_MAX", "EDOM", "EILSEQ", "ERANGE", "HUGE_VAL",
      "HUGE_VALF", "HUGE_VALL", "INFINITY", "NAN", "FP_INFINITE", "FP_NAN",
      "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "FP_FAST_FMA", "FP_FAST_FMAF",
      "FP_FAST_FMAL", "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO",
      "MATH_ERREXCEPT", "math_errhandling", "M_E", "M_LOG2E", "M_LOG10E",
      "M_LN2", "M_LN10", "M_PI", "M_PI_2", "M_PI_4", "M_1_PI", "M_2_PI",
      "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "CHAR_BIT", "CHAR_MIN",
      "CHAR_MAX", "SCHAR_MIN", "SCHAR_MAX", "UCHAR_MAX", "SHRT_MIN",
      "SHRT_MAX", "USHRT_MAX", "INT_MIN", "INT_MAX", "UINT_MAX", "LONG_MIN",
      "LONG_MAX", "ULONG_MAX", "LLONG_MIN", "LLONG_MAX", "ULLONG_MAX",
      "MB_LEN_MAX", "INT8_MIN", "INT8_MAX", "UINT8_MAX", "INT16_MIN",
      "INT16_MAX", "UINT16_MAX", "INT32_MIN", "INT32_MAX", "UINT32_MAX",
      "INT64_MIN", "INT64_MAX", "UINT64_MAX", "INT8_C", "INT16_C", "INT32_C",
      "INT64_C", "UINT8_C", "UINT16_C", "UINT32_C", "UINT64_C", "INTMAX_C",
      "UINTMAX_C", "INTMAX_MIN", "INTMAX_MAX", "UINTMAX_MAX", "INTPTR_MIN",
      "INTPTR_MAX", "UINTPTR_MAX", "SIZE_MAX", "PTRDIFF_MIN", "PTRDIFF_MAX",
      "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN", "WCHAR_MAX",
      "WINT_MIN", "WINT_MAX", "FLT_EPSILON", "FLT_MAX", "FLT_MIN",
      "DBL_EPSILON", "DBL_MAX", "DBL_MIN", "FLT_RADIX", "CLOCKS_PER_SEC",
      "offsetof", "setjmp", "va_arg", "va_copy", "va_end", "va_start",
      "isfinite", "isinf", "isnan", "isnormal", "signbit", "fpclassify",
      // Predefined by GCC and Clang in their GNU modes.
      "linux", "unix", "i386"};
  return macros.contains(name);
}

static bool isCppKeywordOrReserved(StringRef name) {
  static const llvm::StringSet<> reserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
      "bitor", "bool", "break", "case", "catch", "char", "char16_t",
      "char32_t", "class", "compl", "const", "constexpr", "const_cast",
      "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int",
      "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
      "register", "reinterpret_cast", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef",
      "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "wchar_t", "while", "xor", "xor_eq",
      // Names the emitted code itself uses.
      "ksc", "ksc_kernels", "std", "int8_t", "int16_t", "int32_t",
      "int64_t", "uint32_t", "size_t", "main"};
  return reserved.contains(name) || isMacroOfRuntimeHeaders(name);
}

std::string Emitter::uniqueName(StringRef base) {
  std::string name;
  for (char c : base)
    name += (isalnum(c) || c == '_') ? c : '_';
  if (name.empty() || isdigit(name[0]))
    name = "v" + name;
  if (isCppKeywordOrReserved(name) || StringRef(name).starts_with("__"))
    name += "_";
  // Names of closed scopes can be taken again; names visible here cannot,
  // so no variable ever shadows another.
  auto taken = [&](StringRef candidate) {
    return reservedNames.contains(candidate) || openNames.lookup(candidate);
  };
  std::string candidate = name;
  for (unsigned i = 1; taken(candidate); ++i)
    candidate = name + "_" + std::to_string(i);
  return candidate;
}

void Emitter::popScope() {
  for (unsigned var : scopes.back())
    --openNames[vars[var].name];
  scopes.pop_back();
}

unsigned Emitter::newVar(StringRef baseName, Type type) {
  // Unnamed temporaries: `cond` for conditions, `t` for the rest.
  StringRef base = !baseName.empty()           ? baseName
                   : type.isSignlessInteger(1) ? StringRef("cond")
                                               : StringRef("t");
  vars.push_back(Var{uniqueName(base), base.str(), type, Value()});
  ++openNames[vars.back().name];
  scopes.back().push_back(vars.size() - 1);
  return vars.size() - 1;
}

void Emitter::bindVar(Value value, unsigned var) {
  varOf[value] = var;
  vars[var].current = value;
}

std::string Emitter::declare(unsigned var) {
  FailureOr<std::string> type =
      typeName(vars[var].type, UnknownLoc::get(module.getContext()));
  if (failed(type)) {
    hadError = true;
    return "<error> " + vars[var].name;
  }
  return *type + " " + vars[var].name;
}

std::string Emitter::chooseName(Value value) {
  Operation *def = value.getDefiningOp();
  SmallVector<StringRef, 1> names =
      def ? getNamesFromLoc(def->getLoc()) : SmallVector<StringRef, 1>();
  for (StringRef name : names) {
    bool conflict = llvm::any_of(assignments.lookup(name), [&](Operation *op) {
      return op != def && executesAfter(op, def) && isLiveAfter(value, op);
    });
    if (!conflict)
      return name.str();
  }
  return names.empty() ? "" : names.front().str();
}

std::optional<unsigned> Emitter::findReusableVar(StringRef name, Type type,
                                                 Operation *at) {
  for (auto &scope : llvm::reverse(scopes))
    for (unsigned var : llvm::reverse(scope)) {
      Var &v = vars[var];
      if (v.baseName != name || v.type != type)
        continue;
      if (!v.current || !isLiveAfter(v.current, at))
        return var;
      // The most recent variable of this name is still needed.
      return std::nullopt;
    }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

bool Emitter::hasWriteEffects(Operation &op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return !isPureFunction(call.getCallee());
  if (isa<ks::CheckBoundsOp>(op))
    return true;
  if (op.getNumRegions() != 0) {
    // Region operations write what their bodies write.
    WalkResult result = op.walk([&](Operation *nested) {
      if (nested != &op && nested->getNumRegions() == 0 &&
          hasWriteEffects(*nested))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return result.wasInterrupted();
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !op.hasTrait<OpTrait::IsTerminator>() &&
           !op.hasTrait<OpTrait::ConstantLike>();
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Free>() ||
         effects.hasEffect<MemoryEffects::Allocate>();
}

bool Emitter::isPureFunction(StringRef name) {
  if (auto it = pureFunctions.find(name); it != pureFunctions.end())
    return it->second;
  auto func = module.lookupSymbol<func::FuncOp>(name);
  // Recursion is rejected by the frontend; be conservative while analyzing.
  pureFunctions[name] = false;
  bool pure = func && !func.isExternal();
  if (pure)
    func.walk([&](Operation *op) {
      if (op->getNumRegions() == 0 && hasWriteEffects(*op))
        pure = false;
    });
  pureFunctions[name] = pure;
  return pure;
}

/// The block and region structure that `analyzeFunction` inlines into
/// expressions: `scf.if` whose regions compute one value with expression
/// operations only.
static bool isExpressionIfShape(scf::IfOp op) {
  if (op.getNumResults() != 1 || op.getElseRegion().empty())
    return false;
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()})
    for (Operation &inner : region->front().without_terminator()) {
      if (inner.getNumResults() != 1 || !inner.getResult(0).hasOneUse())
        return false;
      if (inner.getResult(0).getUsers().begin()->getBlock() !=
          inner.getBlock())
        return false;
      if (auto nested = dyn_cast<scf::IfOp>(inner)) {
        if (!isExpressionIfShape(nested))
          return false;
      } else if (inner.getNumRegions() != 0) {
        return false;
      }
    }
  return true;
}

bool Emitter::isExpressionOp(Operation &op) {
  if (op.getNumResults() != 1)
    return false;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (!isExpressionIfShape(ifOp))
      return false;
    // Everything inside must itself be an expression without side effects.
    WalkResult result = ifOp.walk([&](Operation *inner) {
      if (inner == ifOp.getOperation() ||
          inner->hasTrait<OpTrait::IsTerminator>())
        return WalkResult::advance();
      if (!isExpressionOp(*inner) || hasWriteEffects(*inner))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return !result.wasInterrupted();
  }
  if (auto call = dyn_cast<func::CallOp>(op))
    return true;
  Dialect *dialect = op.getDialect();
  if (!dialect)
    return false;
  StringRef ns = dialect->getNamespace();
  if (ns == "arith" || ns == "math")
    return true;
  return isa<ks::LoadOp, ks::DimOp, ks::AsConstOp>(op);
}

/// Whether evaluating `op` where it is printed reads memory.
static bool readsMemoryAt(Operation &op,
                          const llvm::DenseMap<Operation *, bool> &memo) {
  if (isa<ks::LoadOp, func::CallOp>(op))
    return true;
  bool reads = false;
  op.walk([&](Operation *inner) {
    if (inner != &op && isa<ks::LoadOp, func::CallOp>(inner))
      reads = true;
  });
  for (Value operand : op.getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (auto it = memo.find(def); it != memo.end())
        reads |= it->second;
  return reads;
}

void Emitter::analyzeFunction(func::FuncOp func) {
  inlined.clear();
  sites.clear();
  assignments.clear();
  func.walk([&](Operation *op) {
    if (op->getNumResults() == 1) {
      if (StringRef name = getNameFromLoc(op->getLoc()); !name.empty())
        assignments[name].push_back(op);
    } else if (auto names = op->getAttrOfType<ArrayAttr>("ks.names")) {
      for (Attribute name : names)
        if (auto str = dyn_cast<StringAttr>(name))
          assignments[str.getValue()].push_back(op);
    }
  });
  llvm::DenseMap<Operation *, bool> inlinedReadsMemory;

  // Operations of an expression `scf.if` are part of its expression.
  std::function<void(Block &)> analyzeBlock = [&](Block &block) {
    for (Operation &op : block) {
      bool isExpr = isExpressionOp(op);
      if (isExpr && isa<scf::IfOp>(op)) {
        op.walk([&](Operation *inner) {
          if (inner != &op && !inner->hasTrait<OpTrait::IsTerminator>())
            inlined.insert(inner);
        });
      } else {
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            analyzeBlock(nested);
      }
      if (!isExpr)
        continue;

      Value result = op.getResult(0);
      bool readsMemory = readsMemoryAt(op, inlinedReadsMemory);
      auto decide = [&]() {
        if (op.hasTrait<OpTrait::ConstantLike>())
          return getSourceName(result).empty() ||
                 !llvm::hasNItemsOrMore(result.getUses(), 2);
        if (!result.hasOneUse() || !getSourceName(result).empty())
          return false;
        Operation *user = *result.getUsers().begin();
        if (user->getBlock() != op.getBlock())
          return false;
        for (Operation *between = op.getNextNode(); between != user;
             between = between->getNextNode())
          if (between->getNumRegions() != 0 || hasWriteEffects(*between))
            return false;
        if (hasWriteEffects(op))
          return user == op.getNextNode();
        // A loop bound that reads memory would be re-read every iteration.
        if (auto loop = dyn_cast<scf::ForOp>(user))
          if (readsMemory && (result == loop.getUpperBound() ||
                              result == loop.getStep()))
            return false;
        return true;
      };
      if (decide()) {
        inlined.insert(&op);
        inlinedReadsMemory[&op] = readsMemory;
      }
    }
  };
  for (Block &block : func.getBody())
    analyzeBlock(block);

  // Where is the text that reads each operand printed?
  auto effectiveSite = [&](Operation *user, Value used) -> Operation * {
    while (true) {
      if (auto loop = dyn_cast<scf::ForOp>(user))
        if (used == loop.getUpperBound() || used == loop.getStep())
          // Re-evaluated by the C++ loop condition on every iteration.
          return loop.getBody()->getTerminator();
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        Operation *parent = user->getParentOp();
        if (parent && isInlined(parent) && isa<scf::IfOp>(parent)) {
          used = parent->getResult(0);
          user = parent;
        } else {
          return user;
        }
      }
      if (!isInlined(user))
        return user;
      Value result = user->getResult(0);
      if (result.use_empty())
        return user;
      used = result;
      user = *result.getUsers().begin();
    }
  };
  func.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      sites[operand].push_back(effectiveSite(op, operand));
  });
}

/// Whether `site` can execute after `point` in the same activation of the
/// function (ignoring back edges of loops, handled by the caller). `site`
/// is neither `point` nor nested in it.
static bool executesAfter(Operation *site, Operation *point) {
  for (Operation *p = point; p && !isa<func::FuncOp>(p);
       p = p->getParentOp()) {
    Block *block = p->getBlock();
    Operation *s = block->findAncestorOpInBlock(*site);
    if (!s)
      continue;
    if (s != p)
      return p->isBeforeInBlock(s);
    // Both are inside `p`, in different regions.
    if (isa<scf::IfOp>(p))
      return false;
    return true;
  }
  return false;
}

static bool isLoop(Operation *op) { return isa<scf::ForOp, scf::WhileOp>(op); }

static bool isDefinedInside(Value value, Operation *op) {
  Operation *def = value.getParentBlock()->getParentOp();
  return op->isAncestor(def);
}

bool Emitter::isLiveAfter(Value value, Operation *point) {
  auto it = sites.find(value);
  if (it == sites.end())
    return false;
  for (Operation *site : it->second) {
    if (site == point || point->isAncestor(site))
      continue;
    if (executesAfter(site, point))
      return true;
  }
  // A value defined outside a loop and read inside it is read again by the
  // next iteration.
  for (Operation *loop = point->getParentOp();
       loop && !isa<func::FuncOp>(loop); loop = loop->getParentOp()) {
    if (!isLoop(loop) || isDefinedInside(value, loop))
      continue;
    for (Operation *site : it->second)
      if (loop->isProperAncestor(site))
        return true;
  }
  return false;
}

bool Emitter::isUsedInside(Value value, Operation *op) {
  auto it = sites.find(value);
  if (it == sites.end())
    return false;
  return llvm::any_of(it->second, [&](Operation *site) {
    return op->isProperAncestor(site);
  });
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult Emitter::bindResult(Operation &op, Expr expr) {
  Value result = op.getResult(0);
  if (isInlined(&op)) {
    exprOf[result] = std::move(expr);
    return success();
  }
  if (result.use_empty()) {
    // Dead values are not printed; calls with effects are.
    if (hasWriteEffects(op))
      os << expr.text << ";\n";
    return success();
  }

  auto assign = [&](unsigned var) {
    os << vars[var].name << " = " << expr.text << ";\n";
    bindVar(result, var);
  };
  // A value a yield will copy into a slot is computed there directly, or
  // else into `<slot>_next`.
  StringRef name = getSourceName(result);
  std::string nextName;
  if (auto it = preferredSlot.find(result); it != preferredSlot.end()) {
    Var &slot = vars[it->second];
    if (!slot.current || !isLiveAfter(slot.current, &op)) {
      assign(it->second);
      return success();
    }
    nextName = slot.baseName + "_next";
  }
  if (!nextName.empty()) {
    unsigned var = newVar(nextName, result.getType());
    os << declare(var) << " = " << expr.text << ";\n";
    bindVar(result, var);
    return success();
  }
  // A new value of a source variable reuses its C++ variable.
  if (!name.empty())
    if (std::optional<unsigned> var =
            findReusableVar(name, result.getType(), &op)) {
      assign(*var);
      return success();
    }
  unsigned var = newVar(chooseName(result), result.getType());
  os << declare(var) << " = " << expr.text << ";\n";
  bindVar(result, var);
  return success();
}

LogicalResult Emitter::emitBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(emitOperation(op)))
      return failure();
  return success();
}

LogicalResult Emitter::emitOperation(Operation &op) {
  if (isExpressionOp(op)) {
    FailureOr<Expr> expr = buildExpr(op);
    if (failed(expr))
      return failure();
    return bindResult(op, std::move(*expr));
  }
  if (isa<scf::IfOp, scf::ForOp, scf::WhileOp>(op))
    return emitScfOp(op);
  if (isa<ks::StoreOp, ks::CheckBoundsOp>(op))
    return emitKsStatement(op);
  if (auto callOp = dyn_cast<func::CallOp>(op)) {
    if (callOp.getNumResults() != 0)
      return op.emitError("cannot emit a call with ")
             << callOp.getNumResults() << " results as C++";
    os << call(calleeName(callOp.getCallee()), callOp.getOperands()).text
       << ";\n";
    return success();
  }
  return op.emitError("cannot emit '")
         << op.getName() << "' as C++ (not supported by the C++ emitter)";
}

FailureOr<Expr> Emitter::buildExpr(Operation &op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return buildCallExpr(call);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return buildIfExpr(ifOp);
  StringRef ns = op.getDialect()->getNamespace();
  if (ns == "arith")
    return buildArithExpr(op);
  if (ns == "math")
    return buildMathExpr(op);
  return buildKsExpr(op);
}

LogicalResult Emitter::emitScope(Block &block,
                                 function_ref<LogicalResult()> terminator) {
  pushScope();
  os.indent();
  LogicalResult result = emitBlock(block);
  if (succeeded(result) && terminator)
    result = terminator();
  os.unindent();
  popScope();
  // Values defined in the block are gone; their variables are free.
  for (Var &var : vars)
    if (var.current && block.getParent()->isAncestor(
                           var.current.getParentBlock()->getParent()))
      var.current = Value();
  return result;
}

LogicalResult Emitter::capture(std::string &text,
                               function_ref<LogicalResult()> fn) {
  std::string saved;
  std::swap(saved, output);
  LogicalResult result = fn();
  text = std::move(output);
  output = std::move(saved);
  return result;
}

SmallVector<Value> Emitter::saveVarState() const {
  SmallVector<Value> state;
  for (const Var &var : vars)
    state.push_back(var.current);
  return state;
}

void Emitter::restoreVarState(ArrayRef<Value> state) {
  for (auto [var, value] : llvm::zip(vars, state))
    var.current = value;
}

void Emitter::preferSlots(Block &block, ArrayRef<unsigned> slots) {
  Operation *terminator = block.getTerminator();
  ValueRange values = isa<scf::ConditionOp>(terminator)
                          ? cast<scf::ConditionOp>(terminator).getArgs()
                          : terminator->getOperands();
  for (auto [slot, value] : llvm::zip(slots, values)) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &block || isInlined(def))
      continue;
    if (llvm::count(values, value) != 1 || preferredSlot.count(value))
      continue;
    StringRef name = getSourceName(value);
    if (!name.empty() && name != vars[slot].baseName)
      continue;
    preferredSlot[value] = slot;
  }
}

LogicalResult Emitter::assignSlots(ArrayRef<unsigned> slots,
                                   ValueRange values) {
  struct Copy {
    unsigned dst;
    Expr src;
  };
  SmallVector<Copy> pending;
  for (auto [slot, value] : llvm::zip(slots, values)) {
    auto it = varOf.find(value);
    if (it != varOf.end() && it->second == slot &&
        vars[slot].current == value)
      continue;
    pending.push_back({slot, valueExpr(value)});
  }
  auto readByOthers = [&](size_t index) {
    for (size_t j = 0; j < pending.size(); ++j)
      if (j != index && llvm::is_contained(pending[j].src.reads,
                                           pending[index].dst))
        return true;
    return false;
  };
  while (!pending.empty()) {
    size_t next = 0;
    while (next < pending.size() && readByOthers(next))
      ++next;
    if (next == pending.size()) {
      // A cycle (e.g. a swap): read every source into a temporary first.
      for (Copy &copy : pending) {
        unsigned temp = newVar(vars[copy.dst].baseName + "_next",
                               vars[copy.dst].type);
        os << declare(temp) << " = " << copy.src.text << ";\n";
        copy.src = Expr(vars[temp].name, kPrimary);
        copy.src.reads.push_back(temp);
      }
      continue;
    }
    os << vars[pending[next].dst].name << " = " << pending[next].src.text
       << ";\n";
    pending.erase(pending.begin() + next);
  }
  return success();
}

FailureOr<SmallVector<unsigned>>
Emitter::makeSlots(Operation *op, TypeRange types, ArrayRef<std::string> names,
                   ValueRange inits, ArrayRef<SmallVector<Value>> candidates) {
  SmallVector<unsigned> slots;
  llvm::SmallDenseSet<unsigned> taken;
  for (auto [index, type] : llvm::enumerate(types)) {
    StringRef name = names[index];
    // Reuse the variable of a value that dies here.
    std::optional<unsigned> reuse;
    for (Value candidate : candidates[index]) {
      auto it = varOf.find(candidate);
      if (it == varOf.end() || taken.contains(it->second))
        continue;
      Var &var = vars[it->second];
      if (var.current != candidate || var.type != type ||
          (!name.empty() && var.baseName != name))
        continue;
      if (isLiveAfter(candidate, op) ||
          llvm::count(op->getOperands(), candidate) > 1)
        continue;
      // For loops the initial value must not be read in the loop.
      if (!inits.empty() && isUsedInside(candidate, op))
        continue;
      reuse = it->second;
      break;
    }
    if (reuse) {
      taken.insert(*reuse);
      slots.push_back(*reuse);
      continue;
    }
    unsigned var = newVar(name, type);
    taken.insert(var);
    slots.push_back(var);
    if (inits.empty()) {
      os << declare(var) << ";\n";
    } else {
      os << declare(var) << " = " << valueExpr(inits[index]).text << ";\n";
      vars[var].current = inits[index];
    }
  }
  return slots;
}
