//===- WarpPrinter.cpp - Kernel files as NVIDIA Warp Python -----------===//
//
// Part of ksc. Walks the Clang AST of an accepted kernel file and writes
// the same kernels in NVIDIA Warp's Python dialect (docs/warp.md).
//
// Warp differs from C++ in ways the walk takes care of:
//   - nothing converts implicitly, so every implicit conversion Clang made
//     is printed (`float(i)`, `wp.float64(x)`), and literals get the type
//     C++ gave them;
//   - a variable bound to a literal is a constant, which a dynamic loop
//     cannot change: declarations and assignments of literals go through
//     the type's constructor (`acc = float(0.0)`);
//   - Python has one scope per function: a declaration that would shadow a
//     live variable, or reuse a name with another type, gets a fresh name;
//   - there are no do-while loops and no C-style for loops: counted loops
//     with an invariant bound become `range`, the others `while` loops that
//     run the increment (or test the condition) before each `continue`.
//
//===----------------------------------------------------------------------===//

#include "WarpPrinter.h"

#include "CodeGen.h"

#include "ksc/Config.h"
#include "ksc/Support/Escape.h"

#include "mlir/IR/SymbolTable.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

using namespace clang;
using namespace ksc::frontend;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

/// Python's operator precedence, lowest first.
enum Prec : int {
  PIfElse = 1,
  POr,
  PAnd,
  PNot,
  PCmp,
  PBitOr,
  PBitXor,
  PBitAnd,
  PShift,
  PAdd,
  PMul,
  PUnary,
  PAtom,
};

/// A printed Python expression and how tightly it binds.
struct Py {
  std::string text;
  int prec = PAtom;
};

/// Names a kernel file may use that Python or the module itself reserves.
bool isReservedPythonName(StringRef name) {
  static const llvm::StringSet<> moduleNames = {
      "wp",  "range", "float", "int", "bool",
      "print", "len", "type",  "Any"};
  return ksc::isPythonKeyword(name) || moduleNames.contains(name);
}

/// `name` spelled as a Python identifier, not yet unique (allocateNames):
/// a reserved word gets a trailing `_` (`lambda_`), and a character
/// outside ASCII is written `_uXXXX_` (`\u{fb01}` as `_ufb01_`): Python
/// would fold it by NFKC (`\u{fb01}` and `fi` are one name there) and
/// Warp's generated C++ wants ASCII.
std::string pythonName(StringRef name) {
  if (llvm::all_of(name, [](char c) { return isASCII(c); }))
    return isReservedPythonName(name) ? (name + "_").str() : name.str();
  std::string spelled;
  const auto *next = reinterpret_cast<const llvm::UTF8 *>(name.begin());
  const auto *end = reinterpret_cast<const llvm::UTF8 *>(name.end());
  while (next < end) {
    if (isASCII(static_cast<char>(*next))) {
      spelled += static_cast<char>(*next++);
      continue;
    }
    llvm::UTF32 codePoint;
    if (llvm::convertUTF8Sequence(&next, end, &codePoint,
                                  llvm::strictConversion) !=
        llvm::conversionOK)
      codePoint = *next++; // (Clang accepted no such name.)
    spelled += llvm::formatv("_u{0:x-4}_", codePoint).str();
  }
  return spelled;
}

/// Python names for `names` (in order), unique among themselves and the
/// names in `taken`, which they join: a name Python takes as it is keeps
/// it; then the others get their spelling (pythonName), with `_2`, `_3`,
/// ... when that is taken (`lambda` becomes `lambda__2` when the file has
/// a `lambda_`).
std::vector<std::string> allocateNames(ArrayRef<std::string> names,
                                       llvm::StringSet<> &taken) {
  std::vector<std::string> result(names.size());
  for (auto [name, python] : llvm::zip(names, result))
    if (pythonName(name) == name && taken.insert(name).second)
      python = name;
  for (auto [name, python] : llvm::zip(names, result)) {
    if (!python.empty())
      continue;
    std::string base = pythonName(name);
    python = base;
    for (unsigned n = 2; !taken.insert(python).second; ++n)
      python = base + "_" + std::to_string(n);
  }
  return result;
}

/// `expr` without the nodes that do not change what it computes.
const Expr *strip(const Expr *expr) {
  while (true) {
    expr = expr->IgnoreParens();
    if (auto *cast = dyn_cast<ImplicitCastExpr>(expr)) {
      CastKind kind = cast->getCastKind();
      if (kind != CK_LValueToRValue && kind != CK_NoOp &&
          kind != CK_ConstructorConversion && kind != CK_UserDefinedConversion)
        return expr;
      expr = cast->getSubExpr();
    } else if (auto *temp = dyn_cast<MaterializeTemporaryExpr>(expr)) {
      expr = temp->getSubExpr();
    } else if (auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr)) {
      expr = bind->getSubExpr();
    } else if (auto *cleanups = dyn_cast<ExprWithCleanups>(expr)) {
      expr = cleanups->getSubExpr();
    } else if (auto *constant = dyn_cast<ConstantExpr>(expr)) {
      expr = constant->getSubExpr();
    } else if (auto *subst = dyn_cast<SubstNonTypeTemplateParmExpr>(expr)) {
      expr = subst->getReplacement();
    } else {
      return expr;
    }
  }
}

/// The variables a statement assigns (declarations, assignments,
/// increments and the state arguments of random builtins).
class AssignedVars : public RecursiveASTVisitor<AssignedVars> {
public:
  llvm::DenseSet<const ValueDecl *> vars;

  bool VisitBinaryOperator(BinaryOperator *op) {
    if (op->isAssignmentOp())
      add(op->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *op) {
    if (op->isIncrementDecrementOp())
      add(op->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *call) {
    if (call->isAssignmentOp())
      add(call->getArg(0));
    return true;
  }
  bool VisitCallExpr(CallExpr *call) {
    // Random builtins and in-out parameters write their arguments.
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || isa<CXXOperatorCallExpr, CXXMemberCallExpr>(call))
      return true;
    for (auto [param, arg] : llvm::zip(callee->parameters(), call->arguments()))
      if (isInoutParam(param))
        add(arg);
    return true;
  }

private:
  void add(const Expr *target) {
    if (auto *ref = dyn_cast<DeclRefExpr>(strip(assignedObject(target))))
      vars.insert(ref->getDecl());
  }
};

class WarpPrinter {
public:
  WarpPrinter(ModuleBuilder &mb, FileID file) : mb(mb), file(file) {}

  bool print(StringRef fileName, std::string &text, std::string &error);

private:
  // Declarations.
  void printStruct(const CXXRecordDecl *record);
  void printFunction(const FunctionDecl *decl, FunctionKind kind);
  std::string functionName(const FunctionDecl *decl);
  /// Names every struct and function of the file, once, before printing.
  void nameModule();
  /// The file's own top-level declarations, in order: not the prelude's,
  /// not implicit ones.
  SmallVector<Decl *> fileDecls() const;
  std::string fieldName(const FieldDecl *field);

