//===- EmitFunc.cpp - Modules, functions and launchers as C++ ---------===//
//
// Part of ksc. A module lowered by `convert-ks-to-cpu` becomes:
//
//   #include "ksc_runtime.h"
//   static float sq(float v) { ... }                       // ks.func
//   static KSC_INLINE void saxpy(int tid, float a, ...) { ... } // a thread
//   void launch_saxpy(int64_t dim, float a, ...) { ... }   // typed launch
//   extern "C" int ksc_launch_saxpy(int64_t dim, void *const *args,
//                                   char *error, size_t error_size);
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Config.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Support/Escape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Iterators.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

bool ksc::cpp::isCppIdentifier(StringRef name) {
  if (name.empty() || !(isalpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return isalnum(c) || c == '_'; });
}

/// The name of argument `index` of `func`, from its `ks.name` attribute.
static StringRef argName(func::FuncOp func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr))
    return name.getValue();
  return "";
}

std::string Emitter::calleeName(StringRef symbol) {
  std::string name = functionNames.lookup(symbol);
  func::FuncOp callee = functionsByName.lookup(symbol);
  if (inPublicFunction && callee && callee.isPrivate())
    return (kKernelNamespace + "::" + name).str();
  return name;
}

SmallVector<Expr> Emitter::callArguments(func::CallOp op,
                                         ArrayRef<unsigned> skip) {
  func::FuncOp callee = functionsByName.lookup(op.getCallee());
  SmallVector<Expr> args;
  for (auto [index, arg] : llvm::enumerate(op.getOperands())) {
    if (llvm::is_contained(skip, index)) {
      args.push_back(Expr());
      continue;
    }
    args.push_back(operandAs(arg, callee && ks::isUnsignedArg(callee, index)));
  }
  return args;
}

/// Whether result `index` of the function `op` calls is a `uint32_t`.
static bool isUnsignedCallResult(Emitter &emitter, func::CallOp op,
                                 unsigned index) {
  func::FuncOp callee = emitter.functionsByName.lookup(op.getCallee());
  return callee && ks::isUnsignedResult(callee, index);
}

FailureOr<Expr> Emitter::buildCallExpr(func::CallOp op) {
  Expr result = call(calleeName(op.getCallee()), callArguments(op));
  result.readsMemory = true;
  result.isUnsigned = isUnsignedCallResult(*this, op, 0);
  return result;
}

/// The variables of the in-out parameters of the function being printed.
SmallVector<unsigned> Emitter::inoutParamVars(func::FuncOp func) {
  SmallVector<unsigned> slots;
  for (unsigned index : ks::getInoutArgs(func))
    slots.push_back(varOf.lookup(func.getArgument(index)));
  return slots;
}

LogicalResult Emitter::emitReturn(func::ReturnOp op) {
  auto func = op->getParentOfType<func::FuncOp>();
  unsigned direct = ks::getNumDirectResults(func);
  if (direct > 1)
    return op.emitError("cannot emit a function with several results as C++");
  // In-out parameters get their final values, then the result is returned;
  // a result that reads a parameter about to change is computed first.
  SmallVector<unsigned> slots = inoutParamVars(func);
  ValueRange finals = op.getOperands().drop_front(direct);
  std::optional<Expr> result;
  if (direct == 1) {
    result = operandAs(op.getOperand(0), ks::isUnsignedResult(func, 0));
    bool readsSlot = false;
    for (auto [slot, final] : llvm::zip(slots, finals))
      if (vars[slot].current != final &&
          llvm::is_contained(result->reads, slot))
        readsSlot = true;
    if (readsSlot) {
      unsigned temp =
          newVar("result", cppType(op.getOperand(0).getType(),
                                   ks::isUnsignedResult(func, 0)));
      os << declare(temp) << " = " << result->text << ";\n";
      result = Expr(vars[temp].name, kPrimary);
    }
  }
  if (failed(assignSlots(slots, finals)))
    return failure();
  if (result)
    os << "return " << result->text << ";\n";
  return success();
}

