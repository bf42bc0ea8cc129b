//===- GeneratorTest.cpp - ksc-synth's random kernel generator ------------===//
//
// Part of ksc. Every category, many seeds: generation is deterministic, the
// category's construct is there, the arguments match the signature, seeds
// give different kernels, the options bound the size, and every kernel
// compiles through ksc's pipeline, derivatives and CUDA included.
//
// KSC_SYNTH_SOAK=N (with KSC_SYNTH_SOAK_FORMS, default
// cpp_adj,cpp_jvp,cuda_adj,ptx_adj) runs the disabled soak test on N seeds
// per category; KSC_SYNTH_DUMP=DIR writes the kernels it compiles there.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Generator.h"
#include "ksc/Synth/Forms.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>

using namespace ksc::synth;

namespace {

constexpr unsigned kSeeds = 200;

/// The seeds of every category that Compiles compiles: 50 by default, all
/// kSeeds with the exhaustive tests (KSC_EXHAUSTIVE_TESTS=1, which
/// `lit --param exhaustive=1` sets).
unsigned compiledSeeds() {
  const char *exhaustive = std::getenv("KSC_EXHAUSTIVE_TESTS");
  bool all = exhaustive && *exhaustive && std::string(exhaustive) != "0";
  return all ? kSeeds : 50;
}

std::string describe(Category category, uint64_t seed,
                     const GeneratedKernel &k) {
  return "category " + categoryName(category).str() + ", seed " +
         std::to_string(seed) + ":\n" + k.source;
}

/// What every kernel of `category` must contain.
std::vector<llvm::StringRef> constructs(Category category) {
  switch (category) {
  case Category::Arithmetic:
    return {};
  case Category::Math:
    return {};
  case Category::Conditional:
    return {"if ("};
  case Category::MultiConditional:
    return {"} else if (", "} else {"};
  case Category::Loop:
    return {"for (int "};
  case Category::NestedLoop:
    return {"for (int ", ".shape(1)"};
  case Category::WhileLoop:
    return {"while (", "break;", "continue;"};
  case Category::Vector:
    return {"vec"};
  case Category::Matrix:
    return {"mat"};
  case Category::Atomic:
    return {};
  case Category::ScalarParam:
    return {};
  case Category::RandomMath:
    return {"rand_init(", "uint32_t "};
  case Category::Function:
    return {"KSC_FUNC "};
  case Category::Combined:
    return {};
  case Category::Struct:
    return {"struct ", "};\n"};
  case Category::Realistic:
    return {};
  }
  return {};
}

bool containsAny(llvm::StringRef s, llvm::ArrayRef<llvm::StringRef> words) {
  for (llvm::StringRef w : words)
    if (s.contains(w))
      return true;
  return false;
}

/// Category-specific checks that are alternatives.
void checkAlternatives(Category category, const GeneratedKernel &k,
                       const std::string &where) {
  llvm::StringRef s = k.source;
  switch (category) {
  case Category::Arithmetic:
    EXPECT_TRUE(containsAny(s, {" += ", " -= ", " *= ", " /= "})) << where;
    break;
  case Category::Math:
    EXPECT_TRUE(
        containsAny(s, {"sin(",   "cos(",   "exp(",        "log",    "sqrt(",
                        "pow(",   "tanh(",  "abs(",        "min(",   "max(",
                        "clamp(", "floor(", "ceil(",       "round(", "trunc(",
                        "fmod(",  "lerp(",  "smoothstep(", "erf(",   "atan",
                        "asin(",  "acos(",  "cosh(",       "sinh(",  "cbrt("}))
        << where;
    break;
  case Category::Conditional:
    EXPECT_TRUE(s.contains(" ? ") || s.contains("} else {")) << where;
    break;
  case Category::Vector:
    EXPECT_TRUE(
        containsAny(s, {"dot(", "cross(", "length(", "normalize(", ".x", ".y"}))
        << where;
    break;
  case Category::Matrix:
    EXPECT_TRUE(containsAny(s, {"determinant(", "trace(", "transpose("}))
        << where;
    break;
  case Category::Atomic:
    EXPECT_TRUE(
        containsAny(s, {"atomic_add(", "atomic_min(", "atomic_max(", "] += "}))
        << where;
    break;
  case Category::ScalarParam: {
    std::set<std::string> types;
    for (const KernelArgument &a : k.arguments)
      if (!llvm::StringRef(a.type).starts_with("array"))
        types.insert(a.type);
    EXPECT_GE(types.size(), 2u) << where;
    break;
  }
  case Category::RandomMath:
    EXPECT_TRUE(containsAny(s, {"randf(", "randn(", "randi("})) << where;
    break;
  case Category::Struct: {
    // A struct of the file is an argument or an array's element.
    bool structArgument = false;
    for (const KernelArgument &a : k.arguments) {
      llvm::StringRef type = a.type;
      type.consume_front("array<");
      type.consume_front("const ");
      type = type.take_until([](char c) { return c == '>' || c == ','; });
      structArgument |= s.contains(("struct " + type + " {").str());
    }
    EXPECT_TRUE(structArgument) << where;
    break;
  }
  default:
    break;
  }
}

/// The kernel's signature, as written: "KSC_KERNEL void name(...)".
std::string signatureOf(const GeneratedKernel &k) {
  size_t at = k.source.find("KSC_KERNEL void ");
  if (at == std::string::npos)
    return "";
  size_t end = k.source.find(") {", at);
  return k.source.substr(at, end - at + 1);
}

std::string expectedSignature(const GeneratedKernel &k) {
  std::string s = "KSC_KERNEL void " + k.kernelName + "(";
  for (size_t i = 0; i < k.arguments.size(); ++i)
    s += (i ? ", " : "") + k.arguments[i].type + " " + k.arguments[i].name;
  return s + ")";
}

std::string normalizeSpace(const std::string &s) {
  std::string r;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\n') {
      space = true;
      continue;
    }
    if (space && !r.empty() && r.back() != '(')
      r += ' ';
    space = false;
    r += c;
  }
  return r;
}