  // Types.
  std::string typeName(QualType type, SourceLocation loc);
  std::optional<std::string> scalarName(QualType type);
  std::string zeroValue(QualType type, SourceLocation loc);

  // Expressions.
  Py expr(const Expr *e);
  Py operand(const Expr *e, int prec) { return paren(expr(e), prec); }
  static Py paren(Py py, int prec);
  static Py binary(Py lhs, StringRef op, Py rhs, int prec, bool chains);
  Py convert(const Expr *sub, QualType to, bool explicitCast);
  Py conversion(const CastExpr *cast, bool explicitCast);
  Py literalAs(const Expr *literal, QualType to);
  std::optional<Py> literal(const Expr *e);
  Py floatLiteral(const FloatingLiteral *lit);
  Py unary(const UnaryOperator *op);
  Py binaryOperator(const BinaryOperator *op);
  Py operatorCall(const CXXOperatorCallExpr *call);
  Py subscript(const CXXOperatorCallExpr *call);
  Py call(const CallExpr *call);
  Py builtinCall(const CallExpr *call, const FunctionDecl *callee);
  Py construct(const CXXConstructExpr *construct);
  Py initList(const InitListExpr *list);
  std::string arguments(llvm::ArrayRef<const Expr *> args);

  // Statements.
  void stmt(const Stmt *s);
  /// Prints `body` one level deeper in a scope of its own, then `tail`
  /// (the statements a loop runs after its body); `pass` if that prints
  /// nothing.
  void block(const Stmt *body, llvm::function_ref<void()> tail = nullptr);
  void exprStmt(const Expr *e);
  void assign(const Expr *lhs, const Expr *rhs);
  void declare(const VarDecl *var);
  void ifStmt(const IfStmt *s, StringRef keyword);
  void forStmt(const ForStmt *s);
  bool rangeFor(const ForStmt *s);
  void whileLoop(const Expr *cond, const Stmt *body,
                 std::function<void()> beforeContinue, const Stmt *inc);
  void line(const llvm::Twine &text);

  // Names.
  std::string declareName(const ValueDecl *decl);
  /// Ends the innermost scope: its names are free again.
  void popScope();
  std::string nameOf(const ValueDecl *decl);

  /// Records the first construct Warp has no counterpart for.
  Py fail(SourceLocation loc, const llvm::Twine &what);

  ModuleBuilder &mb;
  FileID file;
  std::string out;
  unsigned indent = 0;
  unsigned linesInBlock = 0;
  std::string error;

  /// Module-level names: structs and functions (nameModule), and each
  /// struct's fields (fieldName).
  llvm::StringSet<> moduleNames;
  llvm::DenseMap<const RecordDecl *, std::string> structNames;
  llvm::DenseMap<const FunctionDecl *, std::string> functionNames;
  llvm::DenseMap<const FieldDecl *, std::string> fieldNames;
  /// The Python names of the current function's variables, the names live
  /// in the scopes being printed, and each name's type so far.
  llvm::DenseMap<const ValueDecl *, std::string> names;
  SmallVector<SmallVector<std::string, 4>> scopes;
  llvm::StringMap<unsigned> liveNames;
  llvm::StringMap<QualType> nameTypes;
  /// What each enclosing loop runs before `continue`.
  SmallVector<std::function<void()>> continueActions;
};

} // namespace

Py WarpPrinter::fail(SourceLocation loc, const llvm::Twine &what) {
  if (error.empty()) {
    PresumedLoc presumed = mb.sourceManager.getPresumedLoc(loc);
    std::string where =
        presumed.isValid()
            ? llvm::formatv("{0}:{1}:{2}: ", presumed.getFilename(),
                            presumed.getLine(), presumed.getColumn())
                  .str()
            : "";
    error = where + "error: no NVIDIA Warp counterpart: " + what.str();
    // The source line and a caret under the column, as Clang shows them.
    SourceLocation at = mb.sourceManager.getExpansionLoc(loc);
    bool invalid = false;
    StringRef buffer = mb.sourceManager.getBufferData(
        mb.sourceManager.getFileID(at), &invalid);
    if (!invalid && presumed.isValid()) {
      unsigned offset = mb.sourceManager.getFileOffset(at);
      size_t begin = buffer.rfind('\n', offset);
      begin = begin == StringRef::npos ? 0 : begin + 1;
      size_t end = buffer.find('\n', offset);
      error += "\n" + buffer.slice(begin, end).str() + "\n" +
               std::string(offset - begin, ' ') + "^";
    }
  }
  return {"_", PAtom};
}

