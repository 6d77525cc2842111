// Prometheus metrics of the replay server on their own HTTP port
// (/metrics): per job its size, capacity and insert / sample / reanalyse
// totals, read from the tables at each scrape (rates are
// rate(..._total[1m]) in PromQL); plus RPCs by method and status code and a
// latency histogram per method (SampleBatch's is the learner's wait).
#ifndef MMAPZERO_REPLAY_REPLAY_METRICS_H_
#define MMAPZERO_REPLAY_REPLAY_METRICS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/rpc/rpc_handler.h"
#include "common/rpc/rpc_metrics.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "replay/replay_tables.h"

namespace mmapzero::replay {

class ReplayMetrics final : public rpc::RpcObserver {
 public:
  // Serves /metrics on `address` ("0.0.0.0:9091"; port 0 picks a free
  // one). `tables` must outlive the result.
  static absl::StatusOr<std::unique_ptr<ReplayMetrics>> Start(
      const std::string& address, const ReplayTables* tables);
  ~ReplayMetrics() override;

  int port() const { return port_; }
  void OnRpc(absl::string_view method, absl::StatusCode code,
             absl::Duration latency) override;

 private:
  ReplayMetrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  rpc::RpcMetrics rpcs_;
  std::shared_ptr<prometheus::Collectable> tables_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_METRICS_H_
