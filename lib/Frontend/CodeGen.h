//===- CodeGen.h - Building ks IR from the Clang AST --------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Frontend.
//
// ModuleBuilder walks the translation unit: it checks the top-level
// declarations, declares a `ks.kernel`/`ks.func` per KSC_KERNEL/KSC_FUNC,
// and has a FunctionBuilder fill each body.
//
// FunctionBuilder builds SSA directly from the structured AST. Local
// variables live in an environment (declaration -> current SSA value); a
// statement that assigns variables declared outside it becomes an `scf`
// operation that yields their new values. `return`, `break` and `continue`
// become flag variables in the same environment: when one branch of an `if`
// always leaves, the statements after the `if` move into the other branch;
// otherwise they run under `if (!flag)`, and loops test the flags in their
// condition. Canonicalization removes the flags that turn out constant.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_FRONTEND_CODEGEN_H
#define KSC_LIB_FRONTEND_CODEGEN_H

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/IR/Builders.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <deque>

namespace ksc::frontend {


/// Whether `loc` is in a header ksc provides (the prelude or Clang's builtin
/// headers), as opposed to the user's code (even code the user marks as a
/// system header).
bool isProvidedHeader(const clang::SourceManager &sm,
                      clang::SourceLocation loc);

/// Whether `param` is an in-out parameter: a non-const lvalue reference
/// (`float &lo`).
bool isInoutParam(const clang::ParmVarDecl *param);

/// The arguments of `call` bound to in-out parameters, which the call
/// writes.
llvm::SmallVector<const clang::Expr *, 2>
inoutArguments(const clang::CallExpr *call);

/// The variable or array element an assignment to `target` writes: `target`
/// without component accesses (`v` for `v.x`, `m` for `m[i][j]`).
const clang::Expr *assignedObject(const clang::Expr *target);

/// Whether `call` is `a.shape(d)` of an array (which reads no memory).
bool isArrayShapeCall(const clang::CallExpr *call);

/// What a declared function is in the kernel language.
enum class FunctionKind { Kernel, Func };

class ModuleBuilder {
public:
  ModuleBuilder(clang::ASTContext &ast, mlir::MLIRContext &context);

  /// Builds the module for the translation unit (the newest part of an
  /// incremental one), located at the start of `file` (default: the main
  /// file); null after errors.
  mlir::OwningOpRef<mlir::ModuleOp> build(clang::FileID file = {});

  //===--------------------------------------------------------------------===//
  // Diagnostics and locations
  //===--------------------------------------------------------------------===//

  /// Reports an error at `loc` (with the source line and a caret, and
  /// `range` underlined).
  void error(clang::SourceLocation loc, const llvm::Twine &message,
             clang::SourceRange range = clang::SourceRange());
  void note(clang::SourceLocation loc, const llvm::Twine &message);
  bool hadError() const { return errorCount != 0; }

  mlir::Location loc(clang::SourceLocation loc);
  mlir::Location nameLoc(llvm::StringRef name, clang::SourceLocation loc);

  //===--------------------------------------------------------------------===//
  // Types and declarations
  //===--------------------------------------------------------------------===//

