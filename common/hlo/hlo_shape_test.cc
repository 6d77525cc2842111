#include "common/hlo/hlo_shape.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {
namespace {

using ::testing::HasSubstr;

int64_t Bytes(const char* text) {
  auto shape = ParseShapeText(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  return shape.ok() ? shape->ByteSize() : -1;
}

TEST(HloShapeTest, ElementTypesHaveTheirByteWidths) {
  EXPECT_EQ(Bytes("f32[128,10]{1,0}"), 128 * 10 * 4);
  EXPECT_EQ(Bytes("bf16[3]"), 6);
  EXPECT_EQ(Bytes("pred[7]"), 7);
  EXPECT_EQ(Bytes("s64[2]"), 16);
  EXPECT_EQ(Bytes("c128[2]"), 32);
  EXPECT_EQ(Bytes("f8e4m3fn[5]"), 5);
  EXPECT_EQ(Bytes("f32[]"), 4);
}

TEST(HloShapeTest, SubByteTypesArePackedAndRoundedUp) {
  EXPECT_EQ(Bytes("s4[5]"), 3);  // 20 bits
  EXPECT_EQ(Bytes("u4[8]{0}"), 4);
}

TEST(HloShapeTest, TuplesSumTheirLeavesAndTokensAreEmpty) {
  auto shape = ParseShapeText("(s32[], (bf16[2,4]{1,0}, token[]), f32[0])");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_TRUE(shape->IsTuple());
  EXPECT_EQ(shape->LeafCount(), 4);
  EXPECT_EQ(shape->ByteSize(), 4 + 16);
  EXPECT_EQ(shape->ToString(), "(s32[], (bf16[2,4], token[]), f32[0])");
}

TEST(HloShapeTest, DynamicDimensionsUseTheirBound) {
  EXPECT_EQ(Bytes("f32[<=8,2]{1,0}"), 64);
}

TEST(HloShapeTest, TiledLayoutsAndMemorySpacesAreReadButNotPadded) {
  auto shape = ParseShapeText("f32[3,5]{1,0:T(8,128)(2,1)S(1)}");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_TRUE(shape->tiled);
  EXPECT_EQ(shape->memory_space, 1);
  EXPECT_EQ(shape->ByteSize(), 60);  // logical bytes, no tile padding
}

TEST(HloShapeTest, BadShapesAreErrors) {
  EXPECT_THAT(ParseShapeText("f33[2]").status().message(),
              HasSubstr("unknown element type"));
  EXPECT_THAT(ParseShapeText("f32[2,").status().message(),
              HasSubstr("missing ']'"));
  EXPECT_THAT(ParseShapeText("f32[x]").status().message(),
              HasSubstr("not a size"));
  EXPECT_THAT(ParseShapeText("(f32[2]").status().message(),
              HasSubstr("unclosed tuple"));
  EXPECT_THAT(
      ParseShapeText("f32[99999999,99999999,99999999]").status().message(),
      HasSubstr("too large"));
  // 2^48 bytes is the most anything accepts (workload_limits.h).
  EXPECT_EQ(Bytes("u8[281474976710656]"), int64_t{1} << 48);
  EXPECT_THAT(ParseShapeText("u8[281474976710657]").status().message(),
              HasSubstr("too large"));
  EXPECT_THAT(ParseShapeText("(u8[281474976710656], u8[1])").status().message(),
              HasSubstr("tuple too large"));
}

// Deep nesting is an error, not a stack overflow: 100,000 levels of tuple
// once crashed `mmapctl import` (one recursion per level).
TEST(HloShapeTest, DeeplyNestedTuplesAreAnErrorNotACrash) {
  const auto nested = [](int depth) {
    return std::string(depth, '(') + "f32[2]" + std::string(depth, ')');
  };
  EXPECT_EQ(Bytes(nested(64).c_str()), 8);
  EXPECT_THAT(ParseShapeText(nested(65)).status().message(),
              HasSubstr("nested deeper than 64"));
  EXPECT_THAT(ParseShapeText(nested(100000)).status().message(),
              HasSubstr("nested deeper than 64"));
}

}  // namespace
}  // namespace mmapzero::hlo
