//===- Forms.cpp - Compile a source to the forms of a record ----------===//
//
// Part of ksc. The same passes, in the same order, as the ksc tool runs for
// each form's command line (tools/ksc/ksc.cpp), with the frontend, the
// cleanup and each AD pass run once and their results cloned.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Forms.h"
#include "ksc/Driver/Driver.h"
#include "ksc/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::synth;

namespace {
struct FormInfo {
  Form form;
  llvm::StringLiteral name;
  llvm::StringLiteral command;
};
} // namespace

static constexpr FormInfo kForms[] = {
    {Form::KsMlir, "ks_mlir", "--emit=mlir"},
    {Form::Cpp, "cpp", ""},
    {Form::CppAdj, "cpp_adj", "--grad"},
    {Form::CppJvp, "cpp_jvp", "--grad=forward"},
    {Form::Cuda, "cuda", "--target=cuda"},
    {Form::CudaAdj, "cuda_adj", "--target=cuda --grad"},
    {Form::Ptx, "ptx", "--target=cuda --emit=ptx"},
    {Form::PtxAdj, "ptx_adj", "--target=cuda --emit=ptx --grad"},
    {Form::Warp, "warp", "--emit=warp"},
};

ArrayRef<Form> synth::allForms() {
  static const std::array<Form, kNumForms> forms = [] {
    std::array<Form, kNumForms> result;
    for (unsigned i = 0; i < kNumForms; ++i)
      result[i] = kForms[i].form;
    return result;
  }();
  return forms;
}

StringRef synth::formName(Form form) { return kForms[unsigned(form)].name; }

StringRef synth::formCommand(Form form) {
  return kForms[unsigned(form)].command;
}

std::string synth::formCommandLine(StringRef fileName, Form form) {
  std::string line = ("ksc " + fileName).str();
  if (!formCommand(form).empty())
    line += " " + formCommand(form).str();
  return line;
}

std::optional<Form> synth::parseForm(StringRef name) {
  for (const FormInfo &info : kForms)
    if (info.name == name)
      return info.form;
  return std::nullopt;
}

FormSet FormSet::all() {
  FormSet set;
  for (Form form : allForms())
    set.insert(form);
  return set;
}

std::string FormSet::str() const {
  std::string result;
  for (Form form : allForms())
    if (contains(form)) {
      if (!result.empty())
        result += ",";
      result += formName(form).str();
    }
  return result;
}

std::optional<FormSet> FormSet::parse(StringRef list, std::string &error) {
  FormSet set;
  SmallVector<StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef name : names) {
    std::optional<Form> form = parseForm(name.trim());
    if (!form) {
      error = "unknown form '" + name.trim().str() + "' (expected ";
      for (const FormInfo &info : kForms)
        error += (info.form == Form::KsMlir ? "" : ", ") + info.name.str();
      error += ")";
      return std::nullopt;
    }
    set.insert(*form);
  }
  if (set.empty()) {
    error = "no forms given";
    return std::nullopt;
  }
  return set;
}

std::unique_ptr<MLIRContext> synth::createCompilerContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  // One thread per context: ksc-synth runs one context per worker.
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  return context;
}

/// The pass pipelines of the forms, built once per context: building a
/// pipeline (the canonicalizer gathers every dialect's patterns) costs as
/// much as running it on a small kernel.
struct RecordCompiler::Pipelines {
  explicit Pipelines(MLIRContext &context)
      : cleanup(&context), reverse(&context), reverseGpu(&context),
        forward(&context), cpu(&context), cuda(&context), ptx(&context) {
    addKsCleanupPasses(cleanup);
    addReverseADPasses(reverse, /*wrt=*/{});
    // The GPU forms' adjoints, as `ksc --target=cuda --grad` makes them.
    addReverseADPasses(reverseGpu, /*wrt=*/{}, /*printActivity=*/false,
                       /*gpuCost=*/true);
    addForwardADPasses(forward, /*wrt=*/{});
    addCpuLoweringPasses(cpu, CpuPipelineOptions());
    addCudaLoweringPasses(cuda, CudaPipelineOptions());
    addPtxLoweringPasses(ptx, CudaPipelineOptions(), /*blockSize=*/0);
    // Verifying after every pass is an eighth of a record's time; derive,
    // emitLoweredCpp and emitLoweredPtx verify each pipeline's result once.
    for (PassManager *pm :
         {&cleanup, &reverse, &reverseGpu, &forward, &cpu, &cuda, &ptx})
      pm->enableVerifier(false);
  }
  PassManager cleanup, reverse, reverseGpu, forward, cpu, cuda, ptx;
};