/// The loops of `source` nested in another loop, as "while" (while and
/// do-while loops), "down" (for loops counting down) and "for".
std::set<std::string> nestedLoopKinds(llvm::StringRef source) {
  std::set<std::string> kinds;
  // Per open brace: whether it opened a loop's body.
  std::vector<bool> open;
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::StringRef text = line.trim();
    for (char c : text)
      if (c == '}' && !open.empty())
        open.pop_back();
    bool isLoop = text.starts_with("for (") || text.starts_with("while (") ||
                  text == "do {";
    bool inLoop = llvm::is_contained(open, true);
    if (inLoop && (text.starts_with("while (") || text == "do {"))
      kinds.insert("while");
    else if (inLoop && text.starts_with("for ("))
      kinds.insert(text.contains(">= 0") ? "down" : "for");
    if (text.ends_with("{"))
      open.push_back(isLoop);
  }
  return kinds;
}

TEST(GeneratorTest, LoopsNestInEveryForm) {
  // Loops that become scf.while (while loops, for loops counting down or
  // with break) nest in other loops too: the reverse sweep restores what
  // their bodies read from the enclosing bodies.
  std::set<std::string> kinds;
  for (Category category : {Category::NestedLoop, Category::WhileLoop,
                            Category::Combined})
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      std::set<std::string> found =
          nestedLoopKinds(generateKernel(category, seed, {}).source);
      kinds.insert(found.begin(), found.end());
    }
  EXPECT_TRUE(kinds.count("for"));
  EXPECT_TRUE(kinds.count("while"));
  EXPECT_TRUE(kinds.count("down"));
}

TEST(GeneratorTest, NoDegenerateStatements) {
  // What reads like a mistake in a dataset of code: `x = x;`, `min(i, i)`.
  std::regex selfAssign(R"(^\s*(\w+) = \1;)");
  std::regex sameMinMax(R"(\b(min|max)\((\w+), \2\))");
  for (Category category : allCategories())
    for (uint64_t seed = 0; seed < 100; ++seed) {
      GeneratedKernel k = generateKernel(category, seed, {});
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(k.source).split(lines, '\n');
      for (llvm::StringRef line : lines) {
        std::string text = line.str();
        EXPECT_FALSE(std::regex_search(text, selfAssign))
            << describe(category, seed, k);
        EXPECT_FALSE(std::regex_search(text, sameMinMax))
            << describe(category, seed, k);
      }
    }
}

