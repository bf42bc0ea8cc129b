//===- Prepare.cpp - What both differentiation modes do first ----------===//
//
// Part of ksc. Before a derivative kernel is built (K_adj by ks-reverse-ad,
// K_jvp by ks-forward-ad): a copy of the kernel gets its device functions
// inlined and the arguments with derivatives are chosen from --wrt and
// from what the kernel writes. Then the new kernel is created with the
// primal arguments followed by the derivative ones.
//
//===----------------------------------------------------------------------===//

#include "AD.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

LogicalResult ad::inlineCalls(KernelOp kernel, SymbolTable &symbols,
                              function_ref<bool(FuncOp)> keep) {
  while (true) {
    SmallVector<CallOp> calls;
    kernel.walk([&](CallOp call) {
      auto callee = symbols.lookup<FuncOp>(call.getCallee());
      if (!callee || !keep(callee))
        calls.push_back(call);
    });
    if (calls.empty())
      return success();
    for (CallOp call : calls) {
      auto callee = symbols.lookup<FuncOp>(call.getCallee());
      if (!callee || callee.isDeclaration())
        return call.emitError("cannot differentiate a call to '")
               << call.getCallee() << "', which has no body";
      OpBuilder b(call);
      IRMapping mapping;
      Block &body = callee.getBody().front();
      mapping.map(body.getArguments(), call.getOperands());
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      auto ret = cast<ReturnOp>(body.getTerminator());
      for (auto [result, value] :
           llvm::zip(call.getResults(), ret.getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(value));
      call.erase();
    }
  }
}

bool ad::isDifferentiableArgument(Type type) {
  if (auto array = dyn_cast<ArrayType>(type))
    return isDifferentiable(array.getElementType());
  return isDifferentiable(type);
}

FailureOr<ad::DerivativeArguments>
ad::chooseArguments(KernelOp kernel, const PrimalWrites &writes,
                    const llvm::StringSet<> &wanted, llvm::StringSet<> &seen,
                    unsigned numCandidates) {
  unsigned n = kernel.getNumArguments();
  DerivativeArguments args;
  args.activeInputs.assign(n, false);
  args.hasDerivative.assign(n, false);
  for (unsigned i = 0; i < n; ++i) {
    StringRef name = kernel.getArgName(i);
    Type type = kernel.getArgumentTypes()[i];
    bool differentiable = isDifferentiableArgument(type);
    bool named = i < numCandidates && wanted.contains(name);
    if (named) {
      seen.insert(name);
      if (!differentiable)
        return kernel.emitError("cannot differentiate with respect to '")
               << name << "': its type " << type << " has no derivative";
    }
    args.activeInputs[i] =
        differentiable && (named || (wanted.empty() && i < numCandidates));
    args.hasDerivative[i] =
        args.activeInputs[i] || (differentiable && writes.written[i]);
    if (args.hasDerivative[i])
      args.derivativeOf.push_back(i);
  }
  return args;
}

LogicalResult ad::differentiateKernels(ModuleOp module,
                                       ArrayRef<std::string> wrt,
                                       function_ref<bool(KernelOp)> select,
                                       DifferentiateFn differentiate) {
  llvm::StringSet<> wanted;
  for (const std::string &name : wrt)
    wanted.insert(name);
  llvm::StringSet<> seen;
  SmallVector<KernelOp> kernels;
  for (auto kernel : module.getOps<KernelOp>())
    if (select(kernel))
      kernels.push_back(kernel);
  for (KernelOp kernel : kernels)
    if (failed(differentiate(kernel, wanted, seen)))
      return failure();
  for (const auto &entry : wanted)
    if (!seen.contains(entry.getKey()))
      return module.emitError("--wrt names '")
             << entry.getKey() << "', which is not an argument of any kernel";
  return success();
}

/// The derivatives of atomic_min and atomic_max read the values the launch
/// leaves in the array (which update each element ends with): refuses any
/// other access of such an array with a derivative, whose derivative would
/// read the values before the launch. Lists the arrays in `setup`.
static LogicalResult checkMinMax(KernelOp kernel, ad::DerivativeSetup &setup) {
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    if (!setup.args.hasDerivative[i])
      continue;
    Operation *minMax = setup.writes.minMax[i];
    Operation *other = setup.writes.otherAccess[i];
    // A min or max whose old value is used.
    if (auto atomic = dyn_cast_or_null<AtomicRMWOp>(other);
        atomic && (atomic.getKind() == AtomicKind::min ||
                   atomic.getKind() == AtomicKind::max))
      return atomic.emitError("cannot differentiate the value an atomic "
                              "update returns: it depends on the order of "
                              "the threads; read the element with a[i] "
                              "instead");
    if (!minMax)
      continue;
    if (other) {
      auto atomic = cast<AtomicRMWOp>(minMax);
      InFlightDiagnostic diag =
          other->emitError("cannot differentiate this access of '")
          << kernel.getArgName(i) << "': the kernel also updates it with atomic_"
          << stringifyAtomicKind(atomic.getKind())
          << ", whose derivative reads the values the launch leaves in it";
      diag.attachNote(minMax->getLoc()) << "updated here";
      return diag;
    }
    setup.finalValueArgs.push_back(i);
  }
  return success();
}