bool Emitter::hasInoutArgs(func::CallOp op) {
  func::FuncOp callee = functionsByName.lookup(op.getCallee());
  return callee && !ks::getInoutArgs(callee).empty();
}

LogicalResult Emitter::emitInoutCall(func::CallOp op) {
  func::FuncOp callee = functionsByName.lookup(op.getCallee());
  SmallVector<unsigned> inout = ks::getInoutArgs(callee);
  unsigned direct = op.getNumResults() - inout.size();
  // Each in-out argument needs a variable the call can write: the one that
  // holds the value if it dies here, else a copy.
  SmallVector<Type> types;
  SmallVector<std::string> names;
  SmallVector<Value> inits;
  SmallVector<SmallVector<Value>> candidates;
  auto recorded = op->getAttrOfType<ArrayAttr>(kNamesAttr);
  for (auto [k, index] : llvm::enumerate(inout)) {
    Value operand = op.getOperand(index);
    // The variable binds to the reference parameter: it has its type.
    types.push_back(
        cppType(operand.getType(), ks::isUnsignedArg(callee, index)));
    // Named like the source variable the call writes, else like the
    // variable that holds the value, so that it is reused.
    std::string name;
    if (recorded && recorded.size() == op.getNumResults())
      if (auto str = dyn_cast<StringAttr>(recorded[direct + k]))
        name = str.getValue().str();
    if (auto it = varOf.find(operand);
        name.empty() && it != varOf.end() &&
        vars[it->second].current == operand)
      name = vars[it->second].baseName;
    if (name.empty())
      name = getSourceName(operand).str();
    if (name.empty())
      name = argName(callee, index).str();
    names.push_back(name);
    inits.push_back(operand);
    candidates.push_back({operand});
  }
  FailureOr<SmallVector<unsigned>> slots =
      makeSlots(op, types, names, inits, candidates);
  if (failed(slots))
    return failure();
  SmallVector<Expr> args = callArguments(op, inout);
  std::string text = calleeName(op.getCallee()) + "(";
  llvm::ListSeparator sep;
  for (auto [index, arg] : llvm::enumerate(args)) {
    text += sep;
    if (const unsigned *slot = llvm::find(inout, index); slot != inout.end())
      text += vars[(*slots)[slot - inout.begin()]].name;
    else
      text += operand(arg, kAssign);
  }
  text += ")";
  if (direct == 1 && !op.getResult(0).use_empty()) {
    Value result = op.getResult(0);
    Expr value(text, kPostfix);
    value.isUnsigned = isUnsignedCallResult(*this, op, 0);
    if (result.getType().isSignlessInteger(32))
      value = withSign(value, isUnsigned(result));
    unsigned var = newVar(chooseName(result), cppType(result));
    os << declare(var) << " = " << value.text << ";\n";
    bindVar(result, var);
  } else {
    os << text << ";\n";
  }
  for (auto [slot, result] :
       llvm::zip(*slots, op.getResults().drop_front(direct)))
    bindVar(result, slot);
  return success();
}