TEST(GeneratorTest, ReadsLikeCode) {
  // Shapes valid C++ has but nobody writes, over thousands of kernels: a
  // model trained on the pairs would learn the compiler's mapping on code
  // that does not occur.
  const std::pair<const char *, std::regex> shapes[] = {
      {"a self-cancelling update (`x -= x;`, `out[i] = out[i];`)",
       std::regex(R"(^\s*([\w.\[\]()]+) (-=|/=|=) \1;$)")},
      {"a difference of an operand and itself (`x - x`)",
       std::regex(R"((^|[(]|[=,?:] |return )([A-Za-z_][\w.]*(\[[^\]]*\])?) - )"
                  R"(\2([;),]| :| \?))")},
      {"a conversion of a constant (`float(2)`)",
       std::regex(R"(\b(float|double|int)\(-?[0-9][0-9.]*f?\))")},
      {"a division by one", std::regex(R"(/=? 1\.0f?([^0-9]|$))")},
      {"a choice between a value and itself (`c ? a : a`)",
       std::regex(R"(\? ([^:;?]+) : \1[;)])")},
      {"arithmetic of constants only (`0.6f / 3.5f`)",
       std::regex(R"((= |\()-?[0-9][0-9.]*f? [-+*/] -?[0-9][0-9.]*f?[;)])")},
      {"a math function of a constant (`sin(0.9f)`)",
       std::regex(R"(\b(sin|cos|tan|tanh|atan|exp|log|sqrt|abs|floor|ceil)\()"
                  R"(-?[0-9][0-9.]*f?\))")},
  };
  for (Category category : allCategories())
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      GeneratedKernel k = generateKernel(category, seed, {});
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(k.source).split(lines, '\n');
      for (llvm::StringRef line : lines) {
        std::string text = line.str();
        for (const auto &[what, shape] : shapes)
          EXPECT_FALSE(std::regex_search(text, shape))
              << what << ": '" << text << "' in "
              << describe(category, seed, k);
      }
    }
}

TEST(GeneratorTest, MinStatementsDrawsAgain) {
  // --min-statements draws again from seeds derived from the seed: the
  // same kernel every time, the first draw when it is large enough.
  GeneratorOptions options{3, 10, 16};
  for (Category category : allCategories()) {
    unsigned reached = 0;
    for (uint64_t seed = 0; seed < 20; ++seed) {
      GeneratedKernel k = generateKernel(category, seed, options);
      EXPECT_EQ(k.source, generateKernel(category, seed, options).source);
      reached += countStatements(k.source) >= 16;
      GeneratedKernel first = generateKernel(category, seed, {3, 10, 0});
      if (countStatements(first.source) >= 16) {
        EXPECT_EQ(k.source, first.source) << describe(category, seed, k);
      }
    }
    EXPECT_GE(reached, 18u) << categoryName(category).str();
  }
  EXPECT_EQ(countStatements("struct P {\n  float m;\n};\nKSC_KERNEL void k("
                            "array<P> p) {\n  int i = tid();\n  do {\n    "
                            "p[i].m += 1.0f;\n  } while (p[i].m < 0.0f);\n}\n"),
            2u);
}

/// The indentation of a line.
size_t indentOf(llvm::StringRef line) {
  return line.size() - line.ltrim(' ').size();
}

TEST(GeneratorTest, NoDeadStores) {
  // `total += x; total = 1.5f;`: the first write is dead code, which the
  // compiled forms drop. A plain assignment to a local that reads nothing
  // of it must not follow a write of it that nothing has read, unless the
  // write may not run (it is in a block the assignment is not in: a branch
  // or a loop body, which the indentation between them shows).
  std::regex assignment(R"(^\s*(\w+) = (.*);$)");
  for (Category category : allCategories())
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      GeneratedKernel k = generateKernel(category, seed, {});
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(k.source).split(lines, '\n');
      for (size_t at = 0; at < lines.size(); ++at) {
        std::string text = lines[at].str();
        std::smatch match;
        if (!std::regex_match(text, match, assignment))
          continue;
        std::string name = match[1];
        std::regex use("(^|[^\\w.])" + name + "(\\W|$)");
        std::string rhs = match[2];
        if (std::regex_search(rhs, use))
          continue;
        // The last line before that mentions `name`.
        std::regex write("^\\s*((const )?\\w+ " + name + " = .*|" + name +
                         R"((\.\w+)? (=|\+=|-=|\*=|/=|%=) .*|)" + name +
                         R"((\+\+|--)|(\+\+|--))" + name + ");$");
        size_t indent = indentOf(lines[at]), lowest = indent;
        for (size_t before = at; before-- > 0;) {
          if (!lines[before].trim().empty())
            lowest = std::min(lowest, indentOf(lines[before]));
          std::string earlier = lines[before].str();
          if (!std::regex_search(earlier, use))
            continue;
          EXPECT_FALSE(std::regex_match(earlier, write) && lowest >= indent)
              << "'" << text << "' overwrites '"
              << llvm::StringRef(earlier).trim().str()
              << "', which nothing has read, in "
              << describe(category, seed, k);
          break;
        }
      }
    }
}

