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
  auto context = std::make_unique<MLIRContext>(
      registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  return context;
}

namespace {
/// Runs the passes of one form on clones of the modules it shares with
/// others, keeping the first error.
class FormCompiler {
public:
  FormCompiler(MLIRContext &context, StringRef fileName,
               const FormsOptions &options, std::string &error)
      : context(context), fileName(fileName), options(options),
        error(error) {}

  /// Runs `build` on a clone of `module` into a new module; null after an
  /// error.
  OwningOpRef<ModuleOp>
  derive(ModuleOp module, llvm::function_ref<void(OpPassManager &)> build) {
    OwningOpRef<ModuleOp> result(cast<ModuleOp>(module->clone()));
    PassManager pm(&context);
    build(pm);
    if (failed(pm.run(*result)))
      return nullptr;
    return result;
  }

  bool emit(Form form, ModuleOp module, CompiledForms &result) {
    std::string &out = result[form];
    CppEmitterOptions emitter;
    emitter.sourceName = fileName.str();
    LogicalResult status = success();
    switch (form) {
    case Form::KsMlir: {
      llvm::raw_string_ostream os(out);
      OpPrintingFlags flags;
      flags.printNameLocAsPrefix();
      module->print(os, flags);
      break;
    }
    case Form::Cpp:
    case Form::CppAdj:
    case Form::CppJvp:
      status = emitCpuCpp(module, out, CpuPipelineOptions(), emitter);
      break;
    case Form::Cuda:
    case Form::CudaAdj:
      emitter.target = CppTarget::Cuda;
      status = emitCudaCpp(module, out, CudaPipelineOptions(), emitter);
      break;
    case Form::Ptx:
    case Form::PtxAdj: {
      PtxOptions ptx;
      ptx.cudaPath = options.cudaPath;
      status = emitPtx(module, out, CudaPipelineOptions(), ptx);
      break;
    }
    }
    return succeeded(status);
  }

  void fail(Form form, StringRef diagnostics) {
    if (!error.empty())
      return;
    error = ("ksc " + fileName + " " + formCommand(form) + ": ").str();
    error += diagnostics.trim().str();
  }

private:
  MLIRContext &context;
  StringRef fileName;
  const FormsOptions &options;
  std::string &error;
};
} // namespace

bool synth::compileForms(MLIRContext &context, StringRef fileName,
                         StringRef source, FormSet forms,
                         const FormsOptions &options, CompiledForms &result,
                         std::string &error) {
  error.clear();
  result = CompiledForms();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    static constexpr StringLiteral severities[] = {"note", "warning",
                                                   "error", "remark"};
    diagnosticStream << diagnostic.getLocation() << ": "
                     << severities[unsigned(diagnostic.getSeverity())] << ": "
                     << diagnostic << "\n";
    return success();
  });
  FormCompiler compiler(context, fileName, options, error);
  Form first = Form::KsMlir;
  for (Form form : allForms())
    if (forms.contains(form)) {
      first = form;
      break;
    }

  FrontendOptions frontendOptions;
  frontendOptions.diagnostics = &diagnosticStream;
  FrontendResult imported =
      importKdslSource(context, fileName, source, frontendOptions);
  if (!imported.success) {
    compiler.fail(first, diagnostics);
    return false;
  }

  // ksc runs the cleanup, then the AD passes, then the lowering.
  OwningOpRef<ModuleOp> primal = compiler.derive(
      *imported.module, [](OpPassManager &pm) { addKsCleanupPasses(pm); });
  if (!primal) {
    compiler.fail(first, diagnostics);
    return false;
  }
  OwningOpRef<ModuleOp> adjoint, tangent;
  for (Form form : allForms()) {
    if (!forms.contains(form))
      continue;
    ModuleOp module = *primal;
    if (form == Form::CppAdj || form == Form::CudaAdj ||
        form == Form::PtxAdj) {
      if (!adjoint)
        adjoint = compiler.derive(*primal, [](OpPassManager &pm) {
          addReverseADPasses(pm, /*wrt=*/{});
        });
      module = adjoint ? *adjoint : nullptr;
    } else if (form == Form::CppJvp) {
      tangent = compiler.derive(*primal, [](OpPassManager &pm) {
        addForwardADPasses(pm, /*wrt=*/{});
      });
      module = tangent ? *tangent : nullptr;
    }
    if (!module || !compiler.emit(form, module, result)) {
      compiler.fail(form, diagnostics);
      return false;
    }
  }
  return true;
}
