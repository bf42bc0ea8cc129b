//===- SourceNames.cpp - Source names and locations in ks IR ----------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

llvm::StringRef ksc::getNameFromLoc(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return getNameFromLoc(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (StringRef name = getNameFromLoc(inner); !name.empty())
        return name;
  return "";
}

llvm::SmallVector<llvm::StringRef, 1> ksc::getNamesFromLoc(Location loc) {
  llvm::SmallVector<llvm::StringRef, 1> names;
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(inner))
        names.push_back(name.getName().getValue());
  } else if (StringRef name = getNameFromLoc(loc); !name.empty()) {
    names.push_back(name);
  }
  return names;
}

Location ksc::addNameToLoc(Location loc, llvm::StringRef name) {
  MLIRContext *context = loc->getContext();
  auto named = NameLoc::get(StringAttr::get(context, name),
                            getFileLoc(loc) ? Location(*getFileLoc(loc))
                                            : UnknownLoc::get(context));
  llvm::SmallVector<Location> parts;
  if (auto fused = dyn_cast<FusedLoc>(loc))
    llvm::append_range(parts, fused.getLocations());
  else
    parts.push_back(loc);
  parts.push_back(named);
  // FusedLoc::get would fold a fused location with one part; keep the parts.
  return FusedLoc::get(parts, Attribute(), context);
}

llvm::StringRef ksc::getSourceName(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    bool isEntry = arg.getOwner()->isEntryBlock();
    if (isEntry) {
      if (auto kernel = dyn_cast_or_null<ks::KernelOp>(parent))
        return kernel.getArgName(arg.getArgNumber());
      if (auto func = dyn_cast_or_null<ks::FuncOp>(parent))
        return func.getArgName(arg.getArgNumber());
      if (auto function = dyn_cast_or_null<FunctionOpInterface>(parent))
        if (auto name = function.getArgAttrOfType<StringAttr>(
                arg.getArgNumber(), kNameAttr))
          return name.getValue();
    }
    return getNameFromLoc(arg.getLoc());
  }
  Operation *def = value.getDefiningOp();
  if (def->getNumResults() != 1)
    return "";
  if (StringRef name = getNameFromLoc(def->getLoc()); !name.empty())
    return name;
  if (auto names = def->getAttrOfType<ArrayAttr>(kNamesAttr);
      names && names.size() == 1)
    if (auto name = dyn_cast<StringAttr>(names[0]))
      return name.getValue();
  return "";
}

std::optional<FileLineColRange> ksc::getFileLoc(Location loc) {
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return file;
  if (auto name = dyn_cast<NameLoc>(loc))
    return getFileLoc(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return getFileLoc(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto file = getFileLoc(inner))
        return file;
  return std::nullopt;
}

std::string ksc::formatFileLoc(Location loc) {
  std::optional<FileLineColRange> file = getFileLoc(loc);
  if (!file)
    return "<unknown>";
  return (file->getFilename().getValue() + ":" + Twine(file->getStartLine()) +
          ":" + Twine(file->getStartColumn()))
      .str();
}
