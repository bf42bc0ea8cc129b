//===- Variables.cpp - C++ variables for SSA values -------------------===//
//
// Part of ksc. Naming, reuse of variables and the slots of scf results; see
// Emitter.h.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

bool ksc::cpp::isMacroOfRuntimeHeaders(StringRef name) {
  // Macros of the C and C++ standard library headers (C17 annex B, <cmath>'s
  // POSIX constants, glibc's), which the runtime header brings in: a
  // variable or function with one of these names would not compile.
  static const llvm::StringSet<> macros = {
      "assert", "errno", "NULL", "EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX",
      "L_tmpnam", "SEEK_CUR", "SEEK_END", "SEEK_SET", "TMP_MAX", "stdin",
      "stdout", "stderr", "EXIT_FAILURE", "EXIT_SUCCESS", "MB_CUR_MAX",
      "RAND_MAX", "EDOM", "EILSEQ", "ERANGE", "HUGE_VAL", "HUGE_VALF",
      "HUGE_VALL", "INFINITY", "NAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL",
      "FP_SUBNORMAL", "FP_ZERO", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL",
      "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO", "MATH_ERREXCEPT",
      "math_errhandling", "M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10",
      "M_PI", "M_PI_2", "M_PI_4", "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_SQRT2",
      "M_SQRT1_2", "CHAR_BIT", "CHAR_MIN", "CHAR_MAX", "SCHAR_MIN", "SCHAR_MAX",
      "UCHAR_MAX", "SHRT_MIN", "SHRT_MAX", "USHRT_MAX", "INT_MIN", "INT_MAX",
      "UINT_MAX", "LONG_MIN", "LONG_MAX", "ULONG_MAX", "LLONG_MIN", "LLONG_MAX",
      "ULLONG_MAX", "MB_LEN_MAX", "INT8_MIN", "INT8_MAX", "UINT8_MAX",
      "INT16_MIN", "INT16_MAX", "UINT16_MAX", "INT32_MIN", "INT32_MAX",
      "UINT32_MAX", "INT64_MIN", "INT64_MAX", "UINT64_MAX", "INT8_C", "INT16_C",
      "INT32_C", "INT64_C", "UINT8_C", "UINT16_C", "UINT32_C", "UINT64_C",
      "INTMAX_C", "UINTMAX_C", "INTMAX_MIN", "INTMAX_MAX", "UINTMAX_MAX",
      "INTPTR_MIN", "INTPTR_MAX", "UINTPTR_MAX", "SIZE_MAX", "PTRDIFF_MIN",
      "PTRDIFF_MAX", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN",
      "WCHAR_MAX", "WINT_MIN", "WINT_MAX", "FLT_EPSILON", "FLT_MAX", "FLT_MIN",
      "DBL_EPSILON", "DBL_MAX", "DBL_MIN", "FLT_RADIX", "CLOCKS_PER_SEC",
      "offsetof", "setjmp", "va_arg", "va_copy", "va_end", "va_start",
      "isfinite", "isinf", "isnan", "isnormal", "signbit", "fpclassify",
      // Predefined by GCC and Clang in their GNU modes.
      "linux", "unix", "i386"};
  return macros.contains(name);
}

std::string ksc::getCppFunctionName(StringRef symbol) {
  return isMacroOfRuntimeHeaders(symbol) ? (symbol + "_").str() : symbol.str();
}

static bool isCppKeywordOrReserved(StringRef name) {
  static const llvm::StringSet<> reserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class",
      "compl", "const", "constexpr", "const_cast", "continue", "decltype",
      "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
      "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try",
      "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
      "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // Names the emitted code itself uses.
      "ksc", "ksc_kernels", "std", "int8_t", "int16_t", "int32_t", "int64_t",
      "uint32_t", "size_t", "main"};
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
  // The search starts where the last one for `name` ended (all suffixes
  // below it taken), so many variables of one name cost linear time.
  unsigned &first = firstFreeSuffix[name];
  auto candidateAt = [&](unsigned i) {
    return i == 0 ? name : name + "_" + std::to_string(i);
  };
  while (taken(candidateAt(first)))
    ++first;
  return candidateAt(first);
}