  /// The IR type of a value of source type `type`; reports an error at
  /// `loc` (saying what `what` is) for types outside the language.
  mlir::FailureOr<mlir::Type> convertType(clang::QualType type,
                                          clang::SourceLocation loc,
                                          llvm::StringRef what);
  /// Whether `type` is the prelude's `array<T>`.
  static bool isArrayType(clang::QualType type);
  /// Whether `type` is the prelude's `vec<N, T>` (vec3, vec2i, ...).
  static bool isVectorType(clang::QualType type);
  /// Whether `type` is the prelude's `mat<N, T>` (mat33, mat22d, ...).
  static bool isMatrixType(clang::QualType type);
  /// Whether `type` is the prelude's `quat_t<T>` (quat, quatd).
  static bool isQuatType(clang::QualType type);
  /// A vector, matrix or quaternion: a value made of components.
  static bool isSmallValueType(clang::QualType type);
  /// `vec<N, T>` as `vector<NxT>`, `mat<N, T>` as `vector<NxNxT>`,
  /// `quat_t<T>` as `vector<4xT>`.
  mlir::FailureOr<mlir::Type> convertVectorType(clang::QualType canonical,
                                                clang::SourceLocation loc,
                                                llvm::StringRef what);
  /// Whether `type` is a struct or class declared in the source (not one
  /// of the prelude's).
  static bool isStructType(clang::QualType type);
  /// The `!ks.struct` of a struct declared in the source; reports (once) at
  /// the declaration why it is not a struct of the language.
  mlir::FailureOr<mlir::Type>
  convertStructType(const clang::CXXRecordDecl *record);
  /// Whether `type` (or the type it references) is `uint32_t` (`unsigned
  /// int`).
  static bool isUnsigned32(clang::QualType type);
  /// A declaration other than a function or variable: true if it is one the
  /// language allows (using, typedef, static_assert), else reports why not.
  bool checkOtherDecl(const clang::Decl *decl, bool local);
  /// `type` as the source spells it (`bool`, `array<float>`).
  std::string spell(clang::QualType type) const;
  /// Whether `decl` is declared by the prelude (a builtin).
  bool isPreludeDecl(const clang::Decl *decl) const;
  std::optional<FunctionKind> getKind(const clang::FunctionDecl *decl) const;
  /// Whether the emitted code itself uses `name` at file scope (`ksc`,
  /// `std`, `size_t`, names starting with `ksc_`), so that no function or
  /// struct of the source may take it.
  static bool isReservedName(llvm::StringRef name);

  /// The ks function declared for `decl`, if any.
  mlir::Operation *lookupFunction(const clang::FunctionDecl *decl) const;
  /// The ks function of the device function `callee`, declared now if it
  /// is not yet (a call before the declaration is handled: `f<N - 1>` from
  /// `f<N>`, an explicit specialization after the template); built when
  /// its definition is handled. Null after an error (reported), or when it
  /// has no definition.
  mlir::Operation *declareCallee(const clang::FunctionDecl *callee,
                                 FunctionKind kind);
  void recordCall(const clang::FunctionDecl *caller,
                  const clang::FunctionDecl *callee, clang::SourceLocation loc);

  clang::ASTContext &ast;
  clang::SourceManager &sourceManager;
  clang::DiagnosticsEngine &diags;
  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;

private:
  void handleTopLevelDecl(clang::Decl *decl);
  /// The symbol a function is declared with (made unique): its name, and
  /// a specialization's template arguments.
  std::string symbolBaseOf(const clang::FunctionDecl *function);
  /// Declares the ks function of `decl`, with the symbol `symbolBase` (the
  /// function's name by default; made unique).
  void declareFunction(const clang::FunctionDecl *decl, FunctionKind kind,
                       std::string symbolBase = "");
  /// The types and names of `decl`'s parameters; false after errors.
  bool convertParameters(const clang::FunctionDecl *decl, FunctionKind kind,
                         llvm::SmallVectorImpl<mlir::Type> &inputs,
                         llvm::SmallVectorImpl<llvm::StringRef> &argNames);
  /// Appends the type of `decl`'s result, if any; false after errors.
  bool convertResult(const clang::FunctionDecl *decl, FunctionKind kind,
                     llvm::SmallVectorImpl<mlir::Type> &results);
  /// Whether `decl`'s name may be its function's: a kernel shares it with
  /// no other function and no function takes its launcher's name. Reports
  /// the conflict otherwise.
  bool checkFunctionName(const clang::FunctionDecl *decl, FunctionKind kind);
  void handleFunctionTemplate(const clang::FunctionTemplateDecl *tmpl);
  std::string templateArgumentsSuffix(const clang::FunctionDecl *spec);
  void checkRecursion();
  /// Records the KSC_ADJOINT and KSC_TANGENT rules on the functions they
  /// are for (CustomDerivatives.cpp).
  void attachCustomDerivatives();

