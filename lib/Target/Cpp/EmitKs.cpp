//===- EmitKs.cpp - ks array operations as C++ ------------------------===//
//
// Part of ksc. `ks.load`/`ks.store` become subscripts of `ksc::array`
// (`x[i]` in 1-D, `x(i, j)` otherwise), `ks.slice` subscripts of a
// multi-dimensional array (`a[i]`, a view), `ks.dim` a call of `shape`,
// `ks.check_bounds` a call of the runtime's `ksc::check_bounds`,
// `ks.atomic_rmw` a call of `ksc::atomic_add` (`_sub`, `_min`, `_max`), and
// `ks.grid_extent`/`ks.grid_size` the members of `ksc::grid`, and
// `ks.tape_push`/`ks.tape_pop` calls of the tape's `push` and `pop` (the
// GPU thread's tape argument, or the OS thread's tape), and
// `ks.accumulator` a `ksc::accumulator` of a launcher.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Support/Escape.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

/// `array[i]` or `array(i, j, ...)`.
static Expr subscript(Emitter &emitter, Value array, ValueRange indices) {
  Expr base = emitter.valueExpr(array);
  Expr result;
  result.merge(base);
  std::string text = Emitter::operand(base, kPostfix);
  text += indices.size() == 1 ? "[" : "(";
  llvm::ListSeparator sep;
  for (Value index : indices) {
    // Indices are signed.
    Expr e = emitter.operandAs(index, false);
    text += std::string(StringRef(sep)) + Emitter::operand(e, kAssign);
    result.merge(e);
  }
  text += indices.size() == 1 ? "]" : ")";
  result.text = std::move(text);
  result.prec = kPostfix;
  return result;
}

FailureOr<Expr> Emitter::buildKsExpr(Operation &op) {
  if (auto load = dyn_cast<ks::LoadOp>(op)) {
    Expr result = subscript(*this, load.getArray(), load.getIndices());
    result.readsMemory = true;
    result.isUnsigned =
        load.getArray().getType().getElementType().isUnsignedInteger(32);
    return result;
  }
  // `ksc::atomic_add(a, i, j, v)`: a statement when the old value is unused.
  // A field of a struct element, a component of a vector one:
  // `ksc::atomic_add(&a[i].pos, v)`, `ksc::atomic_exchange(&a[i][2], v)`.
  if (auto atomic = dyn_cast<ks::AtomicRMWOp>(op)) {
    bool isUnsignedElement = atomic.getTargetType().isUnsignedInteger(32);
    SmallVector<Expr> args;
    if (std::optional<ArrayRef<int64_t>> fields = atomic.getFields()) {
      Expr field = subscript(*this, atomic.getArray(), atomic.getIndices());
      Type type = atomic.getArray().getType().getElementType();
      for (int64_t index : *fields) {
        if (auto structType = dyn_cast<ks::StructType>(type))
          field.text += "." + cpp::fieldName(structType, index);
        else
          field.text += "[" + std::to_string(index) + "]";
        type = ks::getPartType(type, index);
      }
      field.text = "&" + field.text;
      field.prec = kUnary;
      args.push_back(std::move(field));
    } else {
      args.push_back(valueExpr(atomic.getArray()));
      for (Value index : atomic.getIndices())
        args.push_back(valueExpr(index));
    }
    args.push_back(operandAs(atomic.getValue(), isUnsignedElement));
    // `ksc::exclusive_add`: the same update as a plain read and write;
    // `ksc::aggregate_add`: combined across the warp first (GPU code).
    StringRef prefix = atomic.getExclusive()   ? "ksc::exclusive_"
                       : atomic.getAggregate() ? "ksc::aggregate_"
                                               : "ksc::atomic_";
    Expr result = call(
        (prefix + ks::stringifyAtomicKind(atomic.getKind())).str(), args);
    result.readsMemory = true;
    result.isUnsigned = isUnsignedElement;
    return result;
  }
  // `a[i]`, `a[i][j]`: the runtime's subscript of a multi-dimensional array
  // is the view of a slice.
  if (auto slice = dyn_cast<ks::SliceOp>(op)) {
    Expr result = valueExpr(slice.getArray());
    result.text = operand(result, kPostfix);
    for (Value index : slice.getIndices()) {
      Expr e = operandAs(index, false);
      result.text += "[" + operand(e, kAssign) + "]";
      result.merge(e);
    }
    result.prec = kPostfix;
    result.isUnsigned = false;
    return result;
  }
  // array<T> converts to array<const T> implicitly in C++.
  if (auto asConst = dyn_cast<ks::AsConstOp>(op))
    return valueExpr(asConst.getArray());
  if (auto dim = dyn_cast<ks::DimOp>(op)) {
    Expr base = valueExpr(dim.getArray());
    Expr result(operand(base, kPostfix) + ".shape(" +
                    std::to_string(dim.getDim()) + ")",
                kPostfix);
    result.merge(base);
    return result;
  }
  if (auto extent = dyn_cast<ks::GridExtentOp>(op)) {
    Expr base = valueExpr(extent.getGrid());
    Expr result(operand(base, kPostfix) + "." + "xyz"[extent.getDim()],
                kPostfix);
    result.merge(base);
    return result;
  }
  if (auto init = dyn_cast<ks::RandInitOp>(op)) {
    SmallVector<Expr> args = {operandAs(init.getSeed(), false)};
    if (init.getOffset())
      args.push_back(operandAs(init.getOffset(), false));
    Expr result = call("ksc::rand_init", args);
    result.isUnsigned = true;
    return result;
  }
  // `tape.pop<float>()`: ordered like an atomic update.
  if (auto pop = dyn_cast<ks::TapePopOp>(op)) {
    FailureOr<std::string> type = typeName(pop.getType(), op.getLoc());
    if (failed(type))
      return failure();
    // A GPU thread's tape is an argument; the CPU's the OS thread's, found
    // once per function (threadTape).
    std::string tape = pop.getTape()
                           ? operand(valueExpr(pop.getTape()), kPostfix)
                           : threadTape;
    Expr result(tape + ".pop<" + *type + ">()", kPostfix);
    result.readsMemory = true;
    result.isUnsigned = false;
    return result;
  }
  if (auto capacity = dyn_cast<ks::TapeCapacityOp>(op)) {
    std::string tape = capacity.getTape()
                           ? operand(valueExpr(capacity.getTape()), kPostfix)
                           : threadTape;
    Expr result(tape + ".capacity()", kPostfix);
    result.readsMemory = true;
    return result;
  }
  if (auto size = dyn_cast<ks::GridSizeOp>(op)) {
    Expr base = valueExpr(size.getGrid());
    Expr result(operand(base, kPostfix) + ".size()", kPostfix);
    result.merge(base);
    return result;
  }
  return op.emitError("cannot emit '")
         << op.getName() << "' as C++ (not supported by the C++ emitter)";
}

