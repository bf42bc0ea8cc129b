//===- CustomDerivatives.cpp - KSC_ADJOINT and KSC_TANGENT rules --------===//
//
// Part of ksc. A device function marked `KSC_ADJOINT(f)` is the reverse-mode
// rule of the device function `f`, one marked `KSC_TANGENT(f)` its
// forward-mode rule (docs/autodiff.md, "Custom derivatives"). This file
// finds `f`, checks the rule's signature against it, and records the rule
// on f's `ks.func` (`ks.custom_adjoint`, `ks.custom_tangent`), where the
// differentiation passes use it instead of differentiating f's body.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;

namespace {
/// A rule and the function it is for, as its annotation names it.
struct Rule {
  const FunctionDecl *decl;
  bool isAdjoint;
  std::string target;
  /// Where errors about the rule go: its name.
  SourceLocation loc;
};

/// What a rule's parameter must be: the type and whether by reference.
struct ParamSpec {
  QualType type;
  bool reference;
  std::string role;
};
} // namespace

static constexpr llvm::StringLiteral kAdjointPrefix = "ksc.adjoint:";
static constexpr llvm::StringLiteral kTangentPrefix = "ksc.tangent:";

/// The rule `decl` declares, if it is one.
static std::optional<Rule> getRule(const FunctionDecl *decl) {
  for (const FunctionDecl *redecl : decl->redecls())
    for (const auto *attr : redecl->specific_attrs<AnnotateAttr>()) {
      StringRef text = attr->getAnnotation();
      bool adjoint = text.starts_with(kAdjointPrefix);
      if (adjoint || text.starts_with(kTangentPrefix))
        return Rule{decl, adjoint,
                    text.drop_front(adjoint ? kAdjointPrefix.size()
                                            : kTangentPrefix.size())
                        .str(),
                    decl->getLocation()};
    }
  return std::nullopt;
}

static std::string ruleKind(const Rule &rule) {
  return rule.isAdjoint ? "KSC_ADJOINT" : "KSC_TANGENT";
}

/// Whether values of source type `type` have derivatives.
static bool hasDerivative(ModuleBuilder &mb, QualType type, SourceLocation loc) {
  mlir::FailureOr<mlir::Type> converted = mb.convertType(type, loc, "a value");
  return mlir::succeeded(converted) && ks::ad::isDifferentiable(*converted);
}

