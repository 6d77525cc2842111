// The per-RPC metrics every service exports, registered once here:
// mmapzero_<service>_rpcs_total{method, code} and, when asked for,
// mmapzero_<service>_rpc_latency_seconds{method}. A service's metrics
// class owns one and forwards its RpcObserver::OnRpc to Record.
#ifndef MMAPZERO_COMMON_METRICS_RPC_METRICS_H_
#define MMAPZERO_COMMON_METRICS_RPC_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmapzero::metrics {

class RpcMetrics {
 public:
  RpcMetrics() = default;
  RpcMetrics(prometheus::Registry& registry, const std::string& service,
             bool with_latency);

  // Thread-safe (prometheus-cpp families are).
  void Record(absl::string_view method, absl::StatusCode code,
              absl::Duration latency);

 private:
  prometheus::Family<prometheus::Counter>* rpcs_ = nullptr;
  prometheus::Family<prometheus::Histogram>* latency_ = nullptr;  // or null
};

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_RPC_METRICS_H_
