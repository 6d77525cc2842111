// Who may call the coordinator: the real server on a loopback port under
// mutual TLS with certificates from a CA made for the test (and under
// bearer tokens), called by real channels speaking as each role. A client
// submits and lists but may not register as a worker; a worker registers
// but may not submit or cancel; a caller without a certificate is
// UNAUTHENTICATED and a plaintext caller cannot connect at all.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "common/base/atomic_file.h"
#include "common/rpc/client_channel.h"
#include "common/security/local_certificates.h"
#include "common/security/transport_security.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_deadline.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "proto/worker.grpc.pb.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

class CoordinatorAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    certificates_ = dir_.path() + "/tls";
    security::LocalCertificatesOptions options;
    options.dir = certificates_;
    ASSERT_TRUE(security::WriteLocalCertificates(options).ok());
  }

  void TearDown() override {
    server_.reset();
    security::SetProcessTransportSecurity(security::TransportSecurity());
  }

  security::TransportSecurity Identity(const std::string& holder) {
    absl::StatusOr<security::TransportSecurity> security =
        security::SecurityFromCertificateDir(certificates_, holder);
    EXPECT_TRUE(security.ok()) << security.status();
    return security.ok() ? *security : security::TransportSecurity();
  }

  // The coordinator, serving under `security` (the process's).
  void Start(security::TransportSecurity security) {
    security::SetProcessTransportSecurity(std::move(security));
    CoordinatorServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tick_interval = absl::Hours(1);
    options.coordinator.data_dir = dir_.path();
    auto server = CoordinatorServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    address_ = "127.0.0.1:" + std::to_string(server_->port());
  }

  grpc::Status List(const security::TransportSecurity& as) {
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::ListJobsResponse response;
    return stub->ListJobs(Deadlined().get(), v1::ListJobsRequest(), &response);
  }

  grpc::Status Submit(const security::TransportSecurity& as) {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    EXPECT_TRUE(workload.ok());
    v1::SubmitJobRequest request;
    *request.mutable_workload() = *workload;
    request.set_preset("cpu");
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::SubmitJobResponse response;
    return stub->SubmitJob(Deadlined().get(), request, &response);
  }

  grpc::Status Register(const security::TransportSecurity& as) {
    auto stub =
        v1::WorkerService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::RegisterRequest request;
    request.set_name("actor-test");
    request.set_role(v1::WORKER_ROLE_ACTOR);
    request.set_capacity(1);
    v1::RegisterResponse response;
    return stub->Register(Deadlined().get(), request, &response);
  }

  TestDir dir_;
  std::string certificates_;
  std::unique_ptr<CoordinatorServer> server_;
  std::string address_;
};

TEST_F(CoordinatorAccessTest, EachRoleCallsOnlyItsOwnMethods) {
  Start(Identity("worker"));
  const security::TransportSecurity client = Identity("client");
  const security::TransportSecurity worker = Identity("worker");
  const security::TransportSecurity admin = Identity("admin");

  EXPECT_TRUE(Submit(client).ok());
  EXPECT_TRUE(List(client).ok());
  const grpc::Status client_registers = Register(client);
  EXPECT_EQ(client_registers.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(client_registers.error_message(),
              HasSubstr("role 'client' may not call Register"));

  EXPECT_TRUE(Register(worker).ok());
  const grpc::Status worker_submits = Submit(worker);
  EXPECT_EQ(worker_submits.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(worker_submits.error_message(),
              HasSubstr("role 'worker' may not call SubmitJob"));

  EXPECT_TRUE(List(admin).ok());
  EXPECT_TRUE(Register(admin).ok());
}

TEST_F(CoordinatorAccessTest, CallerWithoutCertificateIsUnauthenticated) {
  Start(Identity("worker"));
  security::TransportSecurity no_certificate = Identity("client");
  no_certificate.cert_pem.clear();
  no_certificate.key_pem.clear();
  const grpc::Status status = List(no_certificate);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("no client certificate"));
  EXPECT_EQ(Submit(no_certificate).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(CoordinatorAccessTest, PlaintextCallerCannotConnect) {
  Start(Identity("worker"));
  EXPECT_EQ(List(security::TransportSecurity()).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(CoordinatorAccessTest, CertificateFromAnotherCaIsRefused) {
  Start(Identity("worker"));
  TestDir other;
  security::LocalCertificatesOptions options;
  options.dir = other.path() + "/tls";
  ASSERT_TRUE(security::WriteLocalCertificates(options).ok());
  absl::StatusOr<security::TransportSecurity> stranger =
      security::SecurityFromCertificateDir(options.dir, "admin");
  ASSERT_TRUE(stranger.ok());
  // Its CA does not know the server's certificate, nor the server its own.
  EXPECT_EQ(List(*stranger).error_code(), grpc::StatusCode::UNAVAILABLE);
  stranger->ca_pem = Identity("client").ca_pem;
  EXPECT_EQ(List(*stranger).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(CoordinatorAccessTest, BearerTokensGrantTheirRoles) {
  const std::string tokens = dir_.path() + "/tokens";
  ASSERT_TRUE(WriteFileAtomically(tokens,
                                  "# role token\n"
                                  "client c-0123456789abcdef\n"
                                  "worker w-0123456789abcdef\n",
                                  0600)
                  .ok());
  security::TransportSecurityFiles files;
  files.accepted_tokens_file = tokens;
  absl::StatusOr<security::TransportSecurity> server =
      LoadTransportSecurity(files);
  ASSERT_TRUE(server.ok()) << server.status();
  Start(*server);

  security::TransportSecurity client;
  client.bearer_token = "c-0123456789abcdef";
  EXPECT_TRUE(List(client).ok());
  EXPECT_EQ(Register(client).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  security::TransportSecurity worker;
  worker.bearer_token = "w-0123456789abcdef";
  EXPECT_TRUE(Register(worker).ok());

  security::TransportSecurity wrong;
  wrong.bearer_token = "c-0123456789abcdeX";
  const grpc::Status refused = List(wrong);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.error_message(), HasSubstr("no accepted bearer token"));
  EXPECT_EQ(List(security::TransportSecurity()).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(CoordinatorAccessTest, WithoutAuthenticationEveryCallerMayCall) {
  Start(security::TransportSecurity());
  EXPECT_TRUE(List(security::TransportSecurity()).ok());
  EXPECT_TRUE(Register(security::TransportSecurity()).ok());
}

}  // namespace
}  // namespace mmapzero::coordinator
