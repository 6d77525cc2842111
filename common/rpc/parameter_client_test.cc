// CRC32C against published check values (the client's chunked fetch is
// tested against a real ParameterService in learner/).
#include "common/rpc/parameter_client.h"

#include <gtest/gtest.h>

#include <string>

namespace mmapzero::rpc {
namespace {

TEST(Crc32cTest, MatchesKnownValues) {
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);            // the CRC catalogue's
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);  // RFC 3720 B.4
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
}

}  // namespace
}  // namespace mmapzero::rpc
