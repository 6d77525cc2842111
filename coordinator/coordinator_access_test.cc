// Who may call the coordinator: the real server on a loopback port under
// mutual TLS with certificates from a CA made for the test (and under
// bearer tokens), called by real channels speaking as each role. A client
// submits and lists but may not register as a worker; a worker registers
// but may not submit or cancel; a caller without a certificate is
// UNAUTHENTICATED and a plaintext caller cannot connect at all. A job
// belongs to the client that submitted it: a second client identity can
// neither list, read, watch, pull the best of nor cancel it; an admin can.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/features/config_presets.h"
#include "common/rpc/client_channel.h"
#include "common/security/local_certificates.h"
#include "common/security/test_certificates.h"
#include "common/security/transport_security.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_deadline.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "proto/network.grpc.pb.h"
#include "proto/worker.grpc.pb.h"
#include "worker/wait_for.h"
#include "worker/worker_session.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

class CoordinatorAccessTest : public ::testing::Test {
 protected:
  void TearDown() override {
    server_.reset();
    security::SetProcessTransportSecurity(security::TransportSecurity());
  }

  security::TransportSecurity Identity(const std::string& holder) {
    return certificates_.Identity(holder);
  }

  // The coordinator, serving under `security` (the process's).
  void Start(security::TransportSecurity security) {
    security::SetProcessTransportSecurity(std::move(security));
    CoordinatorServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tick_interval = absl::Hours(1);
    options.coordinator = coordinator_options_;
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

  // Submits examples/small.json as `as`; the job's id ("" when refused).
  std::string SubmitAs(const security::TransportSecurity& as) {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    EXPECT_TRUE(workload.ok());
    v1::SubmitJobRequest request;
    *request.mutable_workload() = *workload;
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::SubmitJobResponse response;
    const grpc::Status status =
        stub->SubmitJob(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
  }

  std::vector<std::string> ListedIds(const security::TransportSecurity& as) {
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::ListJobsResponse response;
    const grpc::Status status =
        stub->ListJobs(Deadlined().get(), v1::ListJobsRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::string> ids;
    for (const v1::JobStatus& job : response.jobs()) ids.push_back(job.job_id());
    return ids;
  }

  // Each client method on `job_id` as `as`: GetJob, WatchJob,
  // GetBestSolution, CancelJob (last), with their codes.
  std::vector<grpc::StatusCode> JobCalls(const security::TransportSecurity& as,
                                         const std::string& job_id) {
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    std::vector<grpc::StatusCode> codes;
    v1::GetJobRequest get;
    get.set_job_id(job_id);
    v1::JobStatus status;
    codes.push_back(stub->GetJob(Deadlined().get(), get, &status).error_code());
    v1::WatchJobRequest watch;
    watch.set_job_id(job_id);
    const std::unique_ptr<grpc::ClientContext> context = Deadlined();
    std::unique_ptr<grpc::ClientReader<v1::JobProgress>> reader =
        stub->WatchJob(context.get(), watch);
    v1::JobProgress progress;
    if (reader->Read(&progress)) {
      context->TryCancel();  // it was allowed: one progress is enough
      while (reader->Read(&progress)) {
      }
      reader->Finish();
      codes.push_back(grpc::StatusCode::OK);
    } else {
      codes.push_back(reader->Finish().error_code());
    }
    v1::GetBestSolutionRequest best;
    best.set_job_id(job_id);
    v1::GetBestSolutionResponse solution;
    codes.push_back(
        stub->GetBestSolution(Deadlined().get(), best, &solution).error_code());
    v1::CancelJobRequest cancel;
    cancel.set_job_id(job_id);
    codes.push_back(
        stub->CancelJob(Deadlined().get(), cancel, &status).error_code());
    return codes;
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

  grpc::Status Cancel(const security::TransportSecurity& as,
                      const std::string& job_id) {
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::CancelJobRequest cancel;
    cancel.set_job_id(job_id);
    v1::JobStatus status;
    return stub->CancelJob(Deadlined().get(), cancel, &status);
  }

  grpc::Status Delete(const security::TransportSecurity& as,
                      const std::string& job_id) {
    auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, as));
    v1::DeleteJobRequest remove;
    remove.set_job_id(job_id);
    v1::DeleteJobResponse removed;
    return stub->DeleteJob(Deadlined().get(), remove, &removed);
  }

  // The options Start gives the coordinator, its data directory aside.
  CoordinatorOptions coordinator_options_;
  TestDir dir_;
  security::TestCertificates certificates_{dir_.path() + "/tls"};
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

// Every worker shares the worker role, so a worker id proves nothing by
// itself: a heartbeat, a workload fetch or a network fetch naming another
// worker's id needs the secret its Register answered; the worker itself
// (with it) and an admin pass.
TEST_F(CoordinatorAccessTest, AWorkerCallsOnlyAsItself) {
  Start(Identity("worker"));
  const security::TransportSecurity worker = Identity("worker");
  auto stub =
      v1::WorkerService::NewStub(rpc::MakeClientChannel(address_, worker));
  v1::RegisterRequest register_request;
  register_request.set_role(v1::WORKER_ROLE_ACTOR);
  register_request.set_capacity(1);
  v1::RegisterResponse registered;
  ASSERT_TRUE(
      stub->Register(Deadlined().get(), register_request, &registered).ok());
  ASSERT_EQ(registered.worker_secret().size(), 64u);

  v1::HeartbeatRequest heartbeat;
  heartbeat.set_worker_id(registered.worker_id());
  v1::HeartbeatResponse answer;
  for (const std::string& secret : {std::string(), std::string(64, '0')}) {
    heartbeat.set_worker_secret(secret);
    // As for an unknown worker: a real one registers again.
    const grpc::Status impostor =
        stub->Heartbeat(Deadlined().get(), heartbeat, &answer);
    EXPECT_EQ(impostor.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_THAT(impostor.error_message(),
                HasSubstr(absl::StrCat("no worker '", registered.worker_id(),
                                       "' with this worker_secret")));
    EXPECT_EQ(answer.assignments_size(), 0);
  }
  v1::FetchWorkloadRequest fetch;
  fetch.set_worker_id(registered.worker_id());
  fetch.set_job_id("job-000001");
  std::unique_ptr<grpc::ClientContext> context = Deadlined();
  v1::WorkloadChunk chunk;
  auto reader = stub->FetchWorkload(context.get(), fetch);
  while (reader->Read(&chunk)) {
  }
  const grpc::Status fetched = reader->Finish();
  EXPECT_EQ(fetched.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(fetched.error_message(),
              HasSubstr(absl::StrCat("worker_secret: missing for worker_id '",
                                     registered.worker_id(), "'")));

  // A network upload is refused on its first message: what follows (here
  // a chunk that does not fit, which would be INVALID_ARGUMENT) is never
  // put together.
  std::unique_ptr<grpc::ClientContext> upload_context = Deadlined();
  v1::ReportJobNetworkResponse reported;
  auto writer = stub->ReportJobNetwork(upload_context.get(), &reported);
  v1::ReportJobNetworkRequest upload;
  upload.set_worker_id(registered.worker_id());
  upload.set_job_id("job-000001");
  upload.mutable_chunk()->set_offset(5);
  upload.mutable_chunk()->set_total_bytes(10);
  upload.mutable_chunk()->set_data("xxxxx");
  writer->Write(upload);
  writer->WritesDone();
  const grpc::Status uploaded = writer->Finish();
  EXPECT_EQ(uploaded.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(uploaded.error_message(),
              HasSubstr(absl::StrCat("worker_secret: missing for worker_id '",
                                     registered.worker_id(), "'")));

  heartbeat.set_worker_secret(registered.worker_secret());
  EXPECT_TRUE(stub->Heartbeat(Deadlined().get(), heartbeat, &answer).ok());
  heartbeat.clear_worker_secret();
  auto as_admin = v1::WorkerService::NewStub(
      rpc::MakeClientChannel(address_, Identity("admin")));
  EXPECT_TRUE(as_admin->Heartbeat(Deadlined().get(), heartbeat, &answer).ok());
}

TEST_F(CoordinatorAccessTest, AClientSeesAndCancelsOnlyItsOwnJobs) {
  // A second client identity, as `mmapctl certs --client bob` issues it.
  ASSERT_TRUE(
      security::WriteClientCertificate(certificates_.dir(), "bob", absl::Hours(1))
          .ok());
  EXPECT_EQ(
      security::WriteClientCertificate(certificates_.dir(), "bob", absl::Hours(1))
          .code(),
      absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(
      security::WriteClientCertificate(certificates_.dir(), "admin", absl::Hours(1))
          .code(),
      absl::StatusCode::kInvalidArgument);
  Start(Identity("worker"));
  const security::TransportSecurity alice = Identity("client");
  const security::TransportSecurity bob = Identity("bob");
  const security::TransportSecurity admin = Identity("admin");

  const std::string alices = SubmitAs(alice);
  const std::string bobs = SubmitAs(bob);
  ASSERT_FALSE(alices.empty());
  ASSERT_FALSE(bobs.empty());
  ASSERT_TRUE(server_->coordinator().AwaitSeeded(absl::Seconds(30)));

  EXPECT_THAT(ListedIds(alice), ::testing::ElementsAre(alices));
  EXPECT_THAT(ListedIds(bob), ::testing::ElementsAre(bobs));
  EXPECT_THAT(ListedIds(admin), ::testing::ElementsAre(bobs, alices));

  // Bob on Alice's job: every method refused, and the job goes on.
  const grpc::StatusCode denied = grpc::StatusCode::PERMISSION_DENIED;
  EXPECT_THAT(JobCalls(bob, alices),
              ::testing::ElementsAre(denied, denied, denied, denied));
  auto stub = v1::JobService::NewStub(rpc::MakeClientChannel(address_, bob));
  v1::CancelJobRequest cancel;
  cancel.set_job_id(alices);
  v1::JobStatus status;
  const grpc::Status refused =
      stub->CancelJob(Deadlined().get(), cancel, &status);
  EXPECT_THAT(refused.error_message(),
              HasSubstr(alices + " belongs to another identity"));
  v1::GetJobRequest get;
  get.set_job_id(alices);
  ASSERT_TRUE(server_->coordinator().GetJob(get).ok());
  EXPECT_EQ(server_->coordinator().GetJob(get)->state(),
            v1::JOB_STATE_QUEUED);
  EXPECT_THAT(server_->coordinator().GetJob(get)->owner(),
              HasSubstr("CN=mmapzero-client"));
  // Nor its network, by reading it or by starting a job from it.
  auto registry =
      v1::NetworkRegistry::NewStub(rpc::MakeClientChannel(address_, bob));
  v1::GetNetworkRequest network;
  network.set_name(alices);
  v1::NetworkInfo info;
  EXPECT_EQ(registry->GetNetwork(Deadlined().get(), network, &info)
                .error_code(),
            denied);
  absl::StatusOr<Workload> workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  ASSERT_TRUE(workload.ok());
  v1::SubmitJobRequest from_alices;
  *from_alices.mutable_workload() = *workload;
  *from_alices.mutable_config() = features::CpuPreset();
  from_alices.mutable_config()->mutable_training()->set_initial_network(
      alices);
  v1::SubmitJobResponse submitted;
  EXPECT_EQ(
      stub->SubmitJob(Deadlined().get(), from_alices, &submitted).error_code(),
      denied);

  // Alice on her own job, and an admin on Bob's: all allowed.
  const grpc::StatusCode ok = grpc::StatusCode::OK;
  EXPECT_THAT(JobCalls(alice, alices),
              ::testing::ElementsAre(ok, ok, ok, ok));
  EXPECT_THAT(JobCalls(admin, bobs), ::testing::ElementsAre(ok, ok, ok, ok));

  // The audit log names who submitted and who cancelled, one JSON object
  // a line; Bob's refused cancel changed nothing and is not in it.
  const absl::StatusOr<std::string> audit =
      ReadWholeFile(dir_.path() + "/audit.jsonl");
  ASSERT_TRUE(audit.ok()) << audit.status();
  const std::vector<std::string> lines =
      absl::StrSplit(*audit, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u) << *audit;
  EXPECT_THAT(lines[0], HasSubstr("\"event\":\"job_submitted\""));
  EXPECT_THAT(lines[0], HasSubstr("CN=mmapzero-client"));
  EXPECT_THAT(lines[0], HasSubstr("\"job\":\"" + alices + "\""));
  EXPECT_THAT(lines[1], HasSubstr("CN=bob"));
  EXPECT_THAT(lines[2], HasSubstr("\"event\":\"job_cancelled\""));
  EXPECT_THAT(lines[2], HasSubstr("CN=mmapzero-client"));
  EXPECT_THAT(lines[2], HasSubstr("\"job\":\"" + alices + "\""));
  EXPECT_THAT(lines[3], HasSubstr("\"event\":\"job_cancelled\""));
  EXPECT_THAT(lines[3], HasSubstr("CN=mmapzero-admin"));
  EXPECT_THAT(lines[3], HasSubstr("\"job\":\"" + bobs + "\""));

  // Deleting is the owner's too: Bob is refused, Alice deletes her
  // cancelled job, and the audit log says who did.
  v1::DeleteJobRequest remove;
  remove.set_job_id(alices);
  v1::DeleteJobResponse removed;
  EXPECT_EQ(stub->DeleteJob(Deadlined().get(), remove, &removed).error_code(),
            denied);
  auto alice_jobs =
      v1::JobService::NewStub(rpc::MakeClientChannel(address_, alice));
  const grpc::Status deleted =
      alice_jobs->DeleteJob(Deadlined().get(), remove, &removed);
  EXPECT_TRUE(deleted.ok()) << deleted.error_message();
  EXPECT_THAT(ListedIds(alice), ::testing::IsEmpty());
  const std::vector<std::string> after = absl::StrSplit(
      *ReadWholeFile(dir_.path() + "/audit.jsonl"), '\n', absl::SkipEmpty());
  ASSERT_EQ(after.size(), 5u);
  EXPECT_THAT(after[4], HasSubstr("\"event\":\"job_deleted\""));
  EXPECT_THAT(after[4], HasSubstr("CN=mmapzero-client"));
}

TEST_F(CoordinatorAccessTest, UnfinishedJobsPerIdentityAreLimited) {
  ASSERT_TRUE(
      security::WriteClientCertificate(certificates_.dir(), "bob", absl::Hours(1))
          .ok());
  coordinator_options_.max_active_jobs_per_identity = 2;
  Start(Identity("worker"));
  const security::TransportSecurity alice = Identity("client");
  const security::TransportSecurity bob = Identity("bob");
  const security::TransportSecurity admin = Identity("admin");

  const std::string first = SubmitAs(alice);
  ASSERT_FALSE(SubmitAs(alice).empty());
  const grpc::Status third = Submit(alice);
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(third.error_message(),
              HasSubstr("has 2 jobs not yet finished"));
  EXPECT_THAT(third.error_message(),
              HasSubstr("max_active_jobs_per_identity 2"));
  EXPECT_THAT(ListedIds(alice), ::testing::SizeIs(2));  // none made
  // Another identity is not held up by Alice's jobs; an admin has no limit.
  EXPECT_TRUE(Submit(bob).ok());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Submit(admin).ok());
  // A finished job frees its place.
  ASSERT_TRUE(server_->coordinator().AwaitSeeded(absl::Seconds(30)));
  ASSERT_TRUE(Cancel(alice, first).ok());
  EXPECT_TRUE(Submit(alice).ok());
  EXPECT_EQ(Submit(alice).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(CoordinatorAccessTest, StoredBytesPerIdentityAreLimited) {
  absl::StatusOr<Workload> workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  ASSERT_TRUE(workload.ok());
  const int64_t workload_bytes = static_cast<int64_t>(workload->ByteSizeLong());
  // Room for one workload, not for a second beside the first and its best.
  coordinator_options_.max_stored_bytes_per_identity = workload_bytes + 1;
  Start(Identity("worker"));
  const security::TransportSecurity alice = Identity("client");

  const std::string first = SubmitAs(alice);
  ASSERT_FALSE(first.empty());
  ASSERT_TRUE(server_->coordinator().AwaitSeeded(absl::Seconds(30)));
  const grpc::Status second = Submit(alice);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(second.error_message(),
              HasSubstr(absl::StrCat("this workload is ", workload_bytes,
                                     " more")));
  EXPECT_THAT(second.error_message(), HasSubstr("mmapctl delete"));
  // Cancelled, the job still holds its bytes; deleted, it frees them.
  ASSERT_TRUE(Cancel(alice, first).ok());
  EXPECT_EQ(Submit(alice).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ASSERT_TRUE(Delete(alice, first).ok());
  EXPECT_TRUE(Submit(alice).ok());
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

// A worker whose identity the coordinator refuses does not retry forever:
// its session stops at the first refusal, without the worker registering.
// Here the process's own channels send a client's token (PERMISSION_DENIED:
// the wrong role), then none at all (UNAUTHENTICATED).
TEST_F(CoordinatorAccessTest, AWorkerRefusedForGoodStopsTrying) {
  security::TransportSecurity server;
  server.accepted_tokens = {{"c-0123456789abcdef", security::Role::kClient},
                            {"w-0123456789abcdef", security::Role::kWorker}};
  for (const std::string token : {"c-0123456789abcdef", ""}) {
    SCOPED_TRACE(token.empty() ? "no token" : "a client's token");
    server.bearer_token = token;
    Start(server);
    worker::WorkerSessionOptions options;
    options.coordinator = address_;
    options.role = v1::WORKER_ROLE_ACTOR;
    options.name = "refused-actor";
    absl::StatusOr<std::unique_ptr<worker::WorkerSession>> session =
        worker::WorkerSession::Start(options);
    ASSERT_TRUE(session.ok()) << session.status();
    EXPECT_TRUE(worker::WaitFor([&] { return (*session)->refused(); }));
    absl::SleepFor(absl::Seconds(1));  // no retries: still nobody registered
    EXPECT_EQ((*session)->heartbeats(), 0);
    EXPECT_EQ((*session)->worker_id(), "");
    EXPECT_TRUE(server_->coordinator().LiveWorkers().empty());
    (*session)->Stop();
    server_.reset();
  }
}

TEST_F(CoordinatorAccessTest, WithoutAuthenticationEveryCallerMayCall) {
  Start(security::TransportSecurity());
  EXPECT_TRUE(List(security::TransportSecurity()).ok());
  EXPECT_TRUE(Register(security::TransportSecurity()).ok());
}

}  // namespace
}  // namespace mmapzero::coordinator
