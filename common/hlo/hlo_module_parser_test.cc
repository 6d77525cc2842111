#include "common/hlo/hlo_module_parser.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kCurrentStyle[] =
    R"(HloModule m, is_scheduled=true, input_output_alias={ {0}: (1, {}, may-alias) }, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

add.comp {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[4]{0} parameter(0), sharding={devices=[1,4]<=[4]}
  b = f32[4]{0} parameter(1), metadata={op_name="a, \"b\" {c}" source_line=3}
  ROOT c = f32[4]{0} add(a, b), backend_config={"x":{"y":[1,2]}}, /*index=5*/ frontend_attributes={k="v"}
}
)";

TEST(HloModuleParserTest, ParsesCurrentStyleWithNestedAttributes) {
  auto module = ParseHloModule(kCurrentStyle, "m.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->name, "m");
  EXPECT_TRUE(module->is_scheduled);
  ASSERT_EQ(module->input_output_alias.size(), 1u);
  EXPECT_EQ(module->input_output_alias[0].parameter, 1);
  EXPECT_THAT(module->input_output_alias[0].output_index, ElementsAre(0));
  ASSERT_EQ(module->computations.size(), 2u);
  const HloComputation& entry = module->entry_computation();
  EXPECT_EQ(entry.name, "main");
  ASSERT_EQ(entry.instructions.size(), 3u);
  const HloInstruction& c = entry.instructions[2];
  EXPECT_TRUE(c.is_root);
  EXPECT_EQ(c.opcode, "add");
  EXPECT_THAT(c.operands, ElementsAre("a", "b"));
  EXPECT_EQ(*c.Attribute("backend_config"), R"({"x":{"y":[1,2]}})");
  EXPECT_EQ(*c.Attribute("frontend_attributes"), "{k=\"v\"}");
  EXPECT_EQ(c.line, 12);
  EXPECT_EQ(entry.instructions[1].attributes.size(), 1u);
}

TEST(HloModuleParserTest, ParsesOlderStyleWithInlineOperandShapes) {
  constexpr char kOld[] = R"(HloModule old

ENTRY %old (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  %k = f32[2]{0} constant({1, 2})
  ROOT %m = f32[2]{0} multiply(f32[2]{0} %p, f32[2]{0} %k)
}
)";
  auto module = ParseHloModule(kOld, "old.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation& entry = module->entry_computation();
  EXPECT_EQ(entry.instructions[1].literal, "{1, 2}");
  EXPECT_THAT(entry.instructions[2].operands, ElementsAre("p", "k"));
  EXPECT_FALSE(module->is_scheduled);
}

TEST(HloModuleParserTest, ParsesOutputToOperandAliasing) {
  auto aliases = ParseAliasList("{{}: (1, {}), {1}: (0, {2})}");
  ASSERT_TRUE(aliases.ok()) << aliases.status();
  ASSERT_EQ(aliases->size(), 2u);
  EXPECT_TRUE((*aliases)[0].output_index.empty());
  EXPECT_EQ((*aliases)[0].parameter, 1);
  EXPECT_THAT((*aliases)[1].parameter_index, ElementsAre(2));
}

TEST(HloModuleParserTest, TruncatedModuleNamesTheOpenComputation) {
  constexpr char kTruncated[] =
      "HloModule t\nENTRY e {\n  p = f32[] parameter(0)\n";
  auto module = ParseHloModule(kTruncated, "t.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("t.hlo:3:"));
  EXPECT_THAT(module.status().message(), HasSubstr("not closed"));
}

TEST(HloModuleParserTest, TruncatedLineIsAnError) {
  constexpr char kCut[] =
      "HloModule t\nENTRY e {\n  p = f32[2] parameter(0)\n  q = f32[2] add(p, "
      "\n}\n";
  auto module = ParseHloModule(kCut, "t.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("t.hlo:4: unbalanced"));
}

TEST(HloModuleParserTest, UnknownOpcodeNamesLineAndOpcode) {
  constexpr char kUnknown[] =
      "HloModule u\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT q = f32[2] "
      "frobnicate(p)\n}\n";
  auto module = ParseHloModule(kUnknown, "u.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("u.hlo:4: unknown opcode 'frobnicate'"));
}

TEST(HloModuleParserTest, BadShapeNamesTheLine) {
  constexpr char kBad[] =
      "HloModule b\nENTRY e {\n  ROOT p = f32[2,x] parameter(0)\n}\n";
  auto module = ParseHloModule(kBad, "b.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("b.hlo:3: bad shape"));
}

TEST(HloModuleParserTest, NotHloIsAnError) {
  EXPECT_THAT(ParseHloModule("", "e.hlo").status().message(),
              HasSubstr("no 'HloModule' header"));
  EXPECT_THAT(ParseHloModule("hello world\n", "e.hlo").status().message(),
              HasSubstr("e.hlo:1: expected the 'HloModule NAME' header"));
  EXPECT_THAT(ParseHloModule("HloModule x\n", "e.hlo").status().message(),
              HasSubstr("no computations"));
}

TEST(HloModuleParserTest, DuplicateNamesAreErrors) {
  constexpr char kTwice[] =
      "HloModule d\nENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] "
      "parameter(1)\n}\n";
  EXPECT_THAT(ParseHloModule(kTwice, "d.hlo").status().message(),
              HasSubstr("d.hlo:4: instruction 'p' defined twice"));
}

}  // namespace
}  // namespace mmapzero::hlo