ad::DerivativeSetup::~DerivativeSetup() {
  if (work)
    work.erase();
}

LogicalResult ad::setUpDerivative(KernelOp kernel, SymbolTable &symbols,
                                  StringRef name, StringRef what,
                                  StringRef ofAttr,
                                  const llvm::StringSet<> &wanted,
                                  llvm::StringSet<> &seen,
                                  unsigned numCandidates,
                                  DerivativeSetup &setup) {
  if (Operation *existing = symbols.lookup(name)) {
    for (unsigned i = 0; i < numCandidates; ++i)
      if (wanted.contains(kernel.getArgName(i)))
        seen.insert(kernel.getArgName(i));
    // The pass ran before (or the module came with the kernel).
    if (auto of = existing->getAttrOfType<FlatSymbolRefAttr>(ofAttr);
        of && of.getValue() == kernel.getSymName())
      return success();
    return kernel.emitError("cannot name the ")
           << what << " of '" << kernel.getSymName() << "' '" << name
           << "': the module has a symbol of that name";
  }
  // Work on a copy with the device functions inlined.
  OpBuilder b(kernel);
  setup.work = cast<KernelOp>(b.clone(*kernel));
  setup.work.setSymName((name + "_work").str());
  // Calls of functions with custom rules for this mode stay: their
  // derivatives call the rules (CallOp's DerivativeOpInterface). Forward
  // mode can also use an adjoint rule.
  bool forward = ofAttr == kTangentOfAttr;
  auto hasRule = [&](FuncOp callee) {
    return callee->hasAttr(kCustomAdjointAttr) ||
           (forward && callee->hasAttr(kCustomTangentAttr));
  };
  if (failed(inlineCalls(setup.work, symbols, hasRule)))
    return failure();
  // Arrays written anywhere, device functions included.
  setup.writes = analyzePrimalWrites(setup.work);
  FailureOr<DerivativeArguments> args =
      chooseArguments(kernel, setup.writes, wanted, seen, numCandidates);
  if (failed(args))
    return failure();
  setup.args = std::move(*args);
  if (failed(checkMinMax(kernel, setup)))
    return failure();
  if (setup.args.derivativeOf.empty()) {
    setup.work.erase();
    setup.work = nullptr;
  }
  return success();
}

KernelOp ad::createDerivativeKernel(OpBuilder &b, KernelOp kernel,
                                    StringRef name, ArrayRef<Type> extraTypes,
                                    ArrayRef<std::string> extraNames,
                                    ArrayRef<int64_t> finalValueArgs) {
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs.append(extraTypes.begin(), extraTypes.end());
  SmallVector<StringRef> names;
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
    names.push_back(kernel.getArgName(i));
  names.append(extraNames.begin(), extraNames.end());
  b.setInsertionPointAfter(kernel);
  auto derived = KernelOp::create(b, kernel.getLoc(), name,
                                  b.getFunctionType(inputs, {}), names);
  // The source's attributes, not those saying what `kernel` derives from.
  for (NamedAttribute attr : kernel->getDiscardableAttrs())
    if (!llvm::is_contained({kAdjointOfAttr, kAdjointArgsAttr, kTangentOfAttr,
                             kTangentArgsAttr, kTangentWidthAttr,
                             kFinalValueArgsAttr},
                            attr.getName().strref()))
      derived->setAttr(attr.getName(), attr.getValue());
  if (ArrayAttr argAttrs = kernel.getArgAttrsAttr()) {
    SmallVector<Attribute> all(argAttrs.begin(), argAttrs.end());
    all.append(extraTypes.size(), b.getDictionaryAttr({}));
    derived.setArgAttrsAttr(b.getArrayAttr(all));
  }
  if (!finalValueArgs.empty())
    derived->setAttr(kFinalValueArgsAttr,
                     b.getDenseI64ArrayAttr(finalValueArgs));
  return derived;
}