void WarpPrinter::line(const llvm::Twine &text) {
  out.append(4 * indent, ' ');
  out += text.str();
  out += '\n';
  ++linesInBlock;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::string WarpPrinter::declareName(const ValueDecl *decl) {
  std::string base = pythonName(decl->getName());
  QualType type = decl->getType()
                      .getNonReferenceType()
                      .getCanonicalType()
                      .getUnqualifiedType();
  std::string name = base;
  for (unsigned n = 2;; ++n) {
    auto typed = nameTypes.find(name);
    bool clash = moduleNames.contains(name) || liveNames.lookup(name) ||
                 (typed != nameTypes.end() && typed->second != type);
    if (!clash)
      break;
    name = base + "_" + std::to_string(n);
  }
  names[decl] = name;
  nameTypes[name] = type;
  ++liveNames[name];
  if (!scopes.empty())
    scopes.back().push_back(name);
  return name;
}

std::string WarpPrinter::nameOf(const ValueDecl *decl) {
  auto it = names.find(decl);
  if (it != names.end())
    return it->second;
  fail(decl->getLocation(), "a variable declared outside the function");
  return "_";
}

std::string WarpPrinter::functionName(const FunctionDecl *decl) {
  auto it = functionNames.find(decl->getCanonicalDecl());
  if (it != functionNames.end())
    return it->second;
  return pythonName(decl->getName());
}

std::string WarpPrinter::fieldName(const FieldDecl *field) {
  // The x, y, z, w of vectors and quaternions, which Warp names the same.
  if (isProvidedHeader(mb.sourceManager, field->getLocation()))
    return field->getName().str();
  auto it = fieldNames.find(field);
  if (it != fieldNames.end())
    return it->second;
  // Each struct's fields are a namespace of their own.
  std::vector<std::string> sourceNames;
  for (const FieldDecl *other : field->getParent()->fields())
    sourceNames.push_back(other->getName().str());
  llvm::StringSet<> taken;
  std::vector<std::string> python = allocateNames(sourceNames, taken);
  for (auto [other, name] : llvm::zip(field->getParent()->fields(), python))
    fieldNames[other] = name;
  return fieldNames.lookup(field);
}

SmallVector<Decl *> WarpPrinter::fileDecls() const {
  SmallVector<Decl *> decls;
  for (Decl *decl : mb.ast.getTranslationUnitDecl()->noload_decls())
    if (!decl->isImplicit() &&
        !isProvidedHeader(mb.sourceManager, decl->getLocation()))
      decls.push_back(decl);
  return decls;
}

void WarpPrinter::nameModule() {
  // Structs, and functions by their ks symbols: template instances and
  // overloads have names of their own there (`scale_float`), which the
  // Warp module shares.
  SmallVector<const Decl *> decls;
  llvm::DenseSet<const Decl *> seen;
  std::vector<std::string> sourceNames;
  auto addFunction = [&](const FunctionDecl *function) {
    if (!seen.insert(function->getCanonicalDecl()).second)
      return;
    mlir::Operation *op = mb.lookupFunction(function);
    decls.push_back(function->getCanonicalDecl());
    sourceNames.push_back(
        op ? mlir::SymbolTable::getSymbolName(op).getValue().str()
           : function->getName().str());
  };
  for (Decl *decl : fileDecls()) {
    if (auto *record = dyn_cast<CXXRecordDecl>(decl)) {
      if (record->isThisDeclarationADefinition()) {
        decls.push_back(record);
        sourceNames.push_back(record->getName().str());
      }
    } else if (auto *tmpl = dyn_cast<FunctionTemplateDecl>(decl)) {
      for (const FunctionDecl *spec : tmpl->specializations())
        addFunction(spec);
    } else if (auto *function = dyn_cast<FunctionDecl>(decl)) {
      addFunction(function);
    }
  }
  std::vector<std::string> python = allocateNames(sourceNames, moduleNames);
  for (auto [decl, name] : llvm::zip(decls, python)) {
    if (auto *record = dyn_cast<RecordDecl>(decl))
      structNames[record] = name;
    else
      functionNames[cast<FunctionDecl>(decl)] = name;
  }
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

std::optional<std::string> WarpPrinter::scalarName(QualType type) {
  const auto *builtin =
      type.getNonReferenceType().getCanonicalType()->getAs<BuiltinType>();
  if (!builtin)
    return std::nullopt;
  switch (builtin->getKind()) {
  case BuiltinType::Float:
    return "float";
  case BuiltinType::Double:
    return "wp.float64";
  case BuiltinType::Int:
    return "int";
  case BuiltinType::Bool:
    return "bool";
  case BuiltinType::UInt:
    return "wp.uint32";
  case BuiltinType::Long:
  case BuiltinType::LongLong:
    return "wp.int64";
  default:
    return std::nullopt;
  }
}

/// The template arguments of the prelude's vec<N, T> and mat<N, T>.
static std::pair<int64_t, QualType> sizeAndElement(QualType type) {
  auto *spec = cast<ClassTemplateSpecializationDecl>(
      type.getNonReferenceType()->getAsCXXRecordDecl());
  const TemplateArgumentList &args = spec->getTemplateArgs();
  if (args.size() == 1) // quat_t<T>
    return {4, args[0].getAsType()};
  return {args[0].getAsIntegral().getSExtValue(), args[1].getAsType()};
}

std::string WarpPrinter::typeName(QualType type, SourceLocation loc) {
  type = type.getNonReferenceType();
  if (std::optional<std::string> scalar = scalarName(type))
    return *scalar;
  if (ModuleBuilder::isVectorType(type) || ModuleBuilder::isMatrixType(type) ||
      ModuleBuilder::isQuatType(type)) {
    auto [n, element] = sizeAndElement(type);
    std::optional<std::string> scalar = scalarName(element);
    std::string suffix = !scalar              ? "?"
                         : *scalar == "float" ? ""
                         : *scalar == "int"   ? "i"
                                              : "d";
    if (ModuleBuilder::isQuatType(type))
      return "wp.quat" + suffix;
    if (ModuleBuilder::isMatrixType(type))
      return llvm::formatv("wp.mat{0}{0}{1}", n, suffix).str();
    return llvm::formatv("wp.vec{0}{1}", n, suffix).str();
  }
  if (ModuleBuilder::isArrayType(type)) {
    auto *spec =
        cast<ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
    QualType element = spec->getTemplateArgs()[0].getAsType();
    int64_t rank = spec->getTemplateArgs()[1].getAsIntegral().getSExtValue();
    std::string dtype = typeName(element.getUnqualifiedType(), loc);
    if (rank == 1)
      return "wp.array(dtype=" + dtype + ")";
    return llvm::formatv("wp.array{0}d(dtype={1})", rank, dtype).str();
  }
  if (ModuleBuilder::isStructType(type)) {
    auto it = structNames.find(type->getAsRecordDecl()->getDefinition());
    if (it != structNames.end())
      return it->second;
  }
  fail(loc, "the type '" + mb.spell(type) + "'");
  return "_";
}

std::string WarpPrinter::zeroValue(QualType type, SourceLocation loc) {
  std::string name = typeName(type, loc);
  if (std::optional<std::string> scalar = scalarName(type)) {
    if (*scalar == "bool")
      return "bool(False)";
    bool real = type->isRealFloatingType();
    return name + (real ? "(0.0)" : "(0)");
  }
  if (ModuleBuilder::isMatrixType(type)) // wp.mat33() is the zero matrix
    return name + "()";
  if (ModuleBuilder::isQuatType(type))
    return name + "(0.0, 0.0, 0.0, 0.0)";
  return name + "()";
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Py WarpPrinter::paren(Py py, int prec) {
  if (py.prec < prec)
    return {"(" + py.text + ")", PAtom};
  return py;
}

Py WarpPrinter::binary(Py lhs, StringRef op, Py rhs, int prec, bool chains) {
  // Left-associative; comparisons do not chain as in C++, so neither side
  // of one may be another.
  lhs = paren(std::move(lhs), chains ? prec : prec + 1);
  rhs = paren(std::move(rhs), prec + 1);
  return {lhs.text + " " + op.str() + " " + rhs.text, prec};
}

std::string WarpPrinter::arguments(llvm::ArrayRef<const Expr *> args) {
  std::string text;
  for (const Expr *arg : args) {
    if (isa<CXXDefaultArgExpr>(arg))
      arg = cast<CXXDefaultArgExpr>(arg)->getExpr();
    if (!text.empty())
      text += ", ";
    text += expr(arg).text;
  }
  return text;
}

Py WarpPrinter::floatLiteral(const FloatingLiteral *lit) {
  const SourceManager &sm = mb.sourceManager;
  std::string spelling;
  if (lit->getLocation().isFileID())
    spelling = Lexer::getSourceText(
                   CharSourceRange::getTokenRange(lit->getSourceRange()), sm,
                   mb.ast.getLangOpts())
                   .str();
  llvm::erase(spelling, '\'');
  while (!spelling.empty() && StringRef("fFlL").contains(spelling.back()))
    spelling.pop_back();
  if (spelling.empty() || StringRef(spelling).contains_insensitive('x')) {
    llvm::SmallString<32> shortest;
    lit->getValue().toString(shortest);
    spelling = shortest.str().str();
    if (StringRef(spelling).find_first_of(".eE") == StringRef::npos)
      spelling += ".0";
  }
  if (lit->getType()->isSpecificBuiltinType(BuiltinType::Double))
    return {"wp.float64(" + spelling + ")", PAtom};
  return {spelling, PAtom};
}

std::optional<Py> WarpPrinter::literal(const Expr *e) {
  e = strip(e);
  if (auto *lit = dyn_cast<IntegerLiteral>(e)) {
    std::string value = llvm::toString(lit->getValue(), 10, /*Signed=*/false);
    std::string type = scalarName(lit->getType()).value_or("int");
    if (type == "int")
      return Py{value, PAtom};
    return Py{type + "(" + value + ")", PAtom};
  }
  if (auto *lit = dyn_cast<FloatingLiteral>(e))
    return floatLiteral(lit);
  if (auto *lit = dyn_cast<CXXBoolLiteralExpr>(e))
    return Py{lit->getValue() ? "True" : "False", PAtom};
  return std::nullopt;
}

/// `literal` (a number, possibly negated) converted to `to` as C++ would,
/// printed as a literal of that type where Python can say it.
Py WarpPrinter::literalAs(const Expr *literal, QualType to) {
  literal = strip(literal);
  std::string sign;
  if (auto *neg = dyn_cast<UnaryOperator>(literal);
      neg && neg->getOpcode() == UO_Minus) {
    sign = "-";
    literal = strip(neg->getSubExpr());
  }
  std::string type = *scalarName(to);
  std::string value;
  if (auto *lit = dyn_cast<IntegerLiteral>(literal)) {
    value = llvm::toString(lit->getValue(), 10, /*Signed=*/false);
    if (to->isRealFloatingType())
      value += ".0";
  } else {
    return {type + "(" + sign + expr(literal).text + ")", PAtom};
  }
  if (type == "int" || type == "float")
    return {sign + value, sign.empty() ? PAtom : PUnary};
  return {type + "(" + sign + value + ")", PAtom};
}

/// Whether `e` is an integer literal, possibly negated.
static bool isIntegerLiteral(const Expr *e) {
  e = strip(e);
  if (auto *neg = dyn_cast<UnaryOperator>(e);
      neg && neg->getOpcode() == UO_Minus)
    e = strip(neg->getSubExpr());
  return isa<IntegerLiteral>(e);
}

Py WarpPrinter::convert(const Expr *sub, QualType to, bool explicitCast) {
  std::optional<std::string> target = scalarName(to);
  std::optional<std::string> source = scalarName(sub->getType());
  if (!target || !source)
    return fail(sub->getBeginLoc(), "the conversion to '" + mb.spell(to) + "'");
  if (*target == *source && !explicitCast)
    return expr(sub);
  if (isIntegerLiteral(sub) && *target != "bool")
    return literalAs(sub, to);
  return {*target + "(" + expr(sub).text + ")", PAtom};
}

Py WarpPrinter::conversion(const CastExpr *cast, bool explicitCast) {
  const Expr *sub = cast->getSubExpr();
  switch (cast->getCastKind()) {
  case CK_IntegralToFloating:
  case CK_FloatingCast:
  case CK_FloatingToIntegral:
  case CK_IntegralCast:
    return convert(sub, cast->getType(), explicitCast);
  case CK_IntegralToBoolean:
  case CK_FloatingToBoolean: {
    if (explicitCast)
      return {"bool(" + expr(sub).text + ")", PAtom};
    Py zero = {"0", PAtom};
    if (cast->getCastKind() == CK_FloatingToBoolean)
      zero.text = sub->getType()->isSpecificBuiltinType(BuiltinType::Double)
                      ? "wp.float64(0.0)"
                      : "0.0";
    return binary(expr(sub), "!=", zero, PCmp, /*chains=*/false);
  }
  case CK_LValueToRValue:
  case CK_NoOp:
  case CK_ConstructorConversion:
  case CK_UserDefinedConversion:
    // `double(k)` is a no-op around the implicit conversion that does the
    // work; `float(x)` of a float x stays as written.
    if (auto *inner = dyn_cast<ImplicitCastExpr>(sub->IgnoreParens());
        inner && inner->isPartOfExplicitCast())
      return expr(sub);
    if (explicitCast && scalarName(cast->getType()))
      return convert(sub, cast->getType(), /*explicitCast=*/true);
    return expr(sub);
  default:
    return fail(cast->getBeginLoc(), llvm::Twine("the conversion '") +
                                         cast->getCastKindName() + "'");
  }
}

Py WarpPrinter::expr(const Expr *e) {
  e = strip(e);
  if (std::optional<Py> lit = literal(e))
    return *lit;
  if (auto *c = dyn_cast<ImplicitCastExpr>(e))
    return conversion(c, /*explicitCast=*/false);
  if (auto *c = dyn_cast<ExplicitCastExpr>(e)) {
    if (isa<CXXConstructExpr, InitListExpr>(strip(c->getSubExpr())))
      return expr(c->getSubExpr());
    return conversion(c, /*explicitCast=*/true);
  }
  if (auto *def = dyn_cast<CXXDefaultArgExpr>(e))
    return expr(def->getExpr());
  if (auto *ref = dyn_cast<DeclRefExpr>(e)) {
    const ValueDecl *decl = ref->getDecl();
    if (auto *var = dyn_cast<VarDecl>(decl); var && var->hasGlobalStorage()) {
      Expr::EvalResult value;
      if (ref->EvaluateAsRValue(value, mb.ast) && value.Val.isInt())
        return {llvm::toString(value.Val.getInt(), 10), PAtom};
      if (value.Val.isFloat()) {
        llvm::SmallString<32> text;
        value.Val.getFloat().toString(text);
        if (StringRef(text).find_first_of(".eE") == StringRef::npos)
          text += ".0";
        if (ref->getType()->isSpecificBuiltinType(BuiltinType::Double))
          return {("wp.float64(" + text + ")").str(), PAtom};
        return {text.str().str(), PAtom};
      }
      return fail(ref->getBeginLoc(),
                  "the file-scope variable '" + var->getName() + "'");
    }
    if (auto *constant = dyn_cast<EnumConstantDecl>(decl))
      return {llvm::toString(constant->getInitVal(), 10), PAtom};
    return {nameOf(decl), PAtom};
  }
  if (auto *member = dyn_cast<MemberExpr>(e)) {
    // Struct fields, and the x, y, z, w of vectors and quaternions, which
    // Warp names the same.
    Py object = operand(member->getBase(), PAtom);
    auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
    if (!field)
      return fail(member->getBeginLoc(), "member functions");
    return {object.text + "." + fieldName(field), PAtom};
  }
  if (auto *op = dyn_cast<UnaryOperator>(e))
    return unary(op);
  if (auto *op = dyn_cast<BinaryOperator>(e))
    return binaryOperator(op);
  if (auto *cond = dyn_cast<ConditionalOperator>(e)) {
    Py yes = operand(cond->getTrueExpr(), POr);
    Py test = operand(cond->getCond(), POr);
    Py no = operand(cond->getFalseExpr(), PIfElse);
    return {yes.text + " if " + test.text + " else " + no.text, PIfElse};
  }
  if (auto *op = dyn_cast<CXXOperatorCallExpr>(e))
    return operatorCall(op);
  if (auto *c = dyn_cast<CallExpr>(e))
    return call(c);
  if (auto *c = dyn_cast<CXXConstructExpr>(e))
    return construct(c);
  if (auto *list = dyn_cast<InitListExpr>(e))
    return initList(list);
  if (auto *zero = dyn_cast<CXXScalarValueInitExpr>(e))
    return {zeroValue(zero->getType(), zero->getBeginLoc()), PAtom};
  if (auto *trait = dyn_cast<UnaryExprOrTypeTraitExpr>(e)) {
    Expr::EvalResult value;
    if (trait->EvaluateAsInt(value, mb.ast))
      return {llvm::toString(value.Val.getInt(), 10), PAtom};
  }
  return fail(e->getBeginLoc(),
              llvm::Twine("the expression '") + e->getStmtClassName() + "'");
}

Py WarpPrinter::unary(const UnaryOperator *op) {
  switch (op->getOpcode()) {
  case UO_Minus:
    return {"-" + operand(op->getSubExpr(), PUnary).text, PUnary};
  case UO_Plus:
    return expr(op->getSubExpr());
  case UO_Not:
    return {"~" + operand(op->getSubExpr(), PUnary).text, PUnary};
  case UO_LNot:
    return {"not " + operand(op->getSubExpr(), PNot).text, PNot};
  default:
    return fail(op->getOperatorLoc(),
                "'" + UnaryOperator::getOpcodeStr(op->getOpcode()) +
                    "' inside an expression; write it as a statement of its "
                    "own");
  }
}

/// Python's spelling and precedence of a C++ binary operator.
static std::optional<std::pair<StringRef, int>>
pythonOperator(BinaryOperatorKind op) {
  switch (op) {
  case BO_Mul:
    return {{"*", PMul}};
  case BO_Div:
    return {{"/", PMul}};
  case BO_Rem:
    return {{"%", PMul}};
  case BO_Add:
    return {{"+", PAdd}};
  case BO_Sub:
    return {{"-", PAdd}};
  case BO_Shl:
    return {{"<<", PShift}};
  case BO_Shr:
    return {{">>", PShift}};
  case BO_And:
    return {{"&", PBitAnd}};
  case BO_Xor:
    return {{"^", PBitXor}};
  case BO_Or:
    return {{"|", PBitOr}};
  case BO_LT:
    return {{"<", PCmp}};
  case BO_GT:
    return {{">", PCmp}};
  case BO_LE:
    return {{"<=", PCmp}};
  case BO_GE:
    return {{">=", PCmp}};
  case BO_EQ:
    return {{"==", PCmp}};
  case BO_NE:
    return {{"!=", PCmp}};
  case BO_LAnd:
    return {{"and", PAnd}};
  case BO_LOr:
    return {{"or", POr}};
  default:
    return std::nullopt;
  }
}

Py WarpPrinter::binaryOperator(const BinaryOperator *op) {
  std::optional<std::pair<StringRef, int>> python =
      pythonOperator(op->getOpcode());
  if (!python)
    return fail(op->getOperatorLoc(),
                "'" + op->getOpcodeStr() +
                    "' inside an expression; write it as a statement of its "
                    "own");
  auto [spelling, prec] = *python;
  Py lhs = expr(op->getLHS());
  Py rhs = expr(op->getRHS());
  return binary(lhs, spelling, rhs, prec, /*chains=*/prec != PCmp);
}

Py WarpPrinter::operatorCall(const CXXOperatorCallExpr *call) {
  OverloadedOperatorKind kind = call->getOperator();
  if (kind == OO_Subscript || kind == OO_Call)
    return subscript(call);
  if (call->getNumArgs() == 1) {
    if (kind == OO_Minus)
      return {"-" + operand(call->getArg(0), PUnary).text, PUnary};
    if (kind == OO_Plus)
      return expr(call->getArg(0));
  }
  BinaryOperatorKind op;
  switch (kind) {
  case OO_Plus:
    op = BO_Add;
    break;
  case OO_Minus:
    op = BO_Sub;
    break;
  case OO_Star:
    op = BO_Mul;
    break;
  case OO_Slash:
    op = BO_Div;
    break;
  case OO_EqualEqual:
    op = BO_EQ;
    break;
  case OO_ExclaimEqual:
    op = BO_NE;
    break;
  default:
    return fail(call->getOperatorLoc(),
                llvm::Twine("the operator '") + getOperatorSpelling(kind) +
                    "' inside an expression; write it as a statement of "
                    "its own");
  }
  auto [spelling, prec] = *pythonOperator(op);
  Py lhs = expr(call->getArg(0));
  Py rhs = expr(call->getArg(1));
  return binary(lhs, spelling, rhs, prec, /*chains=*/prec != PCmp);
}

/// Whether `e` is `object[index]` or `object(indices...)`.
static const CXXOperatorCallExpr *asAccess(const Expr *e) {
  auto *call = dyn_cast<CXXOperatorCallExpr>(strip(e));
  if (call &&
      (call->getOperator() == OO_Subscript || call->getOperator() == OO_Call))
    return call;
  return nullptr;
}

Py WarpPrinter::subscript(const CXXOperatorCallExpr *call) {
  const Expr *object = call->getArg(0);
  SmallVector<const Expr *, 4> indices;
  for (unsigned i = 1; i < call->getNumArgs(); ++i)
    indices.push_back(call->getArg(i));
  QualType type = object->getType().getNonReferenceType();
  if (ModuleBuilder::isArrayType(type)) {
    // a[i][j] and a(i, j) are a[i, j].
    while (const CXXOperatorCallExpr *inner = asAccess(object)) {
      if (!ModuleBuilder::isArrayType(inner->getArg(0)->getType()))
        break;
      SmallVector<const Expr *, 4> outer;
      for (unsigned i = 1; i < inner->getNumArgs(); ++i)
        outer.push_back(inner->getArg(i));
      indices.insert(indices.begin(), outer.begin(), outer.end());
      object = inner->getArg(0);
    }
  } else if (ModuleBuilder::isVectorType(type)) {
    // m[i][j] is m[i, j], which Warp can also assign.
    if (const CXXOperatorCallExpr *row = asAccess(object);
        row && ModuleBuilder::isMatrixType(row->getArg(0)->getType())) {
      indices.insert(indices.begin(), row->getArg(1));
      object = row->getArg(0);
    }
  }
  std::string array = operand(object, PAtom).text;
  return {array + "[" + arguments(indices) + "]", PAtom};
}

Py WarpPrinter::call(const CallExpr *c) {
  if (auto *member = dyn_cast<CXXMemberCallExpr>(c)) {
    if (isArrayShapeCall(member)) {
      std::string array =
          operand(member->getImplicitObjectArgument(), PAtom).text;
      return {array + ".shape[" + expr(member->getArg(0)).text + "]", PAtom};
    }
    return fail(c->getBeginLoc(), "member function calls");
  }
  const FunctionDecl *callee = c->getDirectCallee();
  if (!callee)
    return fail(c->getBeginLoc(), "indirect calls");
  if (mb.isPreludeDecl(callee))
    return builtinCall(c, callee);
  for (const ParmVarDecl *param : callee->parameters())
    if (isInoutParam(param))
      return fail(c->getBeginLoc(),
                  "in-out parameters ('" + param->getName() +
                      "'): Warp functions cannot assign their arguments");
  SmallVector<const Expr *, 4> args(c->arguments());
  std::string function = functionName(callee);
  return {function + "(" + arguments(args) + ")", PAtom};
}

Py WarpPrinter::builtinCall(const CallExpr *c, const FunctionDecl *callee) {
  StringRef name = callee->getName();
  SmallVector<const Expr *, 4> args(c->arguments());
  QualType result = c->getType();
  if (name == "tid") {
    if (!args.empty())
      return fail(c->getBeginLoc(), "tid(d): Warp's wp.tid() returns every "
                                    "dimension of a launch at once");
    return {"wp.tid()", PAtom};
  }
  if (name == "identity") {
    auto [n, element] = sizeAndElement(result);
    return {llvm::formatv("wp.identity(n={0}, dtype={1})", n,
                          typeName(element, c->getBeginLoc()))
                .str(),
            PAtom};
  }
  if (name == "quat_identity") {
    auto [n, element] = sizeAndElement(result);
    return {"wp.quat_identity(dtype=" + typeName(element, c->getBeginLoc()) +
                ")",
            PAtom};
  }
  if (name == "exp2") {
    std::string two = result->isSpecificBuiltinType(BuiltinType::Double)
                          ? "wp.float64(2.0)"
                          : "2.0";
    return {"wp.pow(" + two + ", " + arguments(args) + ")", PAtom};
  }
  if (name.starts_with("rand") && name != "rand_init" && !args.empty() &&
      !isa<DeclRefExpr>(strip(args[0])))
    return fail(args[0]->getBeginLoc(),
                "a random state that is not a local variable: Warp's random "
                "functions advance only variables");
  // Warp's name of a builtin is the kernel language's, but for fmod.
  std::string warpName = name == "fmod" ? "mod" : name.str();
  return {"wp." + warpName + "(" + arguments(args) + ")", PAtom};
}

Py WarpPrinter::construct(const CXXConstructExpr *c) {
  QualType type = c->getType();
  SmallVector<const Expr *, 4> args;
  for (const Expr *arg : c->arguments())
    if (!isa<CXXDefaultArgExpr>(arg))
      args.push_back(arg);
  if (c->getConstructor()->isCopyOrMoveConstructor() && args.size() == 1)
    return expr(args[0]);
  if (ModuleBuilder::isStructType(type)) {
    if (!args.empty())
      return fail(c->getBeginLoc(), "struct constructors");
    return {typeName(type, c->getBeginLoc()) + "()", PAtom};
  }
  if (args.empty())
    return {zeroValue(type, c->getBeginLoc()), PAtom};
  std::string constructor = typeName(type, c->getBeginLoc());
  return {constructor + "(" + arguments(args) + ")", PAtom};
}

Py WarpPrinter::initList(const InitListExpr *list) {
  if (list->isSemanticForm() && list->getSyntacticForm())
    list = list->getSyntacticForm();
  QualType type = list->getType();
  const RecordDecl *record = type->getAsRecordDecl();
  if (!record || !ModuleBuilder::isStructType(type))
    return fail(list->getBeginLoc(),
                "brace initialization of '" + mb.spell(type) + "'");
  // Fields by name, the ones the list leaves out zero.
  const InitListExpr *semantic =
      list->isSemanticForm() ? list : list->getSemanticForm();
  if (!semantic)
    semantic = list;
  std::string text;
  unsigned index = 0;
  for (const FieldDecl *field : record->fields()) {
    if (index >= semantic->getNumInits())
      break;
    const Expr *init = semantic->getInit(index++);
    if (isa<ImplicitValueInitExpr>(init))
      continue;
    if (!text.empty())
      text += ", ";
    std::string name = fieldName(field);
    text += name + "=" + expr(init).text;
  }
  return {typeName(type, list->getBeginLoc()) + "(" + text + ")", PAtom};
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void WarpPrinter::block(const Stmt *body, llvm::function_ref<void()> tail) {
  ++indent;
  unsigned before = linesInBlock;
  linesInBlock = 0;
  scopes.emplace_back();
  if (auto *compound = dyn_cast<CompoundStmt>(body))
    for (const Stmt *s : compound->body())
      stmt(s);
  else
    stmt(body);
  if (tail)
    tail();
  popScope();
  if (linesInBlock == 0)
    line("pass");
  linesInBlock = before + 1;
  --indent;
}

void WarpPrinter::popScope() {
  for (const std::string &name : scopes.back())
    --liveNames[name];
  scopes.pop_back();
}

/// Whether the printed expression is a bare literal, which Warp would make
/// a constant.
static bool isBareLiteral(StringRef text) {
  if (text == "True" || text == "False")
    return true;
  return !text.empty() &&
         text.find_first_not_of("0123456789.eE+-") == StringRef::npos;
}

void WarpPrinter::declare(const VarDecl *var) {
  if (var->getType()->isReferenceType())
    fail(var->getLocation(), "reference variables");
  if (var->hasGlobalStorage())
    fail(var->getLocation(), "static variables");
  QualType type = var->getType();
  const Expr *init = var->getInit();
  std::string value;
  if (!init) {
    value = zeroValue(type, var->getLocation());
  } else {
    value = expr(init).text;
    if (isBareLiteral(value))
      value = typeName(type, var->getLocation()) + "(" + value + ")";
  }
  // After the initializer, which may read a variable of the same name.
  std::string name = declareName(var);
  line(name + " = " + value);
}

void WarpPrinter::assign(const Expr *lhs, const Expr *rhs) {
  std::string value = expr(rhs).text;
  // A variable given a literal would become a constant (see declare).
  if (isBareLiteral(value) && isa<DeclRefExpr>(strip(lhs)))
    value = typeName(lhs->getType(), lhs->getBeginLoc()) + "(" + value + ")";
  line(expr(lhs).text + " = " + value);
}

void WarpPrinter::exprStmt(const Expr *e) {
  e = strip(e);
  if (auto *op = dyn_cast<CompoundAssignOperator>(e)) {
    // The operator the computation type applies to.
    BinaryOperatorKind binary =
        BinaryOperator::getOpForCompoundAssignment(op->getOpcode());
    std::string spelling = pythonOperator(binary)->first.str() + "=";
    QualType computation = op->getComputationResultType();
    if (computation.getCanonicalType().getUnqualifiedType() !=
        op->getLHS()->getType().getCanonicalType().getUnqualifiedType()) {
      std::string target = expr(op->getLHS()).text;
      std::string wide = *scalarName(computation);
      std::string narrow = *scalarName(op->getLHS()->getType());
      Py result = WarpPrinter::binary(
          {wide + "(" + target + ")", PAtom}, pythonOperator(binary)->first,
          expr(op->getRHS()), pythonOperator(binary)->second, true);
      line(target + " = " + narrow + "(" + result.text + ")");
      return;
    }
    std::string target = expr(op->getLHS()).text;
    line(target + " " + spelling + " " + expr(op->getRHS()).text);
    return;
  }
  if (auto *op = dyn_cast<BinaryOperator>(e); op && op->isAssignmentOp())
    return assign(op->getLHS(), op->getRHS());
  if (auto *op = dyn_cast<UnaryOperator>(e);
      op && op->isIncrementDecrementOp()) {
    QualType type = op->getSubExpr()->getType().getNonReferenceType();
    std::string one = type->isRealFloatingType() ? "1.0" : "1";
    std::string name = *scalarName(type);
    if (name != "int" && name != "float")
      one = name + "(" + one + ")";
    line(expr(op->getSubExpr()).text + (op->isIncrementOp() ? " += " : " -= ") +
         one);
    return;
  }
  if (auto *call = dyn_cast<CXXOperatorCallExpr>(e);
      call && call->isAssignmentOp()) {
    StringRef spelling;
    switch (call->getOperator()) {
    case OO_Equal:
      spelling = "=";
      break;
    case OO_PlusEqual:
      spelling = "+=";
      break;
    case OO_MinusEqual:
      spelling = "-=";
      break;
    case OO_StarEqual:
      spelling = "*=";
      break;
    case OO_SlashEqual:
      spelling = "/=";
      break;
    default:
      fail(call->getOperatorLoc(), "this assignment operator");
      return;
    }
    std::string target = expr(call->getArg(0)).text;
    line(target + " " + spelling.str() + " " + expr(call->getArg(1)).text);
    return;
  }
  line(expr(e).text);
}

void WarpPrinter::stmt(const Stmt *s) {
  if (auto *compound = dyn_cast<CompoundStmt>(s)) {
    // Python has no block scope; the names declared in it end with it.
    scopes.emplace_back();
    for (const Stmt *child : compound->body())
      stmt(child);
    popScope();
    return;
  }
  if (auto *decls = dyn_cast<DeclStmt>(s)) {
    for (const Decl *decl : decls->decls()) {
      if (auto *var = dyn_cast<VarDecl>(decl))
        declare(var);
      else if (!isa<TypedefNameDecl, UsingDecl, StaticAssertDecl>(decl))
        fail(decl->getLocation(), "this local declaration");
    }
    return;
  }
  if (auto *ifs = dyn_cast<IfStmt>(s))
    return ifStmt(ifs, "if");
  if (auto *loop = dyn_cast<ForStmt>(s))
    return forStmt(loop);
  if (auto *loop = dyn_cast<WhileStmt>(s)) {
    if (loop->getConditionVariable())
      fail(loop->getBeginLoc(), "a declaration in a while condition");
    return whileLoop(loop->getCond(), loop->getBody(), nullptr, nullptr);
  }
  if (auto *loop = dyn_cast<DoStmt>(s)) {
    // do { body } while (c): `continue` goes to the test too.
    const Expr *cond = loop->getCond();
    auto test = [this, cond] {
      line("if " + operand(cond, PNot).text.insert(0, "not ") + ":");
      ++indent;
      line("break");
      --indent;
    };
    line("while True:");
    continueActions.push_back(test);
    block(loop->getBody(), test);
    continueActions.pop_back();
    return;
  }
  if (isa<BreakStmt>(s))
    return line("break");
  if (isa<ContinueStmt>(s)) {
    if (!continueActions.empty() && continueActions.back())
      continueActions.back()();
    return line("continue");
  }
  if (auto *ret = dyn_cast<ReturnStmt>(s)) {
    if (const Expr *value = ret->getRetValue())
      return line("return " + expr(value).text);
    return line("return");
  }
  if (isa<NullStmt>(s))
    return;
  if (auto *e = dyn_cast<Expr>(s))
    return exprStmt(e);
  fail(s->getBeginLoc(),
       llvm::Twine("the statement '") + s->getStmtClassName() + "'");
}

void WarpPrinter::ifStmt(const IfStmt *s, StringRef keyword) {
  if (s->getInit() || s->getConditionVariable() || s->isConstexpr())
    fail(s->getBeginLoc(), "this form of 'if'");
  line(keyword + " " + expr(s->getCond()).text + ":");
  block(s->getThen());
  const Stmt *otherwise = s->getElse();
  if (!otherwise)
    return;
  if (auto *elif = dyn_cast<IfStmt>(otherwise))
    return ifStmt(elif, "elif");
  line("else:");
  block(otherwise);
}

/// The loop counter and bound of `for (int k = a; k < b; k += c)` with c a
/// nonzero integer constant.
struct CountedLoop {
  const VarDecl *counter = nullptr;
  const Expr *start = nullptr, *bound = nullptr;
  BinaryOperatorKind compare = BO_LT;
  int64_t step = 0;
};

static std::optional<CountedLoop> matchCountedLoop(const ForStmt *s,
                                                   ASTContext &ast) {
  CountedLoop loop;
  auto *init = dyn_cast_or_null<DeclStmt>(s->getInit());
  if (!init || !init->isSingleDecl())
    return std::nullopt;
  loop.counter = dyn_cast<VarDecl>(init->getSingleDecl());
  if (!loop.counter || !loop.counter->getInit() ||
      !loop.counter->getType()->isSpecificBuiltinType(BuiltinType::Int))
    return std::nullopt;
  loop.start = loop.counter->getInit();
  auto isCounter = [&](const Expr *e) {
    auto *ref = dyn_cast<DeclRefExpr>(strip(e));
    return ref && ref->getDecl() == loop.counter;
  };
  auto *cond = dyn_cast_or_null<BinaryOperator>(
      s->getCond() ? strip(s->getCond()) : nullptr);
  if (!cond || !isCounter(cond->getLHS()))
    return std::nullopt;
  loop.compare = cond->getOpcode();
  if (loop.compare != BO_LT && loop.compare != BO_LE && loop.compare != BO_GT &&
      loop.compare != BO_GE)
    return std::nullopt;
  loop.bound = cond->getRHS();
  const Expr *inc = s->getInc() ? strip(s->getInc()) : nullptr;
  if (auto *op = dyn_cast_or_null<UnaryOperator>(inc);
      op && op->isIncrementDecrementOp() && isCounter(op->getSubExpr())) {
    loop.step = op->isIncrementOp() ? 1 : -1;
  } else if (auto *op = dyn_cast_or_null<CompoundAssignOperator>(inc);
             op && isCounter(op->getLHS()) &&
             (op->getOpcode() == BO_AddAssign ||
              op->getOpcode() == BO_SubAssign)) {
    Expr::EvalResult value;
    if (!op->getRHS()->EvaluateAsInt(value, ast))
      return std::nullopt;
    loop.step = value.Val.getInt().getSExtValue();
    if (op->getOpcode() == BO_SubAssign)
      loop.step = -loop.step;
  } else {
    return std::nullopt;
  }
  bool up = loop.compare == BO_LT || loop.compare == BO_LE;
  if (loop.step == 0 || up != (loop.step > 0))
    return std::nullopt;
  return loop;
}

/// Whether `bound` reads only variables `body` leaves alone, and no array
/// element (which the body might store to).
static bool isInvariant(const Expr *bound, const Stmt *body,
                        const VarDecl *counter) {
  AssignedVars assigned;
  assigned.TraverseStmt(const_cast<Stmt *>(body));
  bool invariant = true;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || !invariant)
      return;
    if (auto *ref = dyn_cast<DeclRefExpr>(s))
      if (ref->getDecl() == counter || assigned.vars.contains(ref->getDecl()))
        invariant = false;
    if (auto *call = dyn_cast<CXXOperatorCallExpr>(s))
      if (call->getOperator() == OO_Subscript || call->getOperator() == OO_Call)
        if (ModuleBuilder::isArrayType(call->getArg(0)->getType()))
          invariant = false;
    for (const Stmt *child : s->children())
      visit(child);
  };
  visit(bound);
  return invariant;
}

bool WarpPrinter::rangeFor(const ForStmt *s) {
  std::optional<CountedLoop> loop = matchCountedLoop(s, mb.ast);
  if (!loop || !isInvariant(loop->bound, s->getBody(), loop->counter))
    return false;
  {
    AssignedVars assigned;
    assigned.TraverseStmt(const_cast<Stmt *>(s->getBody()));
    if (assigned.vars.contains(loop->counter))
      return false;
  }
  Py start = expr(loop->start);
  Py bound = expr(loop->bound);
  // <= and >= include the bound.
  int64_t past = loop->compare == BO_LE ? 1 : loop->compare == BO_GE ? -1 : 0;
  Expr::EvalResult constant;
  if (past && loop->bound->EvaluateAsInt(constant, mb.ast))
    bound = {std::to_string(constant.Val.getInt().getSExtValue() + past),
             PAtom};
  else if (past)
    bound = binary(bound, past > 0 ? "+" : "-", {"1", PAtom}, PAdd, true);
  std::string range;
  if (loop->step == 1 && start.text == "0")
    range = bound.text;
  else if (loop->step == 1)
    range = start.text + ", " + bound.text;
  else
    range = start.text + ", " + bound.text + ", " + std::to_string(loop->step);
  scopes.emplace_back();
  std::string counter = declareName(loop->counter);
  line("for " + counter + " in range(" + range + "):");
  continueActions.push_back(nullptr);
  block(s->getBody());
  continueActions.pop_back();
  popScope();
  return true;
}

void WarpPrinter::forStmt(const ForStmt *s) {
  if (rangeFor(s))
    return;
  if (s->getConditionVariable())
    fail(s->getBeginLoc(), "a declaration in a for condition");
  // init; while cond: body; inc (also before each continue).
  scopes.emplace_back();
  if (s->getInit())
    stmt(s->getInit());
  const Stmt *inc = s->getInc();
  whileLoop(s->getCond(), s->getBody(),
            inc ? std::function<void()>([this, inc] { stmt(inc); }) : nullptr,
            inc);
  popScope();
}

void WarpPrinter::whileLoop(const Expr *cond, const Stmt *body,
                            std::function<void()> beforeContinue,
                            const Stmt *inc) {
  line("while " + (cond ? expr(cond).text : std::string("True")) + ":");
  continueActions.push_back(beforeContinue);
  block(body, [&] {
    if (inc)
      stmt(inc);
  });
  continueActions.pop_back();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

void WarpPrinter::printStruct(const CXXRecordDecl *record) {
  std::string name = structNames.lookup(record);
  out += "@wp.struct\nclass " + name + ":\n";
  for (const FieldDecl *field : record->fields()) {
    std::string fieldText = fieldName(field);
    out += "    " + fieldText + ": " +
           typeName(field->getType(), field->getLocation()) + "\n";
  }
  if (record->field_empty())
    out += "    pass\n";
}

void WarpPrinter::printFunction(const FunctionDecl *decl, FunctionKind kind) {
  names.clear();
  liveNames.clear();
  nameTypes.clear();
  scopes.assign(1, {});
  std::string params;
  for (const ParmVarDecl *param : decl->parameters()) {
    if (isInoutParam(param))
      fail(param->getLocation(),
           "in-out parameters ('" + param->getName() +
               "'): Warp functions cannot assign their arguments");
    if (!params.empty())
      params += ", ";
    params += declareName(param) + ": ";
    params +=
        typeName(param->getType().getUnqualifiedType(), param->getLocation());
  }
  out += kind == FunctionKind::Kernel ? "@wp.kernel\n" : "@wp.func\n";
  out += "def " + functionName(decl) + "(" + params + "):\n";
  indent = 0;
  linesInBlock = 0;
  block(decl->getBody());
}

bool WarpPrinter::print(StringRef fileName, std::string &text,
                        std::string &errorText) {
  out = "# Generated by ksc " KSC_VERSION " from " +
        ksc::escapeLineComment(fileName) +
        ". Do not edit.\nimport warp as wp\n";
  auto separate = [&] { out += "\n\n"; };
  // Module names first: a local variable must not hide one.
  nameModule();
  for (Decl *decl : fileDecls()) {
    if (auto *record = dyn_cast<CXXRecordDecl>(decl)) {
      if (record->isThisDeclarationADefinition()) {
        separate();
        printStruct(record);
      }
    } else if (auto *tmpl = dyn_cast<FunctionTemplateDecl>(decl)) {
      const FunctionDecl *pattern = tmpl->getTemplatedDecl();
      if (!pattern->isThisDeclarationADefinition())
        continue;
      for (const FunctionDecl *spec : tmpl->specializations()) {
        const FunctionDecl *definition = spec->getDefinition();
        if (!definition || !spec->isTemplateInstantiation())
          continue;
        separate();
        printFunction(definition, FunctionKind::Func);
      }
    } else if (auto *function = dyn_cast<FunctionDecl>(decl)) {
      if (!function->isThisDeclarationADefinition() || function->isDeleted())
        continue;
      std::optional<FunctionKind> kind = mb.getKind(function);
      if (!kind)
        continue;
      for (const Attr *attr : function->attrs())
        if (auto *annotate = dyn_cast<AnnotateAttr>(attr);
            annotate && annotate->getAnnotation().starts_with("ksc.") &&
            annotate->getAnnotation() != "ksc.kernel" &&
            annotate->getAnnotation() != "ksc.func")
          fail(function->getLocation(), "custom derivative rules");
      separate();
      printFunction(function, *kind);
    }
  }
  (void)file;
  if (!error.empty()) {
    errorText = error;
    return false;
  }
  text = std::move(out);
  return true;
}

bool ksc::frontend::printWarp(ModuleBuilder &builder, FileID file,
                              StringRef fileName, std::string &text,
                              std::string &error) {
  return WarpPrinter(builder, file).print(fileName, text, error);
}