std::chrono::steady_clock::time_point
synth::addStageTime(StageSeconds &seconds, StringRef stage,
                    std::chrono::steady_clock::time_point from) {
  auto now = std::chrono::steady_clock::now();
  auto it = seconds.find(stage);
  if (it == seconds.end())
    it = seconds.emplace(stage.str(), 0.0).first;
  it->second += std::chrono::duration<double>(now - from).count();
  return now;
}

void synth::mergeStageSeconds(StageSeconds &seconds,
                              const StageSeconds &other) {
  for (const auto &[stage, time] : other)
    seconds[stage] += time;
}

/// Runs `pm` on `module` and verifies the result.
static LogicalResult runVerified(ModuleOp module, PassManager &pm) {
  return success(succeeded(pm.run(module)) && succeeded(verify(module)));
}

/// Runs `pm` on a clone of `module` and verifies the result; null after an
/// error.
static OwningOpRef<ModuleOp> derive(ModuleOp module, PassManager &pm) {
  OwningOpRef<ModuleOp> result(cast<ModuleOp>(module->clone()));
  if (failed(runVerified(*result, pm)))
    return nullptr;
  return result;
}

/// The module a form prints: the primal, the adjoint for the CPU, the
/// adjoint for a GPU (its cost model: docs/autodiff.md, "Loops"), or the
/// tangent.
enum class Source { Primal, Adjoint, GpuAdjoint, Tangent };
static constexpr unsigned kNumSources = 4;
static Source sourceOf(Form form) {
  switch (form) {
  case Form::CppAdj:
    return Source::Adjoint;
  case Form::CudaAdj:
  case Form::PtxAdj:
    return Source::GpuAdjoint;
  case Form::CppJvp:
    return Source::Tangent;
  default:
    return Source::Primal;
  }
}

/// Prints `form` (a C++ or PTX one) of `module` into `out`, as emitCpuCpp,
/// emitCudaCpp and emitPtx do, lowering `module` itself.
static LogicalResult emitForm(Form form, OwningOpRef<ModuleOp> module,
                              StringRef fileName, const FormsOptions &options,
                              RecordCompiler::Pipelines &pipelines,
                              std::string &out) {
  CppEmitterOptions emitter;
  emitter.sourceName = fileName.str();
  switch (form) {
  case Form::KsMlir:
  case Form::Warp:
    break;
  case Form::Cpp:
  case Form::CppAdj:
  case Form::CppJvp:
    return emitLoweredCpp(std::move(module), pipelines.cpu, out, emitter);
  case Form::Cuda:
  case Form::CudaAdj:
    emitter.target = CppTarget::Cuda;
    return emitLoweredCpp(std::move(module), pipelines.cuda, out, emitter);
  case Form::Ptx:
  case Form::PtxAdj: {
    PtxOptions ptx;
    ptx.cudaPath = options.cudaPath;
    return emitLoweredPtx(std::move(module), pipelines.ptx, out, ptx);
  }
  }
  llvm_unreachable("not a lowered form");
}

/// The frontend's work for one source: its ks IR, its diagnostics written
/// to the stream given.
/// With `emitWarp`, the Warp module too.
using ImportFn =
    function_ref<FrontendResult(raw_ostream &diagnostics, bool emitWarp)>;

