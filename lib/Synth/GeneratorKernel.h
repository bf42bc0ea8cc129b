//===- GeneratorKernel.h - A kernel under construction ----------*- C++ -*-===//
//
// Part of ksc. Private to lib/Synth: the state the category generators
// share while they build one kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_SYNTH_GENERATORKERNEL_H
#define KSC_LIB_SYNTH_GENERATORKERNEL_H

#include "GeneratorImpl.h"

namespace ksc::synth::detail {

struct Draft {
  Draft(Category category, uint64_t seed, const GeneratorOptions &options);

  Rng rng;
  Builder b;
  Category category;
  std::string kernelName;
  std::vector<KernelArgument> args;
  /// Device function definitions, in order.
  std::vector<std::string> functions;

  std::string addArray(Ty elem, unsigned rank, bool isConst,
                       llvm::ArrayRef<const char *> words,
                       bool atomicOnly = false);
  std::string addScalar(Ty ty, llvm::ArrayRef<const char *> words);
  /// A read-only input array, an output array, a scalar parameter, named
  /// from the word lists for their types.
  std::string input(Ty elem, unsigned rank = 1);
  std::string output(Ty elem, unsigned rank = 1);
  std::string scalar(Ty ty);
  /// 1..maxInputs inputs, one or two outputs, 0..maxScalars scalars.
  void standardIO(unsigned maxInputs, unsigned maxScalars);
  void chooseName(llvm::ArrayRef<const char *> verbs,
                  llvm::ArrayRef<const char *> nouns);
  /// Opens the body: `int i = tid();`.
  void begin();
  void randomStatements(unsigned count);
  /// A KSC_FUNC returning `result`, taking `nparams` parameters.
  void addFunction(Ty result, unsigned nparams);
  /// A KSC_FUNC template (a type or a value parameter).
  void addTemplate();
  /// Writes the outputs not written yet, and assembles the source.
  GeneratedKernel finish();
};

} // namespace ksc::synth::detail

#endif // KSC_LIB_SYNTH_GENERATORKERNEL_H
