#include "coordinator/coordinator_server.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/metrics/health_checks.h"
#include "common/rpc/grpc_server.h"
#include "common/service/log_line.h"
#include "coordinator/dashboard.h"

namespace mmapzero::coordinator {

using service::LogLine;
namespace {

constexpr char kDatabaseHealth[] = "coordinator_database";
constexpr absl::Duration kHistoryInterval = absl::Seconds(2);

const std::vector<std::string>& ServiceNames() {
  static const std::vector<std::string>* names = new std::vector<std::string>{
      "mmapzero.v1.JobService", "mmapzero.v1.WorkerService",
      "mmapzero.v1.NetworkRegistry"};
  return *names;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CoordinatorServer>> CoordinatorServer::Start(
    CoordinatorServerOptions options) {
  std::unique_ptr<CoordinatorServer> server(new CoordinatorServer());
  server->options_ = options;
  ASSIGN_OR_RETURN(server->coordinator_,
                   Coordinator::Open(std::move(options.coordinator)));
  Coordinator* coordinator = server->coordinator_.get();
  RETURN_IF_ERROR(server->RestoreHistory());
  if (!options.metrics_listen.empty()) {
    ASSIGN_OR_RETURN(
        server->metrics_,
        StartCoordinatorMetrics(options.metrics_listen, coordinator));
    AddDashboardPages(server->metrics_->http(), coordinator, &server->history_);
  }
  server->job_service_ = std::make_unique<JobServiceImpl>(
      coordinator, server->metrics_.get(), options.watch);
  server->worker_service_ =
      std::make_unique<WorkerServiceImpl>(coordinator, server->metrics_.get());
  server->network_registry_ = std::make_unique<NetworkRegistryImpl>(
      coordinator, server->metrics_.get());

  ASSIGN_OR_RETURN(
      rpc::StartedServer started,
      rpc::StartGrpcServer({.listen = options.listen,
                            .max_message_bytes = options.max_message_bytes,
                            .services = {server->job_service_.get(),
                                         server->worker_service_.get(),
                                         server->network_registry_.get()},
                            .service_names = ServiceNames()}));
  server->server_ = std::move(started.server);
  server->port_ = started.port;
  // /healthz: each tick is a write transaction on the database (leases,
  // job ends); failing ticks, or none for a while (a database that blocks),
  // fail it.
  metrics::ProcessHealth().Add(
      kDatabaseHealth, std::max(absl::Seconds(30), 10 * options.tick_interval));
  server->ticker_ = std::jthread([raw = server.get()](std::stop_token stop) {
    raw->TickUntilClosed(stop);
  });
  LogLine("info", "started",
          {{"listen", options.listen},
           {"port", absl::StrCat(server->port_)},
           {"metrics_port", absl::StrCat(server->metrics_port())},
           {"data_dir", coordinator->options().data_dir}});
  return server;
}

CoordinatorServer::~CoordinatorServer() { Shutdown(); }

absl::Status CoordinatorServer::RestoreHistory() {
  ASSIGN_OR_RETURN(auto stored, coordinator_->StoredHistory());
  if (stored.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::vector<v1::JobStatus> jobs,
                   coordinator_->AllJobs());
  for (const v1::JobStatus& job : jobs) {
    auto found = stored.find(job.job_id());
    if (found == stored.end()) continue;
    history_.Restore(job.job_id(), std::move(found->second),
                     /*ended=*/job.state() != v1::JOB_STATE_RUNNING);
  }
  return absl::OkStatus();
}

void CoordinatorServer::TickUntilClosed(std::stop_token stop) {
  absl::Time next_sample = absl::InfinitePast();
  while (!stop.stop_requested()) {
    if (const absl::Time now = absl::Now(); now >= next_sample) {
      // The dashboard's history: every job's counters every 2 s.
      next_sample = now + kHistoryInterval;
      if (absl::StatusOr<std::vector<v1::JobStatus>> jobs =
              coordinator_->AllJobs();
          jobs.ok()) {
        const std::vector<HistoryChange> changes =
            history_.Record(*jobs, absl::ToUnixMillis(now));
        if (const absl::Status saved = coordinator_->SaveHistory(changes);
            !saved.ok() && !absl::IsUnavailable(saved)) {
          LogLine("warning", "history_not_saved",
                  {{"message", std::string(saved.message())}});
        }
      }
    }
    if (const absl::Status status = coordinator_->Tick(); !status.ok()) {
      if (absl::IsUnavailable(status)) return;  // closed
      LogLine("warning", "tick_failed",
              {{"message", std::string(status.message())}});
      metrics::ProcessHealth().Failed(
          kDatabaseHealth, absl::StrCat("tick failed: ", status.message()));
    } else {
      metrics::ProcessHealth().Succeeded(kDatabaseHealth);
    }
    if (coordinator_->AwaitClosed(options_.tick_interval)) return;
  }
}

void CoordinatorServer::Shutdown(absl::Duration grace) {
  absl::MutexLock lock(&shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  if (server_ != nullptr) rpc::SetServing(*server_, ServiceNames(), false);
  if (coordinator_ != nullptr) coordinator_->Close();
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() +
                      absl::ToChronoMilliseconds(grace));
  }
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  metrics_.reset();
  if (server_ != nullptr) LogLine("info", "stopped");
}

void CoordinatorServer::Wait() {
  absl::MutexLock lock(&shutdown_mu_);
  shutdown_mu_.Await(absl::Condition(&shut_down_));
}

}  // namespace mmapzero::coordinator