  /// Struct definitions and their types (null for those that failed).
  llvm::DenseMap<const clang::CXXRecordDecl *, mlir::Type> structTypes;
  unsigned errorCount = 0;
  unsigned errorID, noteID;
  /// Canonical declaration -> ks.kernel / ks.func.
  llvm::MapVector<const clang::FunctionDecl *, mlir::Operation *> functions;
  llvm::StringSet<> symbolNames;
  /// Canonical declarations of the functions declared so far (including
  /// those whose declaration failed, to report that once).
  llvm::DenseSet<const clang::FunctionDecl *> declared;
  /// Canonical declarations of the functions defined, in source order.
  llvm::SmallVector<const clang::FunctionDecl *> definitions;
  struct Call {
    const clang::FunctionDecl *callee;
    clang::SourceLocation loc;
  };
  llvm::MapVector<const clang::FunctionDecl *, llvm::SmallVector<Call>> calls;
};

/// Where control goes after a statement.
struct Exits {
  bool mayReturn = false, mayBreak = false, mayContinue = false;
  /// Whether the statement can complete normally.
  bool fallsThrough = true;
  bool mayExit() const { return mayReturn || mayBreak || mayContinue; }
};

class FunctionBuilder {
public:
  FunctionBuilder(ModuleBuilder &mb, const clang::FunctionDecl *decl,
                  mlir::Operation *function, FunctionKind kind);
  mlir::LogicalResult build();

  //===--------------------------------------------------------------------===//
  // The environment
  //===--------------------------------------------------------------------===//

  /// A variable: a source declaration or a control-flow flag.
  using Key = const void *;
  /// The source name of `key` (flags have names like `returned`).
  llvm::StringRef nameOf(Key key) const;
  /// The keys in `env` assigned by `stmts`.
  llvm::SmallVector<Key> assignedIn(llvm::ArrayRef<const clang::Stmt *> stmts);

  //===--------------------------------------------------------------------===//
  // Statements (CodeGenStmt.cpp)
  //===--------------------------------------------------------------------===//

  mlir::LogicalResult emitStmts(llvm::ArrayRef<const clang::Stmt *> stmts);
  mlir::LogicalResult emitStmt(const clang::Stmt *stmt);
  mlir::LogicalResult emitDecl(const clang::VarDecl *var);
  mlir::LogicalResult emitReturn(const clang::ReturnStmt *stmt);
  /// `if (cond) { thenStmts } else { elseStmts }`.
  mlir::LogicalResult emitIf(mlir::Value cond,
                             llvm::ArrayRef<const clang::Stmt *> thenStmts,
                             llvm::ArrayRef<const clang::Stmt *> elseStmts,
                             clang::SourceLocation loc);
  mlir::LogicalResult emitFor(const clang::ForStmt *stmt);
  /// `while (cond) { body; inc; }`, or `do { body } while (cond)`.
  mlir::LogicalResult emitLoop(const clang::Stmt *loop, const clang::Expr *cond,
                               const clang::Stmt *body, const clang::Expr *inc,
                               bool isDoWhile);
  Exits exitsOf(const clang::Stmt *stmt);
  /// `!(returned || broke || continued)` for the flags `exits` may set.
  mlir::Value notExited(const Exits &exits, mlir::Location loc);

  //===--------------------------------------------------------------------===//
  // Expressions (CodeGenExpr.cpp)
  //===--------------------------------------------------------------------===//

  /// An lvalue: a local variable or an array element, or a component of
  /// one (`v.x`, `m[i][j]`: the positions in `components`). The component
  /// of a temporary (`(a + b).x`) has the temporary in `value`; writing it
  /// has no effect.
  struct LValue {
    Key var = nullptr;
    mlir::Value array;
    llvm::SmallVector<mlir::Value, 1> indices;
    mlir::Value value;
    llvm::SmallVector<mlir::OpFoldResult, 2> components;
    clang::QualType type;
  };

