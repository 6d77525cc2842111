#include "common/rpc/chunked_bytes.h"

#include <string>

#include "common/rpc/parameter_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::rpc {
namespace {

using ::testing::HasSubstr;

std::string MessageOf(const absl::Status& status) {
  return std::string(status.message());
}

TEST(ChunkBytesOfTest, ZeroIsTheDefaultAndTheRangeIsChecked) {
  EXPECT_EQ(*ChunkBytesOf(0, 1024, 4096), 1024);
  EXPECT_EQ(*ChunkBytesOf(4096, 1024, 4096), 4096);
  const absl::Status negative = ChunkBytesOf(-5, 1024, 4096).status();
  EXPECT_TRUE(absl::IsInvalidArgument(negative));
  EXPECT_THAT(MessageOf(negative),
              HasSubstr("max_chunk_bytes: must be 0 (default, 1024) to 4096, "
                        "got -5"));
  EXPECT_TRUE(absl::IsInvalidArgument(ChunkBytesOf(4097, 1024, 4096).status()));
}

TEST(ChunkAssemblerTest, PutsChunksInOrderBackTogether) {
  const std::string bytes = "0123456789";
  ChunkAssembler assembler;
  EXPECT_FALSE(assembler.started());
  ASSERT_TRUE(assembler.Add(0, 10, "0123").ok());
  EXPECT_TRUE(assembler.started());
  ASSERT_TRUE(assembler.Add(4, 10, "4567").ok());
  ASSERT_TRUE(assembler.Add(8, 10, "89").ok());
  absl::StatusOr<std::string> whole = assembler.Finish(Crc32c(bytes));
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(*whole, bytes);
}

TEST(ChunkAssemblerTest, AnEmptyStringIsOneEmptyChunk) {
  ChunkAssembler assembler;
  ASSERT_TRUE(assembler.Add(0, 0, "").ok());
  EXPECT_EQ(*assembler.Finish(Crc32c("")), "");
}

TEST(ChunkAssemblerTest, DamagedStreamsAreDataLossSayingWhat) {
  {
    ChunkAssembler assembler;
    ASSERT_TRUE(assembler.Add(0, 6, "abc").ok());
    const absl::Status skipped = assembler.Add(4, 6, "ef");
    EXPECT_TRUE(absl::IsDataLoss(skipped));
    EXPECT_THAT(MessageOf(skipped), HasSubstr("chunk at offset 4, expected 3"));
    // Later chunks get the same error; Finish too.
    EXPECT_EQ(assembler.Add(3, 6, "def"), skipped);
    EXPECT_EQ(assembler.Finish(0).status(), skipped);
  }
  {
    ChunkAssembler assembler;
    ASSERT_TRUE(assembler.Add(0, 4, "ab").ok());
    EXPECT_THAT(MessageOf(assembler.Add(2, 4, "cde")),
                HasSubstr("chunks run past total_bytes 4"));
  }
  {
    ChunkAssembler assembler;
    ASSERT_TRUE(assembler.Add(0, 4, "ab").ok());
    EXPECT_THAT(MessageOf(assembler.Add(2, 5, "cd")),
                HasSubstr("says 5 bytes in all, the first said 4"));
  }
  {
    ChunkAssembler assembler(/*max_total_bytes=*/8);
    EXPECT_THAT(MessageOf(assembler.Add(0, 9, "x")),
                HasSubstr("total_bytes 9"));
  }
  {
    ChunkAssembler assembler;
    ASSERT_TRUE(assembler.Add(0, 4, "ab").ok());
    EXPECT_THAT(MessageOf(assembler.Finish(Crc32c("ab")).status()),
                HasSubstr("got 2 of 4 bytes"));
  }
  {
    ChunkAssembler assembler;
    ASSERT_TRUE(assembler.Add(0, 2, "ab").ok());
    const absl::Status flipped = assembler.Finish(Crc32c("ab") ^ 1).status();
    EXPECT_TRUE(absl::IsDataLoss(flipped));
    EXPECT_THAT(MessageOf(flipped), HasSubstr("crc32c"));
  }
  EXPECT_THAT(MessageOf(ChunkAssembler().Finish(0).status()),
              HasSubstr("the stream ended without a chunk"));
}

}  // namespace
}  // namespace mmapzero::rpc