LogicalResult Emitter::emitKsStatement(Operation &op) {
  if (auto store = dyn_cast<ks::StoreOp>(op)) {
    Expr target = subscript(*this, store.getArray(), store.getIndices());
    bool isUnsignedElement =
        store.getArray().getType().getElementType().isUnsignedInteger(32);
    os << target.text << " = "
       << operandAs(store.getValue(), isUnsignedElement).text << ";\n";
    return success();
  }
  if (auto push = dyn_cast<ks::TapePushOp>(op)) {
    os << (push.getTape() ? operand(valueExpr(push.getTape()), kPostfix)
                          : threadTape)
       << ".push(" << operand(valueExpr(push.getValue()), kAssign) << ");\n";
    return success();
  }
  // `ksc::local_tape<4096> tape("k_adj");`, which converts to the
  // ksc::device_tape thread functions take.
  if (auto create = dyn_cast<ks::TapeCreateOp>(op)) {
    unsigned var = newVar(chooseName(create.getTape()), create.getType());
    vars[var].reusable = false;
    os << "ksc::local_tape<" << create.getCapacity() << "> " << vars[var].name
       << "(" << cppStringLiteral(create.getKernel()) << ");\n";
    bindVar(create.getTape(), var);
    return success();
  }
  // `ksc::accumulator<float, 1> adj_a_sum(adj_a);`, which converts to the
  // ksc::array of its partial sums.
  if (auto sum = dyn_cast<ks::AccumulatorOp>(op)) {
    ks::ArrayType type = sum.getArray().getType();
    FailureOr<std::string> element =
        typeName(type.getElementType(), op.getLoc());
    if (failed(element))
      return failure();
    unsigned var = newVar(chooseName(sum.getResult()), type);
    vars[var].reusable = false;
    os << "ksc::accumulator<" << *element << ", " << sum.getSize() << "> "
       << vars[var].name << "(" << operand(valueExpr(sum.getArray()), kAssign)
       << ");\n";
    bindVar(sum.getResult(), var);
    return success();
  }
  if (auto launch = dyn_cast<ks::ParallelLaunchOp>(op))
    return emitParallelLaunch(*launch);
  if (auto flush = dyn_cast<ks::FlushAccumulatorOp>(op)) {
    os << operand(valueExpr(flush.getAccumulator()), kPostfix)
       << (flush.getBlock() ? ".flush_block_into(" : ".flush_into(")
       << operand(valueExpr(flush.getArray()), kAssign);
    if (Value partials = flush.getPartials())
      os << ", " << operand(valueExpr(partials), kAssign);
    os << ");\n";
    return success();
  }
  if (auto check = dyn_cast<ks::CheckIndexOp>(op)) {
    os << "ksc::check_index(" << operand(valueExpr(check.getIndex()), kAssign)
       << ", " << check.getExtent() << ", " << cppStringLiteral(check.getType())
       << ", " << cppStringLiteral(check.getWhere()) << ");\n";
    return success();
  }
  auto check = cast<ks::CheckBoundsOp>(op);
  SmallVector<Value> args = {check.getArray()};
  llvm::append_range(args, check.getIndices());
  Expr array = valueExpr(check.getArray());
  os << "ksc::check_bounds(" << array.text << ", "
     << cppStringLiteral(check.getName()) << ", "
     << cppStringLiteral(check.getWhere());
  for (Value index : check.getIndices())
    os << ", " << operand(operandAs(index, false), kAssign);
  os << ");\n";
  return success();
}

