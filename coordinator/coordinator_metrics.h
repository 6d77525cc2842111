// Prometheus metrics of the coordinator on their own HTTP port (/metrics):
// jobs per state, and per job its best normalised return, learner step,
// games and live workers, and the bytes its database takes on disk, read
// from the Coordinator at each scrape (so they are never stale and cost
// nothing between scrapes); plus a count of RPCs by method and status code
// (common/metrics/service_metrics.h).
#ifndef MMAPZERO_COORDINATOR_COORDINATOR_METRICS_H_
#define MMAPZERO_COORDINATOR_COORDINATOR_METRICS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/metrics/service_metrics.h"
#include "coordinator/coordinator.h"

namespace mmapzero::coordinator {

// Serves /metrics on `address` ("0.0.0.0:9090"; port 0 picks a free one).
// `coordinator` must outlive the result.
absl::StatusOr<std::unique_ptr<metrics::ServiceMetrics>>
StartCoordinatorMetrics(const std::string& address, Coordinator* coordinator);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_COORDINATOR_METRICS_H_