/// Checks that `rule` can be a rule of `f` and has the signature that
/// needs (docs/autodiff.md): f's parameters, then for an adjoint rule the
/// adjoint of the result, then per parameter of f with a derivative its
/// adjoint by reference (or its tangent by value); an adjoint rule returns
/// void, a tangent rule f's result type. Reports what is wrong.
static bool checkRule(ModuleBuilder &mb, const Rule &rule,
                      const FunctionDecl *f) {
  std::string kind = ruleKind(rule);
  const FunctionDecl *g = rule.decl;
  std::string name = "'" + g->getNameAsString() + "'";
  auto cannot = [&](const llvm::Twine &why) {
    mb.error(rule.loc, kind + " rule " + name + " is for '" + rule.target +
                           "', which cannot have one: " + why);
    return false;
  };
  QualType result = f->getReturnType();
  if (result->isVoidType() || !hasDerivative(mb, result, f->getLocation()))
    return cannot("its result (of type '" + mb.spell(result) +
                  "') has no derivative");
  for (const ParmVarDecl *param : f->parameters())
    if (param->getType()->isReferenceType() ||
        ModuleBuilder::isArrayType(param->getType()))
      return cannot("parameter '" + param->getNameAsString() +
                    "' is a reference or an array (rules are for functions "
                    "of values)");
  llvm::SmallVector<ParamSpec> expected;
  for (const ParmVarDecl *param : f->parameters())
    expected.push_back({param->getType(), false,
                        "parameter '" + param->getNameAsString() + "'"});
  if (rule.isAdjoint)
    expected.push_back({result, false, "the adjoint of the result"});
  for (const ParmVarDecl *param : f->parameters())
    if (hasDerivative(mb, param->getType(), param->getLocation()))
      expected.push_back(
          {param->getType(), rule.isAdjoint,
           std::string(rule.isAdjoint ? "the adjoint" : "the tangent") +
               " of parameter '" + param->getNameAsString() + "'"});
  auto describe = [&](const ParamSpec &e) {
    return "'" + mb.spell(e.type.getUnqualifiedType()) +
           (e.reference ? " &'" : "'") + " (" + e.role + ")";
  };
  unsigned count = g->getNumParams();
  for (auto [index, e] : llvm::enumerate(expected)) {
    if (index >= count) {
      mb.error(g->getLocation(),
               kind + " rule " + name + " of '" + rule.target + "' has " +
                   llvm::Twine(count) + " parameters; it needs " +
                   llvm::Twine(expected.size()) + ", the next one " +
                   describe(e));
      return false;
    }
    const ParmVarDecl *param = g->getParamDecl(index);
    QualType type = param->getType();
    bool isRef = type->isLValueReferenceType();
    QualType value = isRef ? type->getPointeeType() : type;
    if (isRef != e.reference || (isRef && value.isConstQualified()) ||
        !mb.ast.hasSameUnqualifiedType(value, e.type)) {
      mb.error(param->getLocation(),
               "parameter " + llvm::Twine(index + 1) + " of " + kind +
                   " rule " + name + " must be " + describe(e) + ", not '" +
                   mb.spell(type) + "'");
      return false;
    }
  }
  if (count > expected.size()) {
    mb.error(g->getParamDecl(expected.size())->getLocation(),
             kind + " rule " + name + " of '" + rule.target + "' has " +
                 llvm::Twine(count) + " parameters; it needs " +
                 llvm::Twine(expected.size()));
    return false;
  }
  QualType wanted = rule.isAdjoint ? mb.ast.VoidTy : result;
  if (!mb.ast.hasSameUnqualifiedType(g->getReturnType(), wanted)) {
    mb.error(g->getLocation(),
             kind + " rule " + name + " must return '" + mb.spell(wanted) +
                 "'" +
                 (rule.isAdjoint
                      ? " (it adds to the adjoints of the parameters)"
                      : " (the tangent of the result)") +
                 ", not '" + mb.spell(g->getReturnType()) + "'");
    return false;
  }
  return true;
}

void ModuleBuilder::attachCustomDerivatives() {
  // The device functions of the file by name (templates excluded: their
  // instantiations have symbols of their own).
  llvm::StringMap<llvm::SmallVector<const FunctionDecl *>> byName;
  for (auto [decl, op] : functions)
    if (isa_and_nonnull<ks::FuncOp>(op) && !decl->isTemplateInstantiation() &&
        decl->getDeclName().isIdentifier())
      byName[decl->getName()].push_back(decl);
  for (auto [decl, op] : functions) {
    std::optional<Rule> rule = getRule(decl);
    if (!rule || !op)
      continue;
    std::string kind = ruleKind(*rule);
    auto candidates = byName.lookup(rule->target);
    if (candidates.empty()) {
      error(rule->loc, kind + " names '" + rule->target +
                           "', which is not a KSC_FUNC device function of "
                           "this file (templates are not supported)");
      continue;
    }
    if (candidates.size() > 1) {
      error(rule->loc, kind + " names '" + rule->target + "', which has " +
                           llvm::Twine(candidates.size()) +
                           " overloads; give the function its own name");
      continue;
    }
    const FunctionDecl *target = candidates.front();
    if (target == decl->getCanonicalDecl()) {
      error(rule->loc, kind + " rule '" + decl->getNameAsString() +
                           "' cannot be the rule of itself");
      continue;
    }
    if (!checkRule(*this, *rule, target))
      continue;
    auto func = cast<ks::FuncOp>(functions.lookup(target));
    llvm::StringLiteral attr =
        rule->isAdjoint ? ks::kCustomAdjointAttr : ks::kCustomTangentAttr;
    if (func->hasAttr(attr)) {
      error(rule->loc, "'" + rule->target + "' has two " + kind +
                           " rules; keep one");
      continue;
    }
    func->setAttr(attr, mlir::FlatSymbolRefAttr::get(
                            cast<ks::FuncOp>(op).getSymNameAttr()));
  }
}