/// `static float sq(float v)`; `names` are the parameter names.
static FailureOr<std::string> signature(Emitter &emitter, func::FuncOp func,
                                        ArrayRef<std::string> names) {
  FunctionType type = func.getFunctionType();
  std::string result;
  if (func.isPrivate()) {
    // A device function the file defines but never calls is still emitted;
    // say so, to keep -Wunused-function quiet.
    if (!emitter.calledFunctions.contains(func.getSymName()))
      result += "[[maybe_unused]] ";
    result += "static ";
    if (emitter.isCuda())
      result += "__device__ ";
    // Inlined into the launcher's loop whatever the host compiler's
    // heuristics say (a call per thread costs more than many bodies).
    if (emitter.threadBodies.contains(func.getSymName()))
      result += emitter.isCuda() ? "__forceinline__ " : "KSC_INLINE ";
  }
  // A CUDA launcher is the kernel's __global__ function, named after it.
  auto kernel = func->getAttrOfType<StringAttr>(kLaunchOfAttr);
  bool cudaKernel = emitter.isCuda() && kernel;
  if (cudaKernel)
    result += "__global__ ";
  unsigned direct = ks::getNumDirectResults(func);
  if (direct > 1)
    return func.emitError("cannot emit a function with several results as C++");
  SmallVector<unsigned> inout = ks::getInoutArgs(func);
  if (direct == 0) {
    result += "void";
  } else {
    FailureOr<std::string> ret = emitter.typeName(
        emitter.cppType(type.getResult(0), ks::isUnsignedResult(func, 0)),
        func.getLoc());
    if (failed(ret))
      return failure();
    result += *ret;
  }
  result += " ";
  if (cudaKernel)
    result += emitter.cudaKernelQualifiers() +
              emitter.functionNames.lookup(kernel.getValue());
  else
    result += emitter.functionNames.lookup(func.getSymName());
  result += "(";
  llvm::ListSeparator sep;
  for (auto [index, input, name] :
       llvm::enumerate(type.getInputs(), names)) {
    FailureOr<std::string> param = emitter.typeName(
        emitter.cppType(input, ks::isUnsignedArg(func, index)), func.getLoc());
    if (failed(param))
      return failure();
    result += std::string(StringRef(sep)) + *param;
    if (llvm::is_contained(inout, index))
      result += " &" + name;
    else if (!name.empty())
      result += " " + name;
  }
  return result + ")";
}

std::string Emitter::launcherComment(func::FuncOp launcher, StringRef kernel) {
  if (!isCuda()) {
    if (!launcher.getOps<ks::ParallelLaunchOp>().empty())
      return ("// Runs the threads of a launch of kernel " + kernel +
              " on the CPU's cores: chunks of\n// consecutive threads, "
              "each chunk's threads in order (ksc::parallel_launch).\n")
          .str();
    return ("// Runs every thread of a launch of kernel " + kernel +
            ", one after another.\n")
        .str();
  }
  std::string comment;
  if (isSerialLauncher(launcher))
    comment = ("// Kernel " + kernel +
               " on the GPU, launched on one GPU thread (ksc\n// "
               "--deterministic), which runs every thread of the launch "
               "grid in order.\n")
                  .str();
  else
    comment =
        ("// Kernel " + kernel + " on the GPU: the GPU thread with index\n" +
         "// blockIdx.x * blockDim.x + threadIdx.x runs " +
         (isGridStrideLauncher(launcher)
              ? "the thread of the launch\n// grid with that index "
                "and every gridDim.x * blockDim.x-th after it.\n"
              : "the thread of the launch\n// grid with that index, "
                "if there is one.\n"))
            .str();
  if (!hasBlockSums(launcher))
    return comment;
  bool ordered = llvm::any_of(
      launcher.getOps<ks::FlushAccumulatorOp>(),
      [](ks::FlushAccumulatorOp flush) { return bool(flush.getPartials()); });
  return comment +
         (ordered ? "// Sums at constant indices are kept per GPU thread, "
                    "added up across\n// the block at the end, and the "
                    "blocks' sums added in block order by\n// the last "
                    "block (ksc --deterministic).\n"
                  : "// Sums at constant indices are kept per GPU thread "
                    "and added up across\n// the block at the end: one "
                    "atomic update per element and block.\n");
}

