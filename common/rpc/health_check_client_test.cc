// The health check client against a real server (StartGrpcServer, which
// serves gRPC's health service): serving, not serving, an unknown service,
// nothing listening, a name too long to encode.
#include "common/rpc/health_check_client.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/grpc_server.h"
#include "gtest/gtest.h"

namespace mmapzero::rpc {
namespace {

std::shared_ptr<grpc::Channel> ChannelTo(int port) {
  return MakeClientChannel(absl::StrCat("127.0.0.1:", port));
}

TEST(HealthCheckClientTest, ReadsWhatTheServerServes) {
  GrpcServerOptions options;
  options.service_names = {"mmapzero.v1.Nothing"};
  absl::StatusOr<StartedServer> started = StartGrpcServer(options);
  ASSERT_TRUE(started.ok()) << started.status();
  const auto channel = ChannelTo(started->port);
  for (const char* service : {"", "mmapzero.v1.Nothing"}) {
    const absl::StatusOr<ServingStatus> status =
        CheckServingStatus(channel, service, absl::Seconds(10));
    ASSERT_TRUE(status.ok()) << service << ": " << status.status();
    EXPECT_EQ(*status, ServingStatus::kServing) << service;
  }
  SetServing(*started->server, {"mmapzero.v1.Nothing"}, false);
  const absl::StatusOr<ServingStatus> stopping =
      CheckServingStatus(channel, "", absl::Seconds(10));
  ASSERT_TRUE(stopping.ok()) << stopping.status();
  EXPECT_EQ(*stopping, ServingStatus::kNotServing);
  EXPECT_EQ(CheckServingStatus(channel, "mmapzero.v1.Other", absl::Seconds(10))
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(
      CheckServingStatus(channel, std::string(128, 's'), absl::Seconds(10))
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  started->server->Shutdown();
}

TEST(HealthCheckClientTest, NothingListeningIsUnavailableWithinTheDeadline) {
  int port = 0;
  {
    // A port that was free a moment ago and has nothing on it now.
    absl::StatusOr<StartedServer> started =
        StartGrpcServer(GrpcServerOptions());
    ASSERT_TRUE(started.ok()) << started.status();
    port = started->port;
    started->server->Shutdown();
  }
  const absl::Time start = absl::Now();
  const absl::StatusOr<ServingStatus> status =
      CheckServingStatus(ChannelTo(port), "", absl::Milliseconds(500));
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::IsUnavailable(status.status()) ||
              absl::IsDeadlineExceeded(status.status()))
      << status.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
}  // namespace mmapzero::rpc
