//===- SourceNamesTest.cpp - Tests of source names in ks IR -----------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace ksc;

TEST(SourceNamesTest, ReadsNamesFromLocations) {
  MLIRContext context;
  Location file = FileLineColLoc::get(&context, "k.kdsl", 3, 7);
  Location named = NameLoc::get(StringAttr::get(&context, "s"), file);
  EXPECT_EQ(getNameFromLoc(named), "s");
  EXPECT_EQ(getNameFromLoc(file), "");
  EXPECT_EQ(getNameFromLoc(FusedLoc::get(&context, {file, named})), "s");
  EXPECT_EQ(formatFileLoc(named), "k.kdsl:3:7");
  EXPECT_EQ(formatFileLoc(UnknownLoc::get(&context)), "<unknown>");
}

TEST(SourceNamesTest, ReadsArgumentNamesOfKernels) {
  MLIRContext context;
  context.loadDialect<ks::KsDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    ks.kernel @k(%a: f32, %0: !ks.array<f32>) {
      ks.return
    }
  )mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<ks::KernelOp>().begin();
  Block &entry = kernel.getBody().front();
  EXPECT_EQ(getSourceName(entry.getArgument(0)), "a");
  EXPECT_EQ(getSourceName(entry.getArgument(1)), "");
  EXPECT_EQ(kernel.getArgName(0), "a");
}