LogicalResult Emitter::emitFunction(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError(
        "cannot emit a function with other than one block as C++");
  vars.clear();
  varOf.clear();
  exprOf.clear();
  preferredSlot.clear();
  openNames.clear();
  firstFreeSuffix.clear();
  openVarsByBaseName.clear();
  scopes.clear();
  inPublicFunction = !func.isPrivate();
  analyzeFunction(func);
  analyzeSignedness(func);

  pushScope();
  Block &entry = func.getBody().front();
  SmallVector<std::string> names;
  SmallVector<unsigned> inout = ks::getInoutArgs(func);
  for (BlockArgument arg : entry.getArguments()) {
    StringRef name = argName(func, arg.getArgNumber());
    unsigned var = newVar(
        name.empty() ? "arg" + std::to_string(arg.getArgNumber()) : name.str(),
        cppType(arg));
    bindVar(arg, var);
    // An unused parameter keeps its name in a comment (-Wunused-parameter);
    // an in-out parameter is always written.
    bool unused = arg.use_empty() &&
                  !llvm::is_contained(inout, arg.getArgNumber());
    vars[var].reusable = !unused;
    names.push_back(unused ? "/*" + vars[var].name + "*/" : vars[var].name);
  }
  // The final values of in-out parameters are computed into them.
  preferSlots(entry, inoutParamVars(func),
              entry.getTerminator()->getOperands().drop_front(
                  ks::getNumDirectResults(func)));
  FailureOr<std::string> sig = signature(*this, func, names);
  if (failed(sig))
    return failure();
  std::string comment;
  if (auto kernel = func->getAttrOfType<StringAttr>(kLaunchOfAttr))
    comment = launcherComment(func, kernel.getValue());
  if (!func.isPrivate()) {
    // The header declares it with every parameter named.
    SmallVector<std::string> declNames;
    for (BlockArgument arg : entry.getArguments())
      declNames.push_back(vars[varOf.lookup(arg)].name);
    FailureOr<std::string> decl = signature(*this, func, declNames);
    if (failed(decl))
      return failure();
    // A `__global__` function is declared to CUDA translation units only.
    bool cudaKernel = isCuda() && func->hasAttr(kLaunchOfAttr);
    headerDeclarations += (cudaKernel ? "#ifdef __CUDACC__\n" : "") +
                          comment + *decl + ";\n" +
                          (cudaKernel ? "#endif\n\n" : "\n");
  }
  os << comment << *sig << " {\n";
  os.indent();
  // The OS thread's tape is found once per call: at every push and pop,
  // the thread-local lookup of code compiled with -fPIC (a shared library,
  // ksc-run's kernels) is a call that also makes the loop spill its
  // floats, which made adjoints of loops three times slower.
  threadTape.clear();
  bool usesThreadTape = false;
  func.walk([&](Operation *op) {
    if (auto push = dyn_cast<ks::TapePushOp>(op))
      usesThreadTape |= !push.getTape();
    else if (auto pop = dyn_cast<ks::TapePopOp>(op))
      usesThreadTape |= !pop.getTape();
    else if (auto capacity = dyn_cast<ks::TapeCapacityOp>(op))
      usesThreadTape |= !capacity.getTape();
  });
  if (usesThreadTape) {
    unsigned var = newVar("tape", ks::TapeType::get(func.getContext()));
    vars[var].reusable = false;
    threadTape = vars[var].name;
    os << "ksc::tape &" << threadTape << " = ksc::thread_tape();\n";
  }
  LogicalResult result = emitBlock(entry);
  if (succeeded(result))
    result = emitReturn(cast<func::ReturnOp>(entry.getTerminator()));
  os.unindent();
  os << "}\n\n";
  popScope();
  return result;
}

