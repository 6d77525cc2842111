#include "common/base/address_file.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

TEST(AddressFileTest, WildcardHostsBecomeLoopback) {
  EXPECT_EQ(DialableAddress("0.0.0.0:0", 4100), "127.0.0.1:4100");
  EXPECT_EQ(DialableAddress("[::]:7070", 7070), "127.0.0.1:7070");
  EXPECT_EQ(DialableAddress("", 9), "127.0.0.1:9");
  EXPECT_EQ(DialableAddress("127.0.0.1:0", 4100), "127.0.0.1:4100");
  EXPECT_EQ(DialableAddress("coordinator.svc:7070", 7070),
            "coordinator.svc:7070");
}

TEST(AddressFileTest, WritesAndReadsBack) {
  const std::string path = ::testing::TempDir() + "/address_file_test.addr";
  ASSERT_TRUE(WriteAddressFile(path, "0.0.0.0:0", 5123).ok());
  EXPECT_EQ(*ReadAddressFile(path), "127.0.0.1:5123");
}

TEST(AddressFileTest, MissingAndMalformedFilesAreNamed) {
  const std::string missing = ::testing::TempDir() + "/no_such.addr";
  EXPECT_TRUE(absl::IsNotFound(ReadAddressFile(missing).status()));
  const std::string bad = ::testing::TempDir() + "/bad.addr";
  std::ofstream(bad) << "localhost\n";
  const absl::Status status = ReadAddressFile(bad).status();
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(status.message(), HasSubstr(bad));
}

TEST(AddressFileTest, MetricsListenOnTheGrpcListenHost) {
  EXPECT_EQ(ListenHost("127.0.0.1:7070"), "127.0.0.1");
  EXPECT_EQ(ListenHost("0.0.0.0:7070"), "0.0.0.0");
  EXPECT_EQ(ListenHost("[::]:7070"), "[::]");
  EXPECT_EQ(ListenHost("10.1.2.3:0"), "10.1.2.3");
  // No host: loopback, the default.
  EXPECT_EQ(ListenHost(":7070"), kDefaultListenHost);
  EXPECT_EQ(ListenHost("7070"), kDefaultListenHost);
  EXPECT_EQ(MetricsListenAddress(ListenHost("0.0.0.0:7070"), 9090),
            "0.0.0.0:9090");
  EXPECT_EQ(MetricsListenAddress(kDefaultListenHost, 9091), "127.0.0.1:9091");
  EXPECT_EQ(MetricsListenAddress(kDefaultListenHost, 0), "");  // off
}

}  // namespace
}  // namespace mmapzero
