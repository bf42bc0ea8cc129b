//===- ArrayTypeTest.cpp - Tests of !ks.array -------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace ksc::ks;

namespace {
class ArrayTypeTest : public ::testing::Test {
protected:
  ArrayTypeTest() { context.loadDialect<KsDialect>(); }

  std::string print(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  }

  MLIRContext context;
};
} // namespace

TEST_F(ArrayTypeTest, DefaultsToMutableRankOne) {
  auto type = ArrayType::get(Float32Type::get(&context));
  EXPECT_EQ(type.getRank(), 1u);
  EXPECT_FALSE(type.getIsConst());
  EXPECT_EQ(print(type), "!ks.array<f32>");
}

TEST_F(ArrayTypeTest, PrintsConstAndRank) {
  auto type = ArrayType::get(IntegerType::get(&context, 32), 2, true);
  EXPECT_EQ(print(type), "!ks.array<const i32, 2>");
  EXPECT_EQ(type.withConst(false),
            ArrayType::get(IntegerType::get(&context, 32), 2, false));
}

TEST_F(ArrayTypeTest, ParsesWhatItPrints) {
  for (const char *text : {"!ks.array<f64>", "!ks.array<const f32>",
                           "!ks.array<i1, 3>", "!ks.array<const i64, 4>",
                           "!ks.array<ui32>"}) {
    Type type = parseType(text, &context);
    ASSERT_TRUE(type) << text;
    EXPECT_EQ(print(type), text);
  }
}

TEST_F(ArrayTypeTest, RejectsBadElementTypesAndRanks) {
  // Diagnostics are expected here; keep them out of the test output.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  EXPECT_FALSE(parseType("!ks.array<i8>", &context));
  EXPECT_FALSE(parseType("!ks.array<f32, 0>", &context));
  EXPECT_FALSE(parseType("!ks.array<f32, 5>", &context));
  EXPECT_FALSE(parseType("!ks.array<!ks.array<f32>>", &context));
}

TEST_F(ArrayTypeTest, ValidElementTypes) {
  EXPECT_TRUE(ArrayType::isValidElementType(Float32Type::get(&context)));
  EXPECT_TRUE(ArrayType::isValidElementType(Float64Type::get(&context)));
  EXPECT_TRUE(ArrayType::isValidElementType(IntegerType::get(&context, 1)));
  EXPECT_TRUE(ArrayType::isValidElementType(IntegerType::get(&context, 64)));
  EXPECT_FALSE(ArrayType::isValidElementType(IntegerType::get(&context, 16)));
  // uint32_t is ui32; other unsigned and signed widths are not arrays of
  // the kernel language.
  EXPECT_TRUE(ArrayType::isValidElementType(
      IntegerType::get(&context, 32, IntegerType::Unsigned)));
  EXPECT_FALSE(ArrayType::isValidElementType(
      IntegerType::get(&context, 64, IntegerType::Unsigned)));
  EXPECT_FALSE(ArrayType::isValidElementType(
      IntegerType::get(&context, 32, IntegerType::Signed)));
  EXPECT_FALSE(ArrayType::isValidElementType(Float16Type::get(&context)));
}

TEST_F(ArrayTypeTest, ValuesAreSignless) {
  auto i32 = IntegerType::get(&context, 32);
  auto ui32 = IntegerType::get(&context, 32, IntegerType::Unsigned);
  EXPECT_EQ(ArrayType::get(ui32).getValueType(), i32);
  EXPECT_EQ(ArrayType::get(i32).getValueType(), i32);
  EXPECT_EQ(ArrayType::get(Float32Type::get(&context)).getValueType(),
            Float32Type::get(&context));
  EXPECT_EQ(print(ArrayType::get(ui32, 2, true)), "!ks.array<const ui32, 2>");
}
