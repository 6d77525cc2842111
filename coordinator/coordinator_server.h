// The coordinator as a running gRPC server: JobService, WorkerService and
// NetworkRegistry on one port, gRPC health checking (per service and overall) and server
// reflection; on its own HTTP port, Prometheus metrics, /healthz and the
// web dashboard (dashboard.h); and a ticker thread that ends jobs whose
// budget is spent, drops expired leases and records the dashboard's
// history. Used by
// coordinator/main.cc and by tests, which start it on a free loopback port.
//
// Shutdown (also on destruction): health turns NOT_SERVING, the
// coordinator closes (watch streams end with UNAVAILABLE), in-flight calls
// get `grace` to finish, then the ticker and metrics stop.
#ifndef MMAPZERO_COORDINATOR_COORDINATOR_SERVER_H_
#define MMAPZERO_COORDINATOR_COORDINATOR_SERVER_H_

#include <grpcpp/server.h>

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/metrics/service_metrics.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/message_limit.h"
#include "coordinator/coordinator.h"
#include "coordinator/coordinator_metrics.h"
#include "coordinator/job_history.h"
#include "coordinator/job_service.h"
#include "coordinator/job_watch.h"
#include "coordinator/network_registry_service.h"
#include "coordinator/worker_service.h"

namespace mmapzero::coordinator {

struct CoordinatorServerOptions {
  std::string listen = "127.0.0.1:7070";  // "127.0.0.1:0": a free port
  std::string metrics_listen;             // "": no metrics endpoint
  absl::Duration tick_interval = absl::Seconds(1);
  int max_message_bytes = rpc::kMaxMessageBytes;
  JobWatchOptions watch;
  CoordinatorOptions coordinator;

  bool operator==(const CoordinatorServerOptions&) const = default;
};

class CoordinatorServer {
 public:
  static absl::StatusOr<std::unique_ptr<CoordinatorServer>> Start(
      CoordinatorServerOptions options);
  ~CoordinatorServer();

  int port() const { return port_; }  // the gRPC port bound
  int metrics_port() const { return metrics_ ? metrics_->port() : 0; }
  Coordinator& coordinator() { return *coordinator_; }
  // A channel to this server inside the process (rpc::InProcessChannel);
  // not after Shutdown.
  std::shared_ptr<grpc::Channel> InProcessChannel() {
    return rpc::InProcessChannel(*server_, options_.max_message_bytes);
  }
  // The dashboard's series (job_history.h), as stored and recorded since.
  const JobHistory& history() const { return history_; }

  // Idempotent; see the file comment.
  void Shutdown(absl::Duration grace = absl::Seconds(5));
  // Blocks until Shutdown() has finished.
  void Wait();

 private:
  CoordinatorServer() = default;

  void TickUntilClosed(std::stop_token stop);
  // The series stored in the database, into history_ (at start).
  absl::Status RestoreHistory();

  CoordinatorServerOptions options_;
  std::unique_ptr<Coordinator> coordinator_;
  std::unique_ptr<metrics::ServiceMetrics> metrics_;
  std::unique_ptr<JobServiceImpl> job_service_;
  std::unique_ptr<WorkerServiceImpl> worker_service_;
  std::unique_ptr<NetworkRegistryImpl> network_registry_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  // The dashboard's series (dashboard.h), recorded by the ticker and kept
  // in the database.
  JobHistory history_;
  std::jthread ticker_;
  absl::Mutex shutdown_mu_;
  bool shut_down_ ABSL_GUARDED_BY(shutdown_mu_) = false;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_COORDINATOR_SERVER_H_