TEST(GeneratorTest, KernelsReadEveryLocal) {
  // A local of the kernel that nothing reads (it is only declared, or only
  // assigned to) is dead code: the compiled forms drop it, so the pair would
  // teach that the source computes something it does not.
  std::regex declaration(R"(^\s*(\w+) (\w+) = .*;$)");
  for (Category category : allCategories())
    for (uint64_t seed = 0; seed < 100; ++seed) {
      GeneratedKernel k = generateKernel(category, seed, {});
      llvm::StringRef kernel = k.source;
      kernel = kernel.drop_front(kernel.find("KSC_KERNEL"));
      llvm::SmallVector<llvm::StringRef> lines;
      kernel.split(lines, '\n');
      for (size_t d = 0; d < lines.size(); ++d) {
        std::string text = lines[d].str();
        std::smatch match;
        if (!std::regex_match(text, match, declaration) ||
            match[1] == "return" || match[1] == "uint32_t" ||
            lines[d].ends_with("= tid();"))
          continue;
        std::string name = match[2];
        std::regex use("(^|[^\\w.])" + name + "(\\W|$)");
        std::regex update("^\\s*(" + name +
                          R"((\.\w+)? (=|\+=|-=|\*=|/=) .*|)" + name +
                          R"((\+\+|--)|(\+\+|--))" + name + ");$");
        bool read = false;
        for (size_t j = d + 1; j < lines.size() && !read; ++j) {
          std::string later = lines[j].str();
          read = std::regex_search(later, use) &&
                 !std::regex_match(later, update);
        }
        EXPECT_TRUE(read) << "'" << name << "' is never read in "
                          << describe(category, seed, k);
      }
    }
}