void Emitter::popScope() {
  for (unsigned var : llvm::reverse(scopes.back())) {
    auto &open = openVarsByBaseName[vars[var].baseName];
    assert(open.back().second == var && "scopes close innermost first");
    open.pop_back();
    StringRef name = vars[var].name;
    if (--openNames[name] != 0)
      continue;
    // The name is free again: so is the suffix it may be of another name.
    auto lower = [&](StringRef base, unsigned suffix) {
      auto it = firstFreeSuffix.find(base);
      if (it != firstFreeSuffix.end())
        it->second = std::min(it->second, suffix);
    };
    lower(name, 0);
    auto [base, digits] = name.rsplit('_');
    unsigned suffix;
    if (!digits.empty() && !digits.getAsInteger(10, suffix))
      lower(base, suffix);
  }
  scopes.pop_back();
}

unsigned Emitter::newVar(StringRef baseName, Type type) {
  // Unnamed temporaries: `cond` for conditions, `t` for the rest.
  StringRef base = !baseName.empty()           ? baseName
                   : type.isSignlessInteger(1) ? StringRef("cond")
                                               : StringRef("t");
  vars.push_back(Var{uniqueName(base), base.str(), type, Value()});
  ++openNames[vars.back().name];
  // After the variables of its scope and outer ones: while printing a
  // loop's condition, a variable can be declared before the loop's body.
  auto &open = openVarsByBaseName[base];
  unsigned depth = scopes.size() - 1;
  auto *position = open.end();
  while (position != open.begin() && std::prev(position)->first > depth)
    --position;
  open.insert(position, {depth, unsigned(vars.size() - 1)});
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
  if (names.empty())
    if (StringRef name = getSourceName(value); !name.empty())
      names.push_back(name);
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
  auto it = openVarsByBaseName.find(name);
  if (it == openVarsByBaseName.end())
    return std::nullopt;
  for (unsigned var : llvm::make_second_range(llvm::reverse(it->second))) {
    Var &v = vars[var];
    if (v.type != type || !v.reusable)
      continue;
    if (!v.current || !isLiveAfter(v.current, at))
      return var;
    // The most recent variable of this name is still needed.
    return std::nullopt;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Slots
//===----------------------------------------------------------------------===//

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
  preferSlots(block, slots, values);
}

void Emitter::preferSlots(Block &block, ArrayRef<unsigned> slots,
                          ValueRange values) {
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
    if (it != varOf.end() && it->second == slot && vars[slot].current == value)
      continue;
    pending.push_back(
        {slot, value.getType().isSignlessInteger(32)
                   ? operandAs(value, isUnsignedType(vars[slot].type))
                   : valueExpr(value)});
  }
  auto readByOthers = [&](size_t index) {
    for (size_t j = 0; j < pending.size(); ++j)
      if (j != index &&
          llvm::is_contained(pending[j].src.reads, pending[index].dst))
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
        unsigned temp =
            newVar(vars[copy.dst].baseName + "_next", vars[copy.dst].type);
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
      if (!var.reusable || var.current != candidate || var.type != type ||
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
      Expr init = inits[index].getType().isSignlessInteger(32)
                      ? operandAs(inits[index], isUnsignedType(type))
                      : valueExpr(inits[index]);
      os << declare(var) << " = " << init.text << ";\n";
      vars[var].current = inits[index];
    }
  }
  return slots;
}

std::string ksc::checkCppNamespace(StringRef name) {
  if (name.empty())
    return "it is empty";
  if (name.starts_with("::"))
    return "it must not start with '::' (it is always under the global one)";
  SmallVector<StringRef> components;
  name.split(components, "::");
  for (StringRef component : components) {
    if (!cpp::isCppIdentifier(component))
      return ("'" + component + "' is not a C++ identifier").str();
    // Reserved: __ anywhere, _ and an uppercase letter first. The C symbols
    // join the components with `__`, which is unique only because of this.
    if (component.contains("__") ||
        (component.size() > 1 && component[0] == '_' && isupper(component[1])))
      return ("'" + component +
              "' is an identifier C++ reserves (it contains '__' or starts "
              "with '_' and an uppercase letter)")
          .str();
    // Also the names the CUDA C++ uses unqualified: inside a namespace of
    // that name, lookup would find the namespace instead.
    static const llvm::StringSet<> cudaNames = {
        "blockIdx",    "blockDim",     "threadIdx",       "gridDim",
        "dim3",        "CUstream_st",  "cudaLaunchKernel", "cudaStream_t",
        "cudaError_t", "cudaSuccess",  "cudaErrorInvalidValue"};
    if (isCppKeywordOrReserved(component) || cudaNames.contains(component))
      return ("'" + component +
              "' is a C++ keyword or a name the emitted code uses")
          .str();
  }
  return "";
}
