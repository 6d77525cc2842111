#include "common/rpc/metrics_endpoint.h"

#include "common/base/address_file.h"

#include "gtest/gtest.h"

namespace mmapzero::rpc {
namespace {

TEST(MetricsEndpointTest, MetricsListenOnTheGrpcListenHost) {
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
}  // namespace mmapzero::rpc
