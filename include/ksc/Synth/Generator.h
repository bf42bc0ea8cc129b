//===- Generator.h - Random kernels from a typed grammar ----*- C++ -*-===//
//
// Part of ksc. ksc-synth's kernel generator: a random, typed grammar of the
// kernel language (expressions, statements, control flow, argument lists,
// array ranks, names) that produces kernels which compile, and which run
// safely under the dataset's launch convention (docs/dataset.md):
//
//  - a 1-D launch of n threads; every array argument has n or more elements
//    along dimension 0, and at least one along every other dimension;
//  - array elements are indexed along dimension 0 by tid() (or an index
//    clamped into [0, a.shape(0))), along other dimensions by loop counters
//    bounded by a.shape(d) or by clamped indices;
//  - every loop terminates (counted, or a `while` with a bounded counter);
//  - float inputs anywhere in [-4, 4] give finite results (sqrt, log,
//    division and friends are guarded: sqrt(abs(x) + 1), x / (1 + x * x)).
//
// Generation is a pure function of (category, seed, options): the same
// arguments give the same source on every machine.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SYNTH_GENERATOR_H
#define KSC_SYNTH_GENERATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ksc::synth {

/// What a generated kernel is about. Each has its own generator; every
/// kernel of a category contains its construct.
enum class Category : unsigned {
  Arithmetic,       // + - * / on scalars, casts, compound assignment
  Math,             // math builtins: sin, exp, sqrt, pow, min, clamp, ...
  Conditional,      // if / else, ?:
  MultiConditional, // else-if chains and nested conditionals
  Loop,             // counted for loops (constant or shape-bounded)
  NestedLoop,       // loops inside loops, over 2-D arrays
  WhileLoop,        // while / do-while with break and continue
  Vector,           // vec2/vec3/vec4 values, dot, cross, length, ...
  Matrix,           // mat22/mat33/mat44, matrix products, transpose, ...
  Atomic,           // atomic_add/min/max reductions, histograms
  ScalarParam,      // scalar kernel parameters (float, int, double, bool)
  RandomMath,       // rand_init, randf, randn, randi
  Function,         // KSC_FUNC device functions and function templates
  Combined,         // several of the above in one kernel
  Struct,           // structs: arrays of structs, struct arguments, nesting
  Realistic,        // real kernels' patterns composed: stencils, reductions,
                    // particles, integrators, matrix algebra, geometry
};
inline constexpr unsigned kNumCategories = 16;

/// Every category, in declaration order.
llvm::ArrayRef<Category> allCategories();

/// A set of categories and sizes for a kind of dataset.
enum class Profile {
  /// One category per construct of the language, small kernels (the
  /// default): every category but `realistic`.
  Basic,
  /// Kernels built from the patterns of real kernels, of the size real
  /// code has: the `realistic` category, with realisticOptions().
  Realistic,
};
llvm::ArrayRef<Category> profileCategories(Profile profile);
std::optional<Profile> parseProfile(llvm::StringRef name);
llvm::StringRef profileName(Profile profile);

/// The statements of a generated file: its lines that end in `;`, but for
/// the fields of structs and the `} while (c);` of do-while loops.
unsigned countStatements(llvm::StringRef source);
/// The category's name as the command line and records spell it
/// ("multi_conditional").
llvm::StringRef categoryName(Category category);
std::optional<Category> parseCategory(llvm::StringRef name);

struct GeneratorOptions {
  /// The deepest expression tree and control-flow nesting.
  unsigned maxDepth = 3;
  /// The most statements in one block (the kernel body included).
  unsigned maxStatements = 6;
  /// The fewest statements of a kernel's file (countStatements): kernels
  /// with fewer are drawn again, from seeds derived from the seed, up to
  /// kMaxDraws times, the largest kept.
  unsigned minStatements = 0;
  static constexpr unsigned kMaxDraws = 100;
};

/// The size options of the realistic profile: the grammar's statements
/// between the patterns kept few and short, kernels below 16 statements
/// drawn again.
GeneratorOptions realisticOptions();

/// A kernel argument as the source declares it.
struct KernelArgument {
  /// The parameter name.
  std::string name;
  /// Its type as spelled in the source: "float", "int", "vec3",
  /// "array<const float>", "array<float, 2>".
  std::string type;
};

struct GeneratedKernel {
  /// The whole .kdsl file: device functions (if any), then the kernel.
  std::string source;
  /// The kernel's name (the file has exactly one kernel).
  std::string kernelName;
  /// The kernel's parameters, in order.
  std::vector<KernelArgument> arguments;
  /// What a `realistic` kernel is composed of, in order: its patterns'
  /// forms ("particles.spring", "integrator.verlet", ...); empty for the
  /// other categories.
  std::vector<std::string> patterns;
};

/// Generates one kernel of `category` from `seed`.
GeneratedKernel generateKernel(Category category, uint64_t seed,
                               const GeneratorOptions &options);

} // namespace ksc::synth

#endif // KSC_SYNTH_GENERATOR_H
