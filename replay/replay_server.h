// The replay server as a running process: ReplayService on one port with
// gRPC health (overall and "mmapzero.v1.ReplayService") and reflection,
// Prometheus metrics on their own port, tables reloaded from
// <data_dir>/replay/ at start, a checkpoint of every changed table each
// `checkpoint_interval`, and, given a coordinator, a WorkerSession with
// role REPLAY that registers `advertise` as this server's address: the
// coordinator then gives it running jobs without a replay server (one per
// job, coordinator/lease_planner.h), hands that address to the job's
// actors, learner and reanalysers, and the assignments' configs size the
// tables (replay_tables.h).
//
// Shutdown (SIGTERM in main.cc; also on destruction): health turns
// NOT_SERVING, in-flight calls get `grace`, heartbeats stop (the leases
// expire and pass to another replay server, which reloads nothing: tables
// live on this server's disk), then a last checkpoint of every table.
#ifndef MMAPZERO_REPLAY_REPLAY_SERVER_H_
#define MMAPZERO_REPLAY_REPLAY_SERVER_H_

#include <grpcpp/server.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/metrics/service_metrics.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/message_limit.h"
#include "replay/replay_metrics.h"
#include "replay/replay_service.h"
#include "replay/replay_tables.h"
#include "worker/worker_session.h"

namespace mmapzero::replay {

struct ReplayServerOptions {
  std::string listen = "0.0.0.0:7071";  // "127.0.0.1:0": a free port
  // host:port registered with the coordinator; "": the listen address with
  // the bound port, 127.0.0.1 for a wildcard host.
  std::string advertise;
  std::string metrics_listen;  // "": no metrics endpoint
  std::string coordinator;     // "": standalone, no registration
  int job_capacity = 64;       // jobs this server takes from the coordinator
  std::string name;            // for humans, sent at registration
  absl::Duration checkpoint_interval = absl::Seconds(60);
  // How often the tables of jobs not assigned are listed to the
  // coordinator, those of deleted jobs to be dropped at once
  // (ReplayTables::RetireDeleted) rather than after tables.retention.
  absl::Duration stored_check_interval = absl::Minutes(1);
  int max_message_bytes = rpc::kMaxMessageBytes;
  ReplayTablesOptions tables;

  bool operator==(const ReplayServerOptions&) const = default;
};

class ReplayServer {
 public:
  static absl::StatusOr<std::unique_ptr<ReplayServer>> Start(
      ReplayServerOptions options);
  ~ReplayServer();

  int port() const { return port_; }
  int metrics_port() const { return metrics_ ? metrics_->port() : 0; }
  const std::string& advertised_address() const { return advertise_; }
  ReplayTables& tables() { return *tables_; }
  worker::WorkerSession* session() { return session_.get(); }
  // A channel to this server inside the process (rpc::InProcessChannel);
  // not after Shutdown.
  std::shared_ptr<grpc::Channel> InProcessChannel() {
    return rpc::InProcessChannel(*server_, options_.max_message_bytes);
  }

  // Idempotent; see the file comment.
  void Shutdown(absl::Duration grace = absl::Seconds(5))
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  ReplayServer() = default;
  // Follows the session's assignments and checkpoints on schedule.
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  void ApplyAssignments();

  ReplayServerOptions options_;
  std::unique_ptr<ReplayTables> tables_;
  std::unique_ptr<metrics::ServiceMetrics> metrics_;
  std::unique_ptr<ReplayServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<worker::WorkerSession> session_;
  // session_ for the service's handlers, which run from before it is set
  // (the lease key's source).
  std::atomic<worker::WorkerSession*> key_session_{nullptr};
  int port_ = 0;
  std::string advertise_;
  int64_t assignments_seen_ = -1;  // session version applied (Run's thread)

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::jthread loop_;
};

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_SERVER_H_
