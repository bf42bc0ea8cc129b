//===- BuiltinRegistry.cpp - The table of the builtins ------------------===//
//
// Part of ksc. ksc::getBuiltins() and `ksc --print-builtins`: the rows of
// include/ksc/Frontend/Builtins.def as data, checked against the prelude.
//
//===----------------------------------------------------------------------===//

#include "ksc/Frontend/Builtins.h"

#include "Builtins.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

using namespace ksc;

llvm::ArrayRef<BuiltinInfo> ksc::getBuiltins() {
  using namespace ksc::builtin;
  static constexpr BuiltinInfo builtins[] = {
#define KSC_BUILTIN(NAME, GROUP, ARITY, OPERANDS, DOMAIN)                     \
  {#NAME, BuiltinGroup::GROUP, ARITY, OPERANDS, DOMAIN},
#include "ksc/Frontend/Builtins.def"
  };
  return builtins;
}

const BuiltinInfo *ksc::lookupBuiltin(llvm::StringRef name) {
  static const llvm::StringMap<const BuiltinInfo *> byName = [] {
    llvm::StringMap<const BuiltinInfo *> map;
    for (const BuiltinInfo &info : getBuiltins())
      map[info.name] = &info;
    return map;
  }();
  return byName.lookup(name);
}

llvm::StringRef ksc::getBuiltinGroupName(BuiltinGroup group) {
  switch (group) {
  case BuiltinGroup::Thread:
    return "thread";
  case BuiltinGroup::Math:
    return "math";
  case BuiltinGroup::Vector:
    return "vector";
  case BuiltinGroup::Quaternion:
    return "quaternion";
  case BuiltinGroup::Random:
    return "random";
  case BuiltinGroup::Atomic:
    return "atomic";
  }
  llvm_unreachable("unknown builtin group");
}

/// The names of the bits of `operands`, as in Builtins.def.
static llvm::json::Array operandNames(unsigned operands) {
  static constexpr std::pair<builtin::Operand, llvm::StringLiteral> names[] = {
      {builtin::Float, "Float"}, {builtin::Int, "Int"},
      {builtin::Uint, "Uint"},   {builtin::Vec, "Vec"},
      {builtin::IntVec, "IntVec"}, {builtin::Vec3, "Vec3"},
      {builtin::Mat, "Mat"},     {builtin::Quat, "Quat"},
      {builtin::Array, "Array"}, {builtin::State, "State"}};
  llvm::json::Array result;
  for (auto [bit, name] : names)
    if (operands & bit)
      result.push_back(name);
  return result;
}

/// Reports on `errors` where the table and the prelude's declarations
/// disagree; returns whether they agree.
static bool checkAgainstPrelude(const frontend::PreludeFunctions &prelude,
                                llvm::raw_ostream &errors) {
  constexpr llvm::StringLiteral table = "include/ksc/Frontend/Builtins.def";
  bool agree = true;
  for (const auto &[name, arities] : prelude) {
    const BuiltinInfo *info = lookupBuiltin(name);
    if (!info) {
      errors << "ksc: error: the prelude (dsl.h) declares '" << name
             << "', which has no row in " << table << "\n";
      agree = false;
      continue;
    }
    if (info->arity < 0)
      continue;
    for (unsigned arity : arities)
      if (arity != unsigned(info->arity)) {
        errors << "ksc: error: the prelude declares '" << name << "' with "
               << arity << " parameters; its row in " << table << " says "
               << info->arity << "\n";
        agree = false;
      }
  }
  for (const BuiltinInfo &info : getBuiltins())
    if (!prelude.count(info.name)) {
      errors << "ksc: error: '" << info.name << "' has a row in " << table
             << " but the prelude (dsl.h) does not declare it\n";
      agree = false;
    }
  return agree;
}

bool ksc::printBuiltins(llvm::raw_ostream &os, llvm::raw_ostream &errors,
                        const FrontendOptions &options) {
  frontend::PreludeFunctions prelude;
  if (!frontend::collectPreludeFunctions(options, prelude) ||
      !checkAgainstPrelude(prelude, errors))
    return false;
  llvm::json::OStream json(os, 2);
  json.array([&] {
    for (const BuiltinInfo &info : getBuiltins())
      json.object([&] {
        json.attribute("name", info.name);
        json.attribute("group", getBuiltinGroupName(info.group));
        json.attribute("arity", info.arity);
        json.attribute("operands", operandNames(info.operands));
        json.attribute("domain", info.domain);
      });
  });
  os << "\n";
  return true;
}
