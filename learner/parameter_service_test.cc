// ParameterService over a real loopback server with the real client
// (common/rpc/parameter_client.h): a snapshot bigger than one chunk comes
// back whole, in contiguous chunks; bad requests are refused with the
// field named; and a client given corrupted or inconsistent chunks (by a
// fake server) answers DataLoss.
#include "learner/parameter_service.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/parameter_client.h"
#include "gmock/gmock.h"

namespace mmapzero::learner {
namespace {

using ::testing::HasSubstr;

std::string RandomBytes(size_t size, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

class Loopback {
 public:
  explicit Loopback(grpc::Service* service) {
    absl::StatusOr<rpc::StartedServer> started = rpc::StartGrpcServer(
        {.services = {service},
         .service_names = {"mmapzero.v1.ParameterService"}});
    EXPECT_TRUE(started.ok()) << started.status();
    server_ = std::move(started->server);
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(64 << 20);
    channel_ = grpc::CreateCustomChannel(
        absl::StrCat("127.0.0.1:", started->port),
        grpc::InsecureChannelCredentials(), arguments);
  }
  ~Loopback() { server_->Shutdown(); }
  std::shared_ptr<grpc::Channel> channel() const { return channel_; }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST(ParameterServiceTest, SnapshotBiggerThanAChunkRoundTrips) {
  worker::ParameterStore store;
  ParameterServiceImpl service(&store);
  Loopback loopback(&service);
  const std::string bytes = RandomBytes((3 << 20) + 12345, 1);  // 4 chunks
  store.Publish("job-000001", 10, "old", "torch-archive-v1");
  store.Publish("job-000001", 20, bytes, "torch-archive-v1");

  rpc::ParameterClient client(loopback.channel());
  absl::StatusOr<int64_t> latest = client.LatestVersion("job-000001");
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(*latest, 20);
  absl::StatusOr<rpc::ParameterSnapshot> fetched = client.Fetch("job-000001");
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->version, 20);
  EXPECT_EQ(fetched->format, "torch-archive-v1");
  EXPECT_TRUE(fetched->bytes == bytes);
  absl::StatusOr<rpc::ParameterSnapshot> older = client.Fetch("job-000001", 10);
  ASSERT_TRUE(older.ok()) << older.status();
  EXPECT_EQ(older->bytes, "old");

  // The raw stream: 1 MiB chunks by default, contiguous, the first with
  // format and CRC32C.
  auto stub = v1::ParameterService::NewStub(loopback.channel());
  grpc::ClientContext context;
  v1::FetchParametersRequest request;
  request.set_job_id("job-000001");
  auto reader = stub->FetchParameters(&context, request);
  std::vector<v1::ParameterChunk> chunks;
  for (v1::ParameterChunk chunk; reader->Read(&chunk);) chunks.push_back(chunk);
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(chunks.size(), 4u);
  int64_t offset = 0;
  for (const v1::ParameterChunk& chunk : chunks) {
    EXPECT_EQ(chunk.offset(), offset);
    EXPECT_EQ(chunk.total_bytes(), static_cast<int64_t>(bytes.size()));
    EXPECT_EQ(chunk.version(), 20);
    EXPECT_LE(chunk.data().size(), size_t{1} << 20);
    offset += chunk.data().size();
  }
  EXPECT_EQ(offset, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(chunks[0].crc32c(), rpc::Crc32c(bytes));
  EXPECT_EQ(chunks[0].format(), "torch-archive-v1");
  EXPECT_EQ(chunks[1].format(), "");
}

TEST(ParameterServiceTest, RefusesBadRequestsNamingTheField) {
  worker::ParameterStore store(/*kept_versions=*/2);
  ParameterServiceImpl service(&store);
  Loopback loopback(&service);
  for (int version = 1; version <= 3; ++version) {
    store.Publish("job-000001", version * 10, "x", "torch-archive-v1");
  }
  rpc::ParameterClient client(loopback.channel());
  absl::StatusOr<rpc::ParameterSnapshot> gone = client.Fetch("job-000001", 10);
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(gone.status().message()), HasSubstr("version: 10"));
  absl::StatusOr<int64_t> unknown = client.LatestVersion("job-000009");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("job-000009"));

  auto stub = v1::ParameterService::NewStub(loopback.channel());
  grpc::ClientContext context;
  v1::FetchParametersRequest request;
  request.set_job_id("job-000001");
  request.set_max_chunk_bytes(-5);
  auto reader = stub->FetchParameters(&context, request);
  v1::ParameterChunk chunk;
  EXPECT_FALSE(reader->Read(&chunk));
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("max_chunk_bytes"));
  EXPECT_THAT(status.error_message(), HasSubstr("-5"));

