// Prometheus metrics of the learner service on their own HTTP port
// (/metrics), per job: learner steps (a counter: rate() gives steps/s) and
// the steps/s of the last reporting period, each loss term, the published
// parameter version, checkpoints written, and a histogram of how long each
// training step waited for its batch (near 0 while prefetching keeps up);
// plus the training device and RPCs served by method and status code. A
// job's series go when the learner stops training it (ForgetJob).
// Thread-safe.
#ifndef MMAPZERO_LEARNER_LEARNER_METRICS_H_
#define MMAPZERO_LEARNER_LEARNER_METRICS_H_

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/base/guarded.h"
#include "common/metrics/http_endpoint.h"
#include "common/metrics/job_series.h"
#include "common/metrics/rpc_metrics.h"
#include "common/rpc/rpc_handler.h"
#include "common/training/learner_stats.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace mmapzero::learner {

class LearnerMetrics final : public rpc::RpcObserver {
 public:
  // Serves /metrics on `address` ("0.0.0.0:9093"; port 0 picks a free
  // one; "" serves nothing, for tests that read Text()).
  static absl::StatusOr<std::unique_ptr<LearnerMetrics>> Start(
      const std::string& address);
  ~LearnerMetrics() override;

  int port() const { return port_; }

  void SetDevice(const std::string& device);  // "cpu", "cuda"
  void OnStep(const std::string& job, const training::LearnerStats& stats,
              absl::Duration batch_wait);
  void OnPublish(const std::string& job, int64_t version);
  void OnCheckpoint(const std::string& job);
  // Removes the job's series: the learner no longer trains it (its job
  // stopped). Called after the job's thread has ended.
  void ForgetJob(const std::string& job);
  // A job's newest checkpoint was damaged and set aside at its start (the
  // job is named in its status). One series for the worker, exported as 0
  // from the start: an alert on increase() would miss the first count of
  // a per-job series that appears already at 1.
  void OnCheckpointFallback();
  void OnRpc(absl::string_view method, absl::StatusCode code,
             absl::Duration latency) override;

  // The exposition text, as a scrape would see it.
  std::string Text() const;

 private:
  LearnerMetrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* steps_ = nullptr;
  prometheus::Family<prometheus::Gauge>* steps_per_second_ = nullptr;
  prometheus::Family<prometheus::Gauge>* loss_ = nullptr;
  prometheus::Family<prometheus::Gauge>* version_ = nullptr;
  prometheus::Family<prometheus::Counter>* checkpoints_ = nullptr;
  prometheus::Counter* checkpoint_fallbacks_ = nullptr;
  prometheus::Family<prometheus::Histogram>* batch_wait_ = nullptr;
  prometheus::Family<prometheus::Gauge>* device_ = nullptr;
  metrics::JobSeries job_series_;  // the families above labelled "job"
  metrics::RpcMetrics rpcs_;
  std::unique_ptr<metrics::HttpEndpoint> http_;
  int port_ = 0;

  // Per job: the step and time of the last steps/s sample.
  struct Rate {
    int64_t step = 0;
    absl::Time time;
  };
  Guarded<absl::flat_hash_map<std::string, Rate>> rates_;
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_LEARNER_METRICS_H_