  /// The value of `expr` (reading lvalues).
  mlir::FailureOr<mlir::Value> emitRValue(const clang::Expr *expr);
  /// `emitRValue`, then names the value `name` if it has no name yet.
  mlir::FailureOr<mlir::Value> emitNamedRValue(const clang::Expr *expr,
                                               llvm::StringRef name);
  mlir::FailureOr<LValue> emitLValue(const clang::Expr *expr);
  /// The array and indices of `a[i][j]...` or `a(i, j, ...)`: the chain of
  /// subscripts of arrays ending at `access`, outermost last.
  struct Subscripts {
    mlir::Value array;
    llvm::SmallVector<mlir::Value, 4> indices;
  };
  mlir::FailureOr<Subscripts>
  emitSubscripts(const clang::CXXOperatorCallExpr *access);
  /// The element `a[i]`, `a[i][j]` or `a(i, j)` of an array.
  mlir::FailureOr<LValue>
  emitArrayElement(const clang::CXXOperatorCallExpr *access);
  /// The view `a[i]` of a multi-dimensional array with fewer indices than
  /// dimensions (a row of a 2-D array).
  mlir::FailureOr<mlir::Value>
  emitArraySlice(const clang::CXXOperatorCallExpr *access);
  /// `a.shape(d)`.
  mlir::FailureOr<mlir::Value>
  emitArrayShape(const clang::CXXMemberCallExpr *call);
  /// An index of an array access (`i` in `a[i]`), checked to be an
  /// integer.
  mlir::FailureOr<mlir::Value> emitIndex(const clang::Expr *index);
  //===--------------------------------------------------------------------===//
  // Vectors and matrices (CodeGenVector.cpp)
  //===--------------------------------------------------------------------===//

  /// Whether `expr` is a component of a vector or matrix: `v.x`, `v[i]`,
  /// `m[i]`, `m[i][j]` or `m(i, j)`.
  static bool isComponentAccess(const clang::Expr *expr);
  mlir::FailureOr<LValue> emitComponent(const clang::Expr *expr);
  /// An operator of the prelude on vectors and matrices (`a + b`, `m * v`,
  /// `v *= s`, `v = w`).
  mlir::FailureOr<mlir::Value>
  emitVectorOperator(const clang::CXXOperatorCallExpr *call);
  /// `vec3()`, `vec3(s)`, `vec3(x, y, z)`, `mat22(a, b, c, d)`, copies.
  mlir::FailureOr<mlir::Value>
  emitVectorConstruct(const clang::CXXConstructExpr *construct);
  //===--------------------------------------------------------------------===//
  // Structs (CodeGenStruct.cpp)
  //===--------------------------------------------------------------------===//

  /// `Particle p;` (zero) and copies.
  mlir::FailureOr<mlir::Value>
  emitStructConstruct(const clang::CXXConstructExpr *construct);
  /// `{pos, 1.0f}`: aggregate initialization.
  mlir::FailureOr<mlir::Value> emitStructInit(const clang::InitListExpr *list);
  /// `p = q`.
  mlir::FailureOr<mlir::Value>
  emitStructAssign(const clang::CXXOperatorCallExpr *call);
  /// The component at `path` of `whole`: struct fields (`ks.struct_extract`)
  /// then vector or matrix positions (`vector.extract`).
  mlir::Value extractComponent(mlir::Value whole,
                               llvm::ArrayRef<mlir::OpFoldResult> path,
                               mlir::Location loc);
  /// `whole` with the component at `path` replaced by `value`.
  mlir::Value insertComponent(mlir::Value value, mlir::Value whole,
                              llvm::ArrayRef<mlir::OpFoldResult> path,
                              mlir::Location loc);
  /// `quat_identity()`.
  mlir::FailureOr<mlir::Value> emitQuatIdentity(const clang::CallExpr *call);
  /// `identity<mat33>()`.
  mlir::FailureOr<mlir::Value> emitIdentity(const clang::CallExpr *call);

  /// The variable, array element or temporary `lvalue` is a component of.
  mlir::Value loadBase(const LValue &lvalue, mlir::Location loc);
  void storeBase(const LValue &lvalue, mlir::Value value, mlir::Location loc);
  mlir::Value load(const LValue &lvalue, mlir::Location loc);
  void store(const LValue &lvalue, mlir::Value value, mlir::Location loc);
  /// Updates the array element `element` with `value` in one atomic step;
  /// returns the element's old value.
  mlir::Value atomicUpdate(ks::AtomicKind kind, const LValue &element,
                           mlir::Value value, mlir::Location loc);
  /// `a[i] += v` or `a[i] -= v` on an array element `element`: an atomic
  /// add or subtraction; returns the new value (what this update wrote).
  mlir::FailureOr<mlir::Value>
  emitAtomicCompound(const clang::CompoundAssignOperator *expr,
                     const LValue &element, mlir::Value rhs);
  /// `value` as a boolean (i1), following C++'s conversion rules.
  mlir::FailureOr<mlir::Value> emitCondition(const clang::Expr *expr);