LogicalResult Emitter::emitRandom(Operation &op) {
  Value state = op.getOperand(0);
  Value value = op.getResult(0), next = op.getResult(1);
  // The state lives in a uint32_t variable the runtime function advances:
  // the one that holds the current state if it dies here, else a copy. It is
  // named like the source variable of the next state (recorded in ks.names),
  // else like the variable that holds the current one.
  std::string name;
  if (auto names = op.getAttrOfType<ArrayAttr>(kNamesAttr);
      names && names.size() == 2)
    if (auto str = dyn_cast<StringAttr>(names[1]))
      name = str.getValue().str();
  if (auto it = varOf.find(state);
      name.empty() && it != varOf.end() && vars[it->second].current == state)
    name = vars[it->second].baseName;
  if (name.empty())
    name = getSourceName(state).str();
  if (name.empty())
    name = "state";
  Type stateType = cppType(state.getType(), /*isUnsigned=*/true);
  FailureOr<SmallVector<unsigned>> slots =
      makeSlots(&op, {stateType}, {name}, {state}, {{state}});
  if (failed(slots))
    return failure();
  std::string text = ("ksc::" + op.getName().stripDialect() + "(").str() +
                     vars[(*slots)[0]].name;
  for (Value bound : op.getOperands().drop_front())
    text += ", " + operand(operandAs(bound, false), kAssign);
  text += ")";
  if (value.use_empty()) {
    os << text << ";\n";
  } else {
    // randi gives an int, randf and randn a float.
    Expr result(text, kPostfix);
    if (value.getType().isSignlessInteger(32))
      result = withSign(result, isUnsigned(value));
    unsigned var = newVar(chooseName(value), cppType(value));
    os << declare(var) << " = " << result.text << ";\n";
    bindVar(value, var);
  }
  bindVar(next, (*slots)[0]);
  return success();
}

// `ksc::parallel_launch(dim, 1024, ksc::chunk_sums<1>(adj_a),
//     [=](int begin, int end, ksc::array<float> adj_a_sum) KSC_INLINE_LAMBDA {
//   for (int tid = begin; tid < end; ++tid) { ... }
// });`: the body is a lambda the runtime calls per range of threads. It
// captures the kernel's arguments by value: the runtime runs a copy of it,
// whose scalars and views the compiler keeps in registers (a capture by
// reference is reloaded after every store to a float array).
LogicalResult Emitter::emitParallelLaunch(Operation &op) {
  auto launch = cast<ks::ParallelLaunchOp>(op);
  os << "ksc::parallel_launch("
     << operand(valueExpr(launch.getGrid()), kAssign) << ", "
     << launch.getGrain();
  for (auto [sum, size] : llvm::zip(launch.getSums(), launch.getSizes()))
    os << ", ksc::chunk_sums<" << size << ">("
       << operand(valueExpr(sum), kAssign) << ")";
  for (Value array : launch.getPrivateSums())
    os << ", ksc::worker_sums(" << operand(valueExpr(array), kAssign) << ")";
  os << ",\n    [=](";
  pushScope();
  Block &body = launch.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    std::string name = getNameFromLoc(arg.getLoc()).str();
    unsigned var = newVar(name, cppType(arg));
    vars[var].reusable = false;
    bindVar(arg, var);
    os << (arg.getArgNumber() ? ", " : "") << declare(var);
  }
  os << ") KSC_INLINE_LAMBDA {\n";
  os.indent();
  LogicalResult result = emitBlock(body);
  os.unindent();
  os << "});\n";
  popScope();
  return result;
}