  store.Remove("job-000001");
  EXPECT_EQ(client.LatestVersion("job-000001").status().code(),
            absl::StatusCode::kNotFound);
}

// Streams what `make` returns for a 3-chunk snapshot of `bytes`.
class FakeParameterService final : public v1::ParameterService::Service {
 public:
  using Mangle = std::function<void(std::vector<v1::ParameterChunk>*)>;
  FakeParameterService(std::string bytes, Mangle mangle)
      : bytes_(std::move(bytes)), mangle_(std::move(mangle)) {}

  grpc::Status FetchParameters(
      grpc::ServerContext*, const v1::FetchParametersRequest*,
      grpc::ServerWriter<v1::ParameterChunk>* writer) override {
    std::vector<v1::ParameterChunk> chunks;
    const size_t size = (bytes_.size() + 2) / 3;
    for (size_t offset = 0; offset < bytes_.size(); offset += size) {
      v1::ParameterChunk chunk;
      chunk.set_version(7);
      chunk.set_offset(offset);
      chunk.set_total_bytes(bytes_.size());
      chunk.set_data(bytes_.substr(offset, size));
      if (offset == 0) {
        chunk.set_format("torch-archive-v1");
        chunk.set_crc32c(rpc::Crc32c(bytes_));
      }
      chunks.push_back(chunk);
    }
    mangle_(&chunks);
    for (const v1::ParameterChunk& chunk : chunks) writer->Write(chunk);
    return grpc::Status::OK;
  }

 private:
  std::string bytes_;
  Mangle mangle_;
};

absl::Status FetchFrom(FakeParameterService::Mangle mangle) {
  FakeParameterService fake(RandomBytes(3000, 2), std::move(mangle));
  Loopback loopback(&fake);
  return rpc::ParameterClient(loopback.channel()).Fetch("job-000001").status();
}

TEST(ParameterClientTest, CorruptedOrInconsistentChunksAreDataLoss) {
  EXPECT_TRUE(FetchFrom([](auto*) {}).ok());
  const absl::Status flipped = FetchFrom([](auto* chunks) {
    std::string& data = *(*chunks)[1].mutable_data();
    data[17] = static_cast<char>(data[17] ^ 0x40);
  });
  EXPECT_EQ(flipped.code(), absl::StatusCode::kDataLoss) << flipped;
  EXPECT_THAT(std::string(flipped.message()), HasSubstr("crc32c"));
  const absl::Status missing =
      FetchFrom([](auto* chunks) { chunks->erase(chunks->begin() + 1); });
  EXPECT_EQ(missing.code(), absl::StatusCode::kDataLoss) << missing;
  EXPECT_THAT(std::string(missing.message()), HasSubstr("offset"));
  const absl::Status truncated =
      FetchFrom([](auto* chunks) { chunks->pop_back(); });
  EXPECT_EQ(truncated.code(), absl::StatusCode::kDataLoss) << truncated;
  const absl::Status mixed =
      FetchFrom([](auto* chunks) { (*chunks)[2].set_version(8); });
  EXPECT_EQ(mixed.code(), absl::StatusCode::kDataLoss) << mixed;
}

}  // namespace
}  // namespace mmapzero::learner