  mlir::FailureOr<mlir::Value> emitCast(mlir::Value value, clang::QualType from,
                                        clang::QualType to,
                                        clang::CastKind kind,
                                        const clang::Expr *expr);
  mlir::FailureOr<mlir::Value> convert(mlir::Value value, clang::QualType from,
                                       clang::QualType to,
                                       clang::SourceLocation loc);
  mlir::FailureOr<mlir::Value> emitUnary(const clang::UnaryOperator *expr);
  mlir::FailureOr<mlir::Value> emitBinary(const clang::BinaryOperator *expr);
  mlir::FailureOr<mlir::Value> emitArithmetic(clang::BinaryOperatorKind op,
                                              mlir::Value lhs, mlir::Value rhs,
                                              clang::QualType type,
                                              mlir::Location loc,
                                              const clang::Expr *expr);
  mlir::FailureOr<mlir::Value> emitLogical(const clang::BinaryOperator *expr);
  mlir::FailureOr<mlir::Value>
  emitConditional(const clang::ConditionalOperator *expr);
  mlir::FailureOr<mlir::Value> emitCall(const clang::CallExpr *expr);
  mlir::FailureOr<mlir::Value>
  emitBuiltinCall(const clang::CallExpr *expr,
                  const clang::FunctionDecl *callee);
  mlir::FailureOr<mlir::Value> emitTid(const clang::CallExpr *expr);
  /// `atomic_add(a, i, ..., v)` and the other atomic builtins.
  mlir::FailureOr<mlir::Value> emitAtomicCall(const clang::CallExpr *expr,
                                              ks::AtomicKind kind);
  /// rand_init, randi, randf, randn: the ks.rand_* operations; the new state
  /// is stored into the state argument, a variable or an array element.
  mlir::FailureOr<mlir::Value> emitRandom(const clang::CallExpr *expr,
                                          llvm::StringRef name);
  /// The value of `arg` if it is a constant in [0, count): the dimension of
  /// tid(d) or a.shape(d).
  std::optional<int64_t> constantDimension(const clang::Expr *arg,
                                           int64_t count);
  /// A constant for `expr` if Clang can evaluate it (literals, sizeof,
  /// constexpr variables); null otherwise.
  mlir::FailureOr<mlir::Value> tryEmitConstant(const clang::Expr *expr);
  /// Whether evaluating `expr` can neither fail nor have effects, so that it
  /// may run even where C++ would not evaluate it.
  bool isSafeToSpeculate(const clang::Expr *expr);

  mlir::Value constantInt(mlir::Type type, int64_t value, mlir::Location loc);
  mlir::Value constantBool(bool value, mlir::Location loc);
  mlir::Value zero(mlir::Type type, mlir::Location loc);

  /// Reports an unsupported construct and fails.
  mlir::LogicalResult unsupported(const clang::Stmt *stmt,
                                  const llvm::Twine &what);
  /// Reports an error about `expr` (at its location, its range underlined).
  mlir::FailureOr<mlir::Value> exprError(const clang::Expr *expr,
                                         const llvm::Twine &message);

  ModuleBuilder &mb;
  mlir::OpBuilder &b;
  const clang::FunctionDecl *decl;
  mlir::Operation *function;
  FunctionKind kind;

  llvm::DenseMap<Key, mlir::Value> env;
  /// Flags and the return value, as environment keys.
  struct Flag {
    std::string name;
  };
  std::deque<Flag> flags;
  Key returnValue = nullptr, returned = nullptr;
  /// The flags of the innermost loop being built.
  Key broke = nullptr, continued = nullptr;
  mlir::Type returnType;
  /// Which expressions tryEmitConstant may fold.
  llvm::DenseMap<const clang::Stmt *, bool> foldable;
};

} // namespace ksc::frontend

#endif // KSC_LIB_FRONTEND_CODEGEN_H