/// The forms of `source`: the frontend (`import`), the cleanup, each AD
/// pass once, then each form's lowering, adding the time of each stage to
/// `seconds` when given. Each module is lowered in place by the last form
/// that prints it and cloned for the others.
static bool compileWith(MLIRContext &context,
                        RecordCompiler::Pipelines &pipelines, ImportFn import,
                        StringRef fileName, FormSet forms,
                        const FormsOptions &options, CompiledForms &result,
                        std::string &error, std::string *reason,
                        StageSeconds *seconds) {
  auto start = std::chrono::steady_clock::now();
  auto lap = [&](StringRef stage) {
    if (seconds)
      start = addStageTime(*seconds, stage, start);
  };
  error.clear();
  result = CompiledForms();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    static constexpr StringLiteral severities[] = {"note", "warning", "error",
                                                   "remark"};
    diagnosticStream << diagnostic.getLocation() << ": "
                     << severities[unsigned(diagnostic.getSeverity())] << ": "
                     << diagnostic << "\n";
    return success();
  });
  auto fail = [&](Form form, StringRef stage = "") {
    if (reason)
      *reason = stage.empty() ? formName(form).str() : stage.str();
    error = formCommandLine(fileName, form) + ": " +
            StringRef(diagnostics).trim().str();
    return false;
  };
  // The last form that prints each module lowers it; the first form of
  // all, and the first adjoint one, name a failure to make their module.
  std::array<std::optional<Form>, kNumSources> last;
  std::optional<Form> firstForm, firstAdjoint;
  for (Form form : allForms())
    if (forms.contains(form)) {
      firstForm = firstForm.value_or(form);
      // The frontend prints the Warp module, from the Clang AST.
      if (form == Form::Warp)
        continue;
      last[unsigned(sourceOf(form))] = form;
      if (sourceOf(form) == Source::Adjoint ||
          sourceOf(form) == Source::GpuAdjoint)
        firstAdjoint = firstAdjoint.value_or(form);
    }
  if (!firstForm)
    return true;

  FrontendResult imported =
      import(diagnosticStream, forms.contains(Form::Warp));
  lap("frontend");
  if (!imported.success)
    return fail(*firstForm, "frontend");
  if (forms.contains(Form::Warp)) {
    if (imported.warp.empty()) {
      diagnosticStream << imported.warpError;
      return fail(Form::Warp);
    }
    result[Form::Warp] = std::move(imported.warp);
  }
  OwningOpRef<ModuleOp> primal = std::move(imported.module);
  if (failed(runVerified(*primal, pipelines.cleanup)))
    return fail(*firstForm, "cleanup");
  lap("cleanup");
  // The derivatives first, so that the primal's last form may lower it.
  std::array<OwningOpRef<ModuleOp>, kNumSources> modules;
  for (auto [source, pm] :
       {std::pair(Source::Adjoint, &pipelines.reverse),
        std::pair(Source::GpuAdjoint, &pipelines.reverseGpu)}) {
    if (!last[unsigned(source)])
      continue;
    modules[unsigned(source)] = derive(*primal, *pm);
    if (!modules[unsigned(source)])
      return fail(*firstAdjoint);
    lap("reverse_ad");
  }
  if (last[unsigned(Source::Tangent)]) {
    modules[unsigned(Source::Tangent)] = derive(*primal, pipelines.forward);
    if (!modules[unsigned(Source::Tangent)])
      return fail(Form::CppJvp);
    lap("forward_ad");
  }
  modules[unsigned(Source::Primal)] = std::move(primal);
  if (forms.contains(Form::KsMlir)) {
    llvm::raw_string_ostream os(result[Form::KsMlir]);
    OpPrintingFlags flags;
    flags.printNameLocAsPrefix();
    modules[unsigned(Source::Primal)]->print(os, flags);
    lap(formName(Form::KsMlir));
  }
  for (Form form : allForms()) {
    if (form == Form::KsMlir || form == Form::Warp || !forms.contains(form))
      continue;
    unsigned from = unsigned(sourceOf(form));
    OwningOpRef<ModuleOp> module =
        form == last[from]
            ? std::move(modules[from])
            : OwningOpRef<ModuleOp>(cast<ModuleOp>(modules[from]->clone()));
    if (failed(emitForm(form, std::move(module), fileName, options, pipelines,
                        result[form])))
      return fail(form);
    lap(formName(form));
  }
  return true;
}

bool synth::compileForms(MLIRContext &context, StringRef fileName,
                         StringRef source, FormSet forms,
                         const FormsOptions &options, CompiledForms &result,
                         std::string &error) {
  RecordCompiler::Pipelines pipelines(context);
  auto import = [&](raw_ostream &diagnostics, bool emitWarp) {
    FrontendOptions frontendOptions;
    frontendOptions.diagnostics = &diagnostics;
    frontendOptions.emitWarp = emitWarp;
    return importKdslSource(context, fileName, source, frontendOptions);
  };
  return compileWith(context, pipelines, import, fileName, forms, options,
                     result, error, /*reason=*/nullptr, /*seconds=*/nullptr);
}

/// Sources compiled in one context before it is replaced: the context keeps
/// every name and constant it has seen.
static constexpr unsigned kSourcesPerContext = 500;

RecordCompiler::RecordCompiler(const FrontendSession &session,
                               const FormsOptions &options, bool incremental)
    : session(session), options(options) {
  if (incremental)
    frontend.emplace(session);
  reset();
}

RecordCompiler::~RecordCompiler() = default;

void RecordCompiler::reset() {
  pipelines.reset();
  context = createCompilerContext();
  pipelines = std::make_unique<Pipelines>(*context);
  compiled = 0;
}

bool RecordCompiler::compile(StringRef fileName, StringRef source,
                             FormSet forms, CompiledForms &result,
                             std::string &error, std::string *reason) {
  if (compiled++ == kSourcesPerContext)
    reset();
  auto import = [&](raw_ostream &diagnostics, bool emitWarp) {
    return frontend ? frontend->import(*context, fileName, source, diagnostics,
                                       emitWarp)
                    : session.import(*context, fileName, source, diagnostics,
                                     emitWarp);
  };
  return compileWith(*context, *pipelines, import, fileName, forms, options,
                     result, error, reason, &seconds);
}