TEST(GeneratorTest, RealisticKernelsAreWhatTheirPatternsSay) {
  // Each form a realistic kernel lists is in its source (a shape only that
  // form writes), every form occurs, kernels chain two or three, and the
  // profile's sizes give kernels of 16 or more statements.
  const std::map<std::string, std::regex> shapes = {
      {"stencil.smoothing",
       std::regex(R"(for \(int (\w+) = -\d; \1 <= \d; \+\+\1\))")},
      {"stencil.grid_diffusion", std::regex(R"( - 4\.0f? \* \w+;)")},
      {"stencil.grid_blur", std::regex(R"(\) \* 0\.2f?;)")},
      {"stencil.grid_gradient",
       std::regex(R"(sqrt\((\w+) \* \1 \+ (\w+) \* \2 \+ 0\.01f?\))")},
      {"stencil.diffusion",
       std::regex(R"(\] - 2\.0f? \* (\w+)\[\w+\] \+ \1\[\w+\];)")},
      {"stencil.upwind",
       std::regex(R"( > 0\.0f? \? (\w+)\[\w+\] - \1\[\w+\] : )")},
      {"reduction.dense", std::regex(R"(\+= \w+\(\w+, \w+\) \* \w+\[min\()")},
      {"reduction.softmax", std::regex(R"(= max\((\w+), \w+\[\w+\]\);)")},
      {"reduction.normalization",
       std::regex(R"(/= (float|double)\(\w+\.shape\(0\)\);)")},
      {"reduction.atomic_total", std::regex(R"(atomic_add\(\w+, 0, )")},
      {"reduction.histogram", std::regex(R"(clamp\(int\(floor\()")},
      {"particles.density", std::regex(R"(\+= (\w+\[\w+\] \* )?\w+;)")},
      {"particles.gravity", std::regex(R"(1\.0f / \((\w+) \* sqrt\(\1\)\))")},
      {"particles.spring", std::regex(R"(\* \((\w+) - [0-9.]+f\) / \1\))")},
      {"particles.sph", std::regex(R"(exp\(-\w+ \* [0-9.]+f\))")},
      {"particles.lennard_jones", std::regex(R"(= (\w+) \* \1 \* \1;)")},
      {"integrator.euler", std::regex(R"(for \(int (\w+) = 0; \1 < \d; )")},
      {"integrator.midpoint", std::regex(R"(= \w+ \+ 0\.5f? \* \w+ \* \w+;)")},
      {"integrator.oscillator",
       std::regex(R"(\+= \w+ \* \(.* - [0-9.]+f? \* (\w+)\);)")},
      {"integrator.symplectic_euler",
       std::regex(R"(vec3 \w+ = \(?(\w+)\[\w+\] \+ \w+ \* \w+\)?)")},
      {"integrator.verlet", std::regex(R"(float \w+ = 0\.5f \* \w+;)")},
      {"algebra.transform",
       std::regex(R"(vec3 \w+ = (transpose\()?\w+\[\w+\]\)? \* )")},
      {"algebra.strain_energy",
       std::regex(R"(- identity<mat33>\(\)\) \* 0\.5f;)")},
      {"algebra.gauss_newton", std::regex(R"(= inverse\(\w+\) \* \w+;)")},
      {"algebra.rotation", std::regex(R"(\+ cross\(\w+, [^)]+\) \* \w+ \+ )")},
      {"geometry.ray_sphere", std::regex(R"(= -\w+ - sqrt\(\w+\);)")},
      {"geometry.plane", std::regex(R"(-= \w+ \* \w+;)")},
      {"geometry.reflection", std::regex(R"(\* \(2\.0f \* dot\()")},
      {"geometry.triangle", std::regex(R"(= 0\.5f \* length\(\w+\);)")},
      {"geometry.sdf", std::regex(R"(= lerp\(\w+, \w+, \w+\) - )")},
      {"geometry.sphere_collision",
       std::regex(R"(-= normalize\(\w+\) \* \w+;)")},
  };
  std::map<std::string, unsigned> seen;
  unsigned small = 0;
  constexpr unsigned kKernels = 600;
  for (uint64_t seed = 0; seed < kKernels; ++seed) {
    GeneratedKernel k =
        generateKernel(Category::Realistic, seed, realisticOptions());
    std::string where = describe(Category::Realistic, seed, k);
    EXPECT_GE(k.patterns.size(), 2u) << where;
    EXPECT_LE(k.patterns.size(), 3u) << where;
    for (const std::string &pattern : k.patterns) {
      ++seen[pattern];
      auto shape = shapes.find(pattern);
      if (shape == shapes.end()) {
        ADD_FAILURE() << "no shape for '" << pattern << "'";
        continue;
      }
      EXPECT_TRUE(std::regex_search(k.source, shape->second))
          << pattern << " in " << where;
    }
    small += countStatements(k.source) < 16;
  }
  for (const auto &[pattern, shape] : shapes)
    EXPECT_GT(seen[pattern], 0u) << pattern << " never drawn";
  // --min-statements draws again; 100 draws nearly always suffice.
  EXPECT_LE(small, kKernels / 100);
  // The other categories have no patterns.
  for (Category category : profileCategories(Profile::Basic)) {
    EXPECT_TRUE(generateKernel(category, 1, {}).patterns.empty())
        << categoryName(category).str();
  }
}

TEST(GeneratorTest, Profiles) {
  EXPECT_EQ(profileCategories(Profile::Basic).size(), kNumCategories - 1);
  EXPECT_FALSE(llvm::is_contained(profileCategories(Profile::Basic),
                                  Category::Realistic));
  EXPECT_EQ(profileCategories(Profile::Realistic).vec(),
            std::vector<Category>{Category::Realistic});
  for (Profile profile : {Profile::Basic, Profile::Realistic})
    EXPECT_EQ(parseProfile(profileName(profile)), profile);
  EXPECT_EQ(parseProfile("huge"), std::nullopt);
}

class CategoryTest : public ::testing::TestWithParam<Category> {};

