//===- Forms.h - The compiled forms of a dataset record -----*- C++ -*-===//
//
// Part of ksc. A dataset record pairs a kernel's source with what ksc makes
// of it: its ks IR, CPU C++, CUDA C++ and PTX, of the kernel alone and with
// its derivative kernels, and the same kernel as NVIDIA Warp Python. Each form
// is exactly what one `ksc` command line prints for the source; compileForms
// produces them all in process, sharing the frontend and the AD passes between
// them.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_FORMS_H
#define KSC_SYNTH_FORMS_H

#include "ksc/Frontend/Frontend.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace ksc::synth {

enum class Form : unsigned {
  KsMlir,  // ksc F --emit=mlir
  Cpp,     // ksc F
  CppAdj,  // ksc F --grad
  CppJvp,  // ksc F --grad=forward
  Cuda,    // ksc F --target=cuda
  CudaAdj, // ksc F --target=cuda --grad
  Ptx,     // ksc F --target=cuda --emit=ptx
  PtxAdj,  // ksc F --target=cuda --emit=ptx --grad
  Warp,    // ksc F --emit=warp (NVIDIA Warp Python, docs/warp.md)
};
inline constexpr unsigned kNumForms = 9;

/// Every form, in the order records list them.
llvm::ArrayRef<Form> allForms();
/// The record key of `form` ("cpp_adj").
llvm::StringRef formName(Form form);
std::optional<Form> parseForm(llvm::StringRef name);
/// The ksc options that print `form` (after the input file name).
llvm::StringRef formCommand(Form form);
/// The ksc command line that prints `form` of `fileName`.
std::string formCommandLine(llvm::StringRef fileName, Form form);

/// A set of forms.
class FormSet {
public:
  FormSet() = default;
  static FormSet all();
  void insert(Form form) { bits |= 1u << unsigned(form); }
  bool contains(Form form) const { return bits & (1u << unsigned(form)); }
  bool empty() const { return bits == 0; }
  /// "cpp,cpp_adj,...", in allForms() order.
  std::string str() const;
  /// Parses a comma-separated list of form names; on an unknown name
  /// returns nullopt and sets `error`.
  static std::optional<FormSet> parse(llvm::StringRef list,
                                      std::string &error);

private:
  unsigned bits = 0;
};

/// The forms of one source, indexed by Form; those not asked for are empty.
struct CompiledForms {
  std::array<std::string, kNumForms> text;
  std::string &operator[](Form form) { return text[unsigned(form)]; }
  const std::string &operator[](Form form) const {
    return text[unsigned(form)];
  }
};

struct FormsOptions {
  /// The CUDA toolkit for libdevice (PTX forms); empty: ksc's default.
  std::string cudaPath;
};

/// Where the time of making records goes: seconds by stage, added up over
/// records (and over threads when merged). The compiler's stages are
/// "frontend", "cleanup", "reverse_ad", "forward_ad", then each form's name
/// for its lowering and printing.
using StageSeconds = std::map<std::string, double, std::less<>>;

/// Adds the time from `from` until now to `stage` of `seconds` and returns
/// now, where the next stage starts.
std::chrono::steady_clock::time_point
addStageTime(StageSeconds &seconds, llvm::StringRef stage,
             std::chrono::steady_clock::time_point from);

/// Adds every stage of `other` to `seconds`.
void mergeStageSeconds(StageSeconds &seconds, const StageSeconds &other);

/// Compiles `source` as the kernel file `fileName` and produces `forms`.
/// Returns false and describes the first failure in `error` (the
/// diagnostics ksc would print, with the form that failed) when the source
/// does not compile.
bool compileForms(mlir::MLIRContext &context, llvm::StringRef fileName,
                  llvm::StringRef source, FormSet forms,
                  const FormsOptions &options, CompiledForms &result,
                  std::string &error);

/// A context with every dialect ksc uses loaded, as the ksc tool sets it up.
std::unique_ptr<mlir::MLIRContext> createCompilerContext();

/// Compiles source after source, as compileForms does but faster: it parses
/// them with an IncrementalFrontend over `session` (one Clang instance with
/// the prelude loaded), or, unless `incremental`, each with a fresh Clang
/// instance reading the prelude's precompiled header (slower, but nothing
/// of one source can affect the next, as a fuzzer needs); it builds each
/// pass pipeline once and keeps its own context, replaced every few
/// hundred sources so that memory stays flat however many it compiles.
/// One per thread.
class RecordCompiler {
public:
  RecordCompiler(const FrontendSession &session, const FormsOptions &options,
                 bool incremental = true);
  ~RecordCompiler();

  /// As compileForms; on failure `reason` (when given) says what failed:
  /// "frontend", "cleanup" or the form's name.
  bool compile(llvm::StringRef fileName, llvm::StringRef source,
               FormSet forms, CompiledForms &result, std::string &error,
               std::string *reason = nullptr);

  /// The time each stage has taken, over every source compiled so far.
  const StageSeconds &stageSeconds() const { return seconds; }

  /// The pass managers, one per pipeline (defined in Forms.cpp).
  struct Pipelines;

private:
  void reset();

  StageSeconds seconds;

  const FrontendSession &session;
  std::optional<IncrementalFrontend> frontend;
  FormsOptions options;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<Pipelines> pipelines;
  unsigned compiled = 0;
};

} // namespace ksc::synth

#endif // KSC_SYNTH_FORMS_H
