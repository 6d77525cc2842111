// Uses every heavy dependency for real, so a broken package or link line
// fails here before any service depends on it: LibTorch (a matmul on the CPU,
// checked by hand), gRPC (a generated service on a loopback port),
// prometheus-cpp (an exposer scraped over a plain socket) and SQLite (a file
// in a temporary directory).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/cuda.h>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"
#include "tests/deps_smoke.grpc.pb.h"

namespace mmapzero::tests {
namespace {

using ::testing::HasSubstr;

TEST(DepsSmokeTest, TorchMatmulOnCpuMatchesHandResult) {
  std::cout << "torch: CUDA available: "
            << (torch::cuda::is_available() ? "yes" : "no") << ", devices: "
            << torch::cuda::device_count() << "\n";
  const at::Tensor a =
      at::arange(1, 7, at::kFloat).reshape({2, 3});  // [[1 2 3] [4 5 6]]
  const at::Tensor b =
      at::arange(1, 7, at::kFloat).reshape({3, 2});  // [[1 2] [3 4] [5 6]]
  const at::Tensor c = at::matmul(a, b);
  ASSERT_EQ(c.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_FLOAT_EQ(c[0][0].item<float>(), 22);
  EXPECT_FLOAT_EQ(c[0][1].item<float>(), 28);
  EXPECT_FLOAT_EQ(c[1][0].item<float>(), 49);
  EXPECT_FLOAT_EQ(c[1][1].item<float>(), 64);
}

class EchoServiceImpl final : public EchoService::Service {
  grpc::Status Echo(grpc::ServerContext* context, const EchoRequest* request,
                    EchoReply* reply) override {
    reply->set_text("echo: " + request->text());
    return grpc::Status::OK;
  }
};

TEST(DepsSmokeTest, GrpcGeneratedServiceAnswersOnLoopback) {
  EchoServiceImpl service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);

  grpc::ChannelArguments channel_args;
  channel_args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);  // loopback, never a proxy
  auto channel = grpc::CreateCustomChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(),
      channel_args);
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() +
                                        std::chrono::seconds(10)));
  auto stub = EchoService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  EchoRequest request;
  request.set_text("hello");
  EchoReply reply;
  const grpc::Status status = stub->Echo(&context, request, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.text(), "echo: hello");
  server->Shutdown();
}

// GET `path` from 127.0.0.1:`port` over a plain TCP socket; the whole reply.
std::string HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "socket() failed";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return "connect() failed";
  }
  const std::string request = "GET " + path +
                              " HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                              "Connection: close\r\n\r\n";
  if (send(fd, request.data(), request.size(), 0) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return "send() failed";
  }
  std::string reply;
  char chunk[4096];
  ssize_t n;
  while ((n = recv(fd, chunk, sizeof(chunk), 0)) > 0) reply.append(chunk, n);
  close(fd);
  return reply;
}

// A loopback port that was free a moment ago (civetweb, under the exposer,
// cannot bind port 0); 0 when none could be had.
int PickUnusedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

TEST(DepsSmokeTest, PrometheusExposerServesRegisteredCounter) {
  // Another process may take the picked port before the exposer binds it.
  std::unique_ptr<prometheus::Exposer> exposer;
  for (int attempt = 0; attempt < 5 && exposer == nullptr; ++attempt) {
    const int port = PickUnusedPort();
    if (port == 0) continue;
    try {
      exposer = std::make_unique<prometheus::Exposer>(
          "127.0.0.1:" + std::to_string(port));
    } catch (const std::exception& e) {
      std::cout << "exposer on port " << port << ": " << e.what() << "\n";
    }
  }
  ASSERT_NE(exposer, nullptr);
  const std::vector<int> ports = exposer->GetListeningPorts();
  ASSERT_EQ(ports.size(), 1u);

  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter()
      .Name("mmapzero_smoke_total")
      .Help("Counts nothing but itself")
      .Register(*registry)
      .Add({{"test", "deps"}})
      .Increment(3);
  exposer->RegisterCollectable(registry);

  const std::string reply = HttpGet(ports[0], "/metrics");
  EXPECT_THAT(reply, HasSubstr("200 OK"));
  EXPECT_THAT(reply, HasSubstr("mmapzero_smoke_total{test=\"deps\"} 3"));
}

TEST(DepsSmokeTest, SqliteRoundTripsRowsThroughAFile) {
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "mmapzero_sqlite_XXXXXX")
          .string();
  ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
  const std::filesystem::path dir = dir_template;
  const std::string path = (dir / "smoke.db").string();

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE jobs (id INTEGER PRIMARY KEY, name TEXT);"
                         "INSERT INTO jobs (name) VALUES ('small'), ('large');",
                         nullptr, nullptr, &error),
            SQLITE_OK)
      << error;
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);

  // Reopen, so the rows must have reached the file.
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT name FROM jobs ORDER BY id", -1,
                               &statement, nullptr),
            SQLITE_OK);
  std::vector<std::string> names;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    names.emplace_back(
        reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  EXPECT_EQ(names, (std::vector<std::string>{"small", "large"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mmapzero::tests