LogicalResult Emitter::emitLauncherEntry(func::FuncOp launcher) {
  StringRef kernel =
      launcher->getAttrOfType<StringAttr>(kLaunchOfAttr).getValue();
  FunctionType type = launcher.getFunctionType();
  if (type.getNumInputs() == 0 || !isa<ks::GridType>(type.getInput(0)))
    return launcher.emitError("a launcher takes the launch grid (!ks.grid) "
                              "as its first argument");
  std::string comment =
      "// C entry point: dim[0..2] are the extents of the launch grid,\n"
      "// args[i] points to argument i (a scalar, or a ksc_array_desc for\n"
      "// an array). Returns 0, or 1 with a message in error.\n";
  std::string symbol = cSymbol(("ksc_launch_" + kernel).str());
  headerDeclarations += comment + "extern \"C\" int " + symbol +
                        "(const int64_t *dim, void *const *args, char "
                        "*error, size_t error_size);\n\n";
  // A kernel without parameters reads no args.
  os << comment << "extern \"C\" int " << symbol
     << "(const int64_t *dim, void *const *"
     << (type.getNumInputs() > 1 ? "args" : "/*args*/")
     << ", char *error, size_t error_size) {\n";
  os.indent();
  os << "ksc::grid grid(dim[0], dim[1], dim[2]);\n";
  os << "return ksc::run_launch(" << cppStringLiteral(kernel)
     << ", grid, error, error_size, [&] {\n";
  os.indent();
  os << functionNames.lookup(launcher.getSymName()) << "(grid";
  for (auto [index, input] : llvm::enumerate(type.getInputs().drop_front())) {
    FailureOr<std::string> name = typeName(
        cppType(input, ks::isUnsignedArg(launcher, index + 1)),
        launcher.getLoc());
    if (failed(name))
      return failure();
    os << ",\n    ksc::arg<" << *name << ">(args[" << index << "])";
  }
  os << ");\n";
  os.unindent();
  os << "});\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult Emitter::emitModule(ModuleOp m) {
  module = m;
  SmallVector<func::FuncOp> functions;
  llvm::DenseMap<Operation *, unsigned> position;
  for (Operation &op : m.getBody()->getOperations()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func) {
      if (isa<ks::KernelOp, ks::FuncOp>(op))
        return op.emitError("cannot emit '")
               << op.getName() << "' as C++; lower it with convert-ks-to-cpu";
      return op.emitError("cannot emit '") << op.getName() << "' as C++";
    }
    if (func.isExternal())
      return func.emitError("cannot emit a function declaration as C++");
    if (!isCppIdentifier(func.getSymName()))
      return func.emitError("function name '")
             << func.getSymName() << "' is not a C++ identifier";
    position[func] = functions.size();
    functions.push_back(func);
    functionsByName[func.getSymName()] = func;
  }
  // The functions the C++ calls: a call is not printed when nothing printed
  // reads its results and the callee has no effects (`bump(k);`), nor is
  // anything it alone reads.
  llvm::DenseSet<Operation *> dead;
  for (bool changed = true; changed;) {
    changed = false;
    m.walk<WalkOrder::PostOrder, mlir::ReverseIterator>([&](Operation *op) {
      if (dead.contains(op) || op->getNumResults() == 0 ||
          op->getNumRegions() != 0 || hasWriteEffects(*op) ||
          !llvm::all_of(op->getUsers(),
                        [&](Operation *user) { return dead.contains(user); }))
        return;
      dead.insert(op);
      changed = true;
    });
  }
  m.walk([&](func::CallOp call) {
    if (dead.contains(call))
      return;
    calledFunctions.insert(call.getCallee());
    if (call->getParentOfType<func::FuncOp>()->hasAttr(kLaunchOfAttr))
      threadBodies.insert(call.getCallee());
  });
  // Private functions go into kKernelNamespace; names that are macros of
  // the C headers get a trailing underscore.
  for (func::FuncOp func : functions) {
    std::string name = getCppFunctionName(func.getSymName());
    reservedNames.insert(name);
    functionNames[func.getSymName()] = name;
  }

  os << banner();
  if (options.standalone) {
    os << "// The ksc runtime header is included below (--standalone).\n\n";
    os << getCpuRuntimeHeader() << "\n\n";
  } else {
    os << "#include \"ksc_runtime.h\"\n\n";
  }

  // Everything the file defines is in the namespace; the extern "C"
  // functions too (they are found by C++ name lookup there), under names
  // unique per namespace (cSymbol).
  if (!options.cppNamespace.empty())
    os << "namespace " << options.cppNamespace << " {\n\n";
  if (failed(capture(structDeclarations,
                     [&] { return emitStructDeclarations(); })))
    return failure();
  os << structDeclarations;

  // C++ needs a declaration before a call; the frontend orders functions
  // that way already, IR from elsewhere may not.
  llvm::SetVector<Operation *> forward;
  for (func::FuncOp func : functions)
    func.walk([&](func::CallOp call) {
      func::FuncOp callee = functionsByName.lookup(call.getCallee());
      if (!callee)
        return;
      if (position.lookup(callee) >= position.lookup(func))
        forward.insert(callee);
    });
  bool anyPrivate = llvm::any_of(
      functions, [](func::FuncOp func) { return func.isPrivate(); });
  if (anyPrivate)
    os << "namespace " << kKernelNamespace << " {\n\n";
  for (Operation *op : forward) {
    auto func = cast<func::FuncOp>(op);
    if (!func.isPrivate())
      continue;
    SmallVector<std::string> names;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      names.push_back(argName(func, i).str());
    FailureOr<std::string> sig = signature(*this, func, names);
    if (failed(sig))
      return failure();
    os << *sig << ";\n";
  }
  if (!forward.empty())
    os << "\n";

  // Device functions and thread bodies first (in the namespace), then the
  // launchers and entry points, which call them.
  for (func::FuncOp func : functions)
    if (func.isPrivate() && failed(emitFunction(func)))
      return failure();
  if (anyPrivate)
    os << "} // namespace " << kKernelNamespace << "\n\n";
  for (func::FuncOp func : functions) {
    if (func.isPrivate())
      continue;
    if (failed(emitFunction(func)))
      return failure();
    if (!func->hasAttr(kLaunchOfAttr))
      continue;
    if (failed(isCuda() ? emitCudaLaunch(func) : emitLauncherEntry(func)))
      return failure();
  }
  if (!options.cppNamespace.empty())
    os << "} // namespace " << options.cppNamespace << "\n";
  return failure(hadError);
}

