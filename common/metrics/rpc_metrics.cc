#include "common/metrics/rpc_metrics.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::metrics {

RpcMetrics::RpcMetrics(prometheus::Registry& registry,
                       const std::string& service, bool with_latency)
    : rpcs_(&prometheus::BuildCounter()
                 .Name(absl::StrCat("mmapzero_", service, "_rpcs_total"))
                 .Help("RPCs served, by method and status code")
                 .Register(registry)) {
  if (with_latency) {
    latency_ =
        &prometheus::BuildHistogram()
             .Name(absl::StrCat("mmapzero_", service, "_rpc_latency_seconds"))
             .Help("Server-side RPC latency, by method")
             .Register(registry);
  }
}

void RpcMetrics::Record(absl::string_view method, absl::StatusCode code,
                        absl::Duration latency) {
  if (rpcs_ == nullptr) return;
  rpcs_
      ->Add({{"method", std::string(method)},
             {"code", absl::StatusCodeToString(code)}})
      .Increment();
  if (latency_ == nullptr) return;
  static const prometheus::Histogram::BucketBoundaries* buckets =
      new prometheus::Histogram::BucketBoundaries{
          0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3};
  latency_->Add({{"method", std::string(method)}}, *buckets)
      .Observe(absl::ToDoubleSeconds(latency));
}

}  // namespace mmapzero::metrics
