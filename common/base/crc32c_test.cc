// CRC32C: the standard check value, every length around the 8-byte steps
// against a bit-by-bit reference, and extension in pieces.
#include "common/base/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace mmapzero {
namespace {

uint32_t BitByBit(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const char c : bytes) {
    crc ^= static_cast<uint8_t>(c);
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
  }
  return ~crc;
}

TEST(Crc32cTest, MatchesTheStandardAndABitByBitReference) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // RFC 3720's check value
  EXPECT_EQ(Crc32c(""), 0u);
  std::string bytes;
  for (int n = 0; n < 70; ++n) {
    EXPECT_EQ(Crc32c(bytes), BitByBit(bytes)) << n << " bytes";
    bytes += static_cast<char>(n * 37 + 11);
  }
}

TEST(Crc32cTest, ExtendingPieceByPieceGivesTheWhole) {
  std::string whole(1000, '\0');
  for (size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<char>(i * 7);
  for (const size_t cut : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    const std::string_view view(whole);
    EXPECT_EQ(Crc32cExtend(Crc32c(view.substr(0, cut)), view.substr(cut)),
              Crc32c(whole))
        << cut;
  }
}

}  // namespace
}  // namespace mmapzero
