//===- Kernel.h - A kernel under construction -------------------*- C++ -*-===//
//
// Part of ksc. Private to lib/Synth: the state the category generators
// share while they build one kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_SYNTH_GENERATOR_KERNEL_H
#define KSC_LIB_SYNTH_GENERATOR_KERNEL_H

#include "Impl.h"

namespace ksc::synth::detail {

struct Draft {
  Draft(Category category, uint64_t seed, const GeneratorOptions &options);

  Rng rng;
  Builder b;
  Category category;
  std::string kernelName;
  std::vector<KernelArgument> args;
  /// Struct declarations, in order (before the functions).
  std::vector<std::string> structs;
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
  /// A builder for a device function's body, sharing the kernel's
  /// generator, names, features and functions.
  Builder functionBuilder();
  /// Writes the outputs not written yet, and assembles the source.
  GeneratedKernel finish();
};

/// Random statements around a forced construct: `before` statements, the
/// construct, then the rest of a block of the usual size.
template <typename F> void around(Draft &d, F &&construct) {
  unsigned size = d.b.blockSize(0);
  unsigned before = unsigned(d.rng.range(0, int(size / 2)));
  d.randomStatements(before);
  construct();
  unsigned rest = size > before + 1 ? size - before - 1 : 0;
  d.randomStatements(rest);
}

/// Adds the locals of a device function's body (`fb`) that nothing has
/// read to `into`, an expression of the function's result type `ty` (a
/// real or vector type), so that none is dead code.
Expr foldUnread(Builder &fb, Expr into, Ty ty);
/// A device function's definition: `head` (its signature), then `fb`'s
/// lines as the body.
std::string functionText(const std::string &head, const Builder &fb);

/// A depth for an expression: 1..maxDepth.
unsigned depthOf(Draft &d);
/// Makes the kernel's real type double one time in five.
void chooseReal(Draft &d);
/// Declares `name = init` with an active initializer and returns the name.
std::string declareActive(Draft &d, Ty ty, unsigned depth);
/// Stores `value` (a variable of the output's type) into an output, so that
/// a forced construct reaches the kernel's result.
void storeVar(Draft &d, const std::string &name, Ty ty);
/// Updates an element of the atomic-only vector array `scatter` at a
/// data-dependent index with the vector variable `p` (a local or a struct
/// field) of type `v`: an atomic add or subtraction (the builtins, `+=`,
/// `-=`), or a component-wise atomic_min or atomic_max (then the array's
/// only update: its derivative reads the values the launch leaves,
/// docs/autodiff.md), as Warp's force kernels scatter forces.
void scatterVector(Draft &d, const std::string &scatter, const std::string &p,
                   Ty v);
/// The names of such arrays.
extern const char *const kScatterArrays[4];
/// Reads each of `params` (scalars or struct fields of any type) into a
/// new local, which reaches an output: an int bounds a loop, a bool picks
/// a value, a real scales or shifts it.
void useScalars(Draft &d, llvm::ArrayRef<std::pair<std::string, Ty>> params);

/// The generator of the `struct` category (GeneratorStructs.cpp).
GeneratedKernel structKernel(Draft &d);
/// The generator of the `realistic` category (GeneratorRealistic.cpp).
GeneratedKernel realisticKernel(Draft &d);

} // namespace ksc::synth::detail

#endif // KSC_LIB_SYNTH_GENERATOR_KERNEL_H
