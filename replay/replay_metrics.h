// Prometheus metrics of the replay server on their own HTTP port
// (/metrics): per job its size, capacity and insert / sample / reanalyse
// totals, read from the tables at each scrape (rates are
// rate(..._total[1m]) in PromQL); plus RPCs by method and status code and a
// latency histogram per method (SampleBatch's is the learner's wait;
// common/metrics/service_metrics.h).
#ifndef MMAPZERO_REPLAY_REPLAY_METRICS_H_
#define MMAPZERO_REPLAY_REPLAY_METRICS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/metrics/service_metrics.h"
#include "replay/replay_tables.h"

namespace mmapzero::replay {

// Serves /metrics on `address` ("0.0.0.0:9091"; port 0 picks a free one).
// `tables` must outlive the result.
absl::StatusOr<std::unique_ptr<metrics::ServiceMetrics>> StartReplayMetrics(
    const std::string& address, const ReplayTables* tables);

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_METRICS_H_