std::string Emitter::cSymbol(StringRef name) const {
  if (options.cppNamespace.empty())
    return name.str();
  SmallVector<StringRef> components;
  StringRef(options.cppNamespace).split(components, "::");
  return llvm::join(components, "__") + "__" + name.str();
}

std::string Emitter::banner() const {
  std::string text = "// Generated by ksc " KSC_VERSION;
  if (!options.sourceName.empty())
    text += " from " + escapeLineComment(options.sourceName);
  return text + ". Do not edit.\n";
}

void Emitter::emitHeader(raw_ostream &header) {
  header << banner()
         << "// Declares what the " << (isCuda() ? "CUDA C++" : "C++")
         << " ksc emits from it defines (--emit-header).\n"
         << "#pragma once\n"
         << "#include \"ksc_runtime.h\"\n\n";
  if (isCuda())
    header << "// cudaStream_t is `CUstream_st *`: declared here so that "
              "host code can call\n// the launch functions without the CUDA "
              "headers.\nstruct CUstream_st;\n\n";
  if (!options.cppNamespace.empty())
    header << "namespace " << options.cppNamespace << " {\n\n";
  header << structDeclarations << headerDeclarations;
  if (!options.cppNamespace.empty())
    header << "} // namespace " << options.cppNamespace << "\n";
}

LogicalResult ksc::translateToCpp(ModuleOp module, raw_ostream &os,
                                  const CppEmitterOptions &options,
                                  raw_ostream *header) {
  Emitter emitter(options);
  if (failed(emitter.emitModule(module)))
    return failure();
  // No blank line at the end of a file.
  StringRef text = emitter.output;
  os << text.rtrim('\n') << "\n";
  if (header) {
    std::string headerText;
    llvm::raw_string_ostream headerStream(headerText);
    emitter.emitHeader(headerStream);
    *header << StringRef(headerText).rtrim('\n') << "\n";
  }
  return success();
}
