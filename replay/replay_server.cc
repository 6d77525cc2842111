#include "replay/replay_server.h"

#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/metrics/health_checks.h"
#include "common/rpc/grpc_server.h"
#include "common/service/log_line.h"

namespace mmapzero::replay {

using service::LogLine;
namespace {

constexpr char kTablesHealth[] = "replay_tables";

const std::vector<std::string>& ServiceNames() {
  static const std::vector<std::string>* names =
      new std::vector<std::string>{"mmapzero.v1.ReplayService"};
  return *names;
}

// How often Run looks at the session's assignments.
constexpr absl::Duration kPoll = absl::Milliseconds(200);

}  // namespace

absl::StatusOr<std::unique_ptr<ReplayServer>> ReplayServer::Start(
    ReplayServerOptions options) {
  std::unique_ptr<ReplayServer> server(new ReplayServer());
  options.tables.max_message_bytes = options.max_message_bytes;
  server->options_ = options;
  server->tables_ = std::make_unique<ReplayTables>(options.tables);
  ASSIGN_OR_RETURN(const int found, server->tables_->LoadAll());
  if (!options.metrics_listen.empty()) {
    ASSIGN_OR_RETURN(
        server->metrics_,
        StartReplayMetrics(options.metrics_listen, server->tables_.get()));
  }
  server->service_ = std::make_unique<ReplayServiceImpl>(
      server->tables_.get(), server->metrics_.get(), [raw = server.get()] {
        worker::WorkerSession* session = raw->key_session_.load();
        return session != nullptr ? session->lease_key() : std::string();
      });
  ASSIGN_OR_RETURN(
      rpc::StartedServer started,
      rpc::StartGrpcServer({.listen = options.listen,
                            .max_message_bytes = options.max_message_bytes,
                            .services = {server->service_.get()},
                            .service_names = ServiceNames()}));
  server->server_ = std::move(started.server);
  server->port_ = started.port;
  server->advertise_ = options.advertise.empty()
                           ? DialableAddress(options.listen, started.port)
                           : options.advertise;
  if (!options.coordinator.empty()) {
    worker::WorkerSessionOptions session;
    session.coordinator = options.coordinator;
    session.role = v1::WORKER_ROLE_REPLAY;
    session.address = server->advertise_;
    session.capacity = options.job_capacity;
    session.name = options.name;
    ReplayTables* tables = server->tables_.get();
    session.stored_jobs = {
        .list = [tables] { return tables->UnassignedJobs(); },
        .remove =
            [tables](const v1::StoredJob& job) { tables->RetireDeleted(job); },
        .check_interval = options.stored_check_interval};
    ASSIGN_OR_RETURN(server->session_,
                     worker::WorkerSession::Start(std::move(session)));
    server->key_session_.store(server->session_.get());
  }
  // /healthz: the tables' checkpoints are written (a full or failing disk
  // fails it) and this loop goes round.
  metrics::ProcessHealth().Add(
      kTablesHealth,
      2 * server->options_.checkpoint_interval + absl::Minutes(1));
  server->loop_ = std::jthread([raw = server.get()] { raw->Run(); });
  LogLine("info", "started",
          {{"listen", options.listen},
           {"port", absl::StrCat(server->port_)},
           {"advertise", server->advertise_},
           {"metrics_port", absl::StrCat(server->metrics_port())},
           {"data_dir", options.tables.data_dir},
           {"tables_found", absl::StrCat(found)},
           {"coordinator", options.coordinator}});
  return server;
}

ReplayServer::~ReplayServer() { Shutdown(); }

void ReplayServer::ApplyAssignments() {
  if (session_ == nullptr) return;
  const int64_t version = session_->version();
  if (version == assignments_seen_) return;
  assignments_seen_ = version;
  const std::vector<v1::Assignment> assignments = session_->Assignments();
  tables_->Assign(assignments);
  for (const v1::Assignment& assignment : assignments) {
    v1::JobCounters counters;  // "started on it": no more workload resends
    counters.set_job_id(assignment.job_id());
    counters.set_checkpoint_fallback(
        tables_->CheckpointFallback(assignment.job_id())
            .substr(0, worker::kMaxHeartbeatTextBytes));
    session_->SetCounters(counters);
  }
}

void ReplayServer::Run() {
  absl::Time next_checkpoint = absl::Now() + options_.checkpoint_interval;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), kPoll);
      if (stopping_) return;
    }
    ApplyAssignments();
    tables_->RetireUnassigned();
    if (absl::Now() >= next_checkpoint) {
      const absl::Status saved = tables_->CheckpointAll();  // logged per table
      if (saved.ok()) {
        metrics::ProcessHealth().Succeeded(kTablesHealth);
      } else {
        metrics::ProcessHealth().Failed(
            kTablesHealth,
            absl::StrCat("checkpoint failed: ", saved.message()));
      }
      next_checkpoint = absl::Now() + options_.checkpoint_interval;
    }
  }
}

void ReplayServer::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  if (server_ != nullptr) {
    rpc::SetServing(*server_, ServiceNames(), false);
    server_->Shutdown(std::chrono::system_clock::now() +
                      absl::ToChronoMilliseconds(grace));
  }
  if (loop_.joinable()) loop_.join();
  if (session_ != nullptr) session_->Stop();
  if (tables_ != nullptr) {
    const absl::Status status = tables_->CheckpointAll();
    LogLine(status.ok() ? "info" : "error", "final_checkpoint",
            {{"message", status.ok() ? "ok" : std::string(status.message())}});
  }
  metrics_.reset();
  if (server_ != nullptr) LogLine("info", "stopped");
}

}  // namespace mmapzero::replay
