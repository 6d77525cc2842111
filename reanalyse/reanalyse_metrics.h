// Prometheus metrics of a reanalyse worker on their own HTTP port
// (/metrics): trajectories and steps reanalysed per job, trajectories that
// replay had evicted meanwhile, and the parameter version each job
// searches with and its lag behind the learner's latest. A job's series go
// when the worker stops reanalysing it (ForgetJob).
//
// Thread-safety: thread-safe (prometheus-cpp's metrics are).
#ifndef MMAPZERO_REANALYSE_REANALYSE_METRICS_H_
#define MMAPZERO_REANALYSE_REANALYSE_METRICS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/metrics/http_endpoint.h"
#include "common/metrics/job_series.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace mmapzero::reanalyse {

class ReanalyseMetrics {
 public:
  // Serves /metrics on `address` (port 0 picks a free one; "" serves
  // nothing, for tests that read Text()).
  static absl::StatusOr<std::unique_ptr<ReanalyseMetrics>> Start(
      const std::string& address);

  int port() const { return port_; }

  // One UpdateTargets call's outcome.
  void AddRound(const std::string& job, int64_t trajectories, int64_t steps,
                int64_t gone);
  void SetParameters(const std::string& job, int64_t version,
                     int64_t learner_latest);
  // Removes the job's series: this worker no longer reanalyses it (its
  // job stopped). Called after the job's thread has ended.
  void ForgetJob(const std::string& job);

  std::string Text() const;

 private:
  ReanalyseMetrics();

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* trajectories_;
  prometheus::Family<prometheus::Counter>* steps_;
  prometheus::Family<prometheus::Counter>* gone_;
  prometheus::Family<prometheus::Gauge>* version_;
  prometheus::Family<prometheus::Gauge>* lag_;
  metrics::JobSeries job_series_;  // every family above
  std::unique_ptr<metrics::HttpEndpoint> http_;
  int port_ = 0;
};

}  // namespace mmapzero::reanalyse

#endif  // MMAPZERO_REANALYSE_REANALYSE_METRICS_H_
