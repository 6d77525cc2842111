// Prometheus metrics of the coordinator on their own HTTP port (/metrics):
// jobs per state, and per job its best normalised return, learner step,
// games and live workers, read from the Coordinator at each scrape (so they
// are never stale and cost nothing between scrapes); plus a count of RPCs
// by method and status code.
#ifndef MMAPZERO_COORDINATOR_COORDINATOR_METRICS_H_
#define MMAPZERO_COORDINATOR_COORDINATOR_METRICS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/rpc/rpc_handler.h"
#include "common/rpc/rpc_metrics.h"
#include "coordinator/coordinator.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"

namespace mmapzero::coordinator {

using rpc::RpcObserver;

class CoordinatorMetrics final : public RpcObserver {
 public:
  // Serves /metrics on `address` ("0.0.0.0:9090"; port 0 picks a free one).
  // `coordinator` must outlive the result.
  static absl::StatusOr<std::unique_ptr<CoordinatorMetrics>> Start(
      const std::string& address, Coordinator* coordinator);
  ~CoordinatorMetrics() override;

  int port() const { return port_; }
  void OnRpc(absl::string_view method, absl::StatusCode code,
             absl::Duration latency) override;

 private:
  CoordinatorMetrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  rpc::RpcMetrics rpcs_;
  std::shared_ptr<prometheus::Collectable> jobs_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_COORDINATOR_METRICS_H_