TEST_P(CategoryTest, DeterministicWithConstructAndSignature) {
  Category category = GetParam();
  GeneratorOptions options;
  std::set<std::string> sources;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    GeneratedKernel k = generateKernel(category, seed, options);
    GeneratedKernel again = generateKernel(category, seed, options);
    std::string where = describe(category, seed, k);
    ASSERT_EQ(k.source, again.source) << where;
    sources.insert(k.source);
    for (llvm::StringRef c : constructs(category))
      EXPECT_TRUE(llvm::StringRef(k.source).contains(c))
          << "missing '" << c.str() << "' in " << where;
    checkAlternatives(category, k, where);
    EXPECT_EQ(normalizeSpace(signatureOf(k)), expectedSignature(k)) << where;
    EXPECT_EQ(llvm::StringRef(k.source).count("KSC_KERNEL"), 1u) << where;
    EXPECT_FALSE(llvm::StringRef(k.source).contains("#include")) << where;
    bool hasFloatOutput = false;
    for (const KernelArgument &a : k.arguments)
      if (llvm::StringRef(a.type).starts_with("array<") &&
          !llvm::StringRef(a.type).starts_with("array<const") &&
          !llvm::StringRef(a.type).starts_with("array<int") &&
          !llvm::StringRef(a.type).starts_with("array<bool"))
        hasFloatOutput = true;
    EXPECT_TRUE(hasFloatOutput) << where;
  }
  // Different seeds give different kernels.
  EXPECT_GE(sources.size(), kSeeds * 95 / 100) << categoryName(category).str();
}

TEST_P(CategoryTest, OptionsBoundTheSize) {
  Category category = GetParam();
  GeneratorOptions small{1, 2}, large{4, 10};
  size_t smallTotal = 0, largeTotal = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    smallTotal += generateKernel(category, seed, small).source.size();
    largeTotal += generateKernel(category, seed, large).source.size();
  }
  EXPECT_LT(smallTotal, largeTotal) << categoryName(category).str();
}

/// Compiles kernels of `category` to `forms`; returns the number compiled.
void compileSeeds(Category category, uint64_t first, uint64_t count,
                  llvm::StringRef formList, const GeneratorOptions &options) {
  std::string err;
  std::optional<FormSet> forms = FormSet::parse(formList, err);
  ASSERT_TRUE(forms) << err;
  std::unique_ptr<mlir::MLIRContext> context = createCompilerContext();
  const char *dump = std::getenv("KSC_SYNTH_DUMP");
  unsigned failures = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    GeneratedKernel k = generateKernel(category, seed, options);
    std::string name =
        categoryName(category).str() + "_" + std::to_string(seed) + ".kdsl";
    if (dump) {
      std::ofstream out(std::string(dump) + "/" + name);
      out << k.source;
    }
    CompiledForms result;
    std::string error;
    bool ok = compileForms(*context, name, k.source, *forms, FormsOptions(),
                           result, error);
    EXPECT_TRUE(ok) << describe(category, seed, k) << "\n" << error;
    if (!ok && ++failures >= 5)
      return;
  }
}

TEST_P(CategoryTest, Compiles) {
  compileSeeds(GetParam(), 0, compiledSeeds(),
               "ks_mlir,cpp_adj,cpp_jvp,cuda_adj",
               GeneratorOptions());
}

TEST_P(CategoryTest, CompilesToPtx) {
  compileSeeds(GetParam(), 1000, 8, "ptx_adj", GeneratorOptions());
}

TEST_P(CategoryTest, CompilesWithOtherOptions) {
  compileSeeds(GetParam(), 2000, 15, "cpp_adj,cpp_jvp", {1, 1});
  compileSeeds(GetParam(), 3000, 15, "cpp_adj,cpp_jvp", {5, 9});
}

TEST_P(CategoryTest, DISABLED_Soak) {
  const char *n = std::getenv("KSC_SYNTH_SOAK");
  const char *forms = std::getenv("KSC_SYNTH_SOAK_FORMS");
  compileSeeds(GetParam(), 100000, n ? std::strtoull(n, nullptr, 10) : 2000,
               forms ? forms : "cpp_adj,cpp_jvp,cuda_adj,ptx_adj",
               GeneratorOptions());
}

INSTANTIATE_TEST_SUITE_P(AllCategories, CategoryTest,
                         ::testing::ValuesIn(allCategories()),
                         [](const ::testing::TestParamInfo<Category> &info) {
                           std::string name = categoryName(info.param).str();
                           std::string result;
                           bool upper = true;
                           for (char c : name) {
                             if (c == '_') {
                               upper = true;
                               continue;
                             }
                             result += upper ? char(std::toupper(c)) : c;
                             upper = false;
                           }
                           return result;
                         });

TEST(GeneratorTest, CategoryNames) {
  EXPECT_EQ(allCategories().size(), kNumCategories);
  for (Category c : allCategories())
    EXPECT_EQ(parseCategory(categoryName(c)), c);
  EXPECT_EQ(categoryName(Category::MultiConditional), "multi_conditional");
  EXPECT_FALSE(parseCategory("nope"));
}

} // namespace
