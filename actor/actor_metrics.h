// Prometheus metrics of an actor (docs/operations.md), on their own
// HTTP port (/metrics): games, moves and MCTS simulations per job
// (counters: Prometheus' rate() gives the per-second figures), inference
// batch size and latency (histograms over every network call), the
// parameter version each job acts with and its lag behind the learner's
// latest, the normalised return of every finished game per job
// (histogram), trajectories sent to / dropped for replay, and how the
// games used the best game so far (games started on it, moves that
// followed it, variations that rejoined it; the window's W now). A job's
// series go when the actor stops playing it (ForgetJob).
//
// Thread-safety: thread-safe (prometheus-cpp's metrics are).
#ifndef MMAPZERO_ACTOR_ACTOR_METRICS_H_
#define MMAPZERO_ACTOR_ACTOR_METRICS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/metrics/http_endpoint.h"
#include "common/metrics/job_series.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace mmapzero::actor {

class ActorMetrics {
 public:
  // Serves /metrics on `address` ("0.0.0.0:9091"; port 0 picks a free
  // one; "" serves nothing, for tests that read Text()).
  static absl::StatusOr<std::unique_ptr<ActorMetrics>> Start(
      const std::string& address);

  int port() const { return port_; }

  void AddMoves(const std::string& job, int64_t moves);
  void AddSimulations(const std::string& job, int64_t simulations);
  // One finished game and its normalised return.
  void AddGame(const std::string& job, double normalised_return);
  void ObserveInference(int batch, absl::Duration latency);
  void SetParameters(const std::string& job, int64_t version,
                     int64_t learner_latest);
  void AddTrajectories(const std::string& job, int64_t sent, int64_t dropped);
  // Growth since the last call of the job's best-start counters
  // (agent::SelfPlayCounters), and the window's W now.
  void AddBestStarts(const std::string& job, int64_t starts,
                     int64_t followed_moves, int64_t rejoined, int64_t window);
  // Removes the job's series: this actor no longer plays it (its job
  // stopped). Called after the job's threads have ended.
  void ForgetJob(const std::string& job);

  // The Prometheus text exposition of every metric (tests, debugging).
  std::string Text() const;

 private:
  ActorMetrics();

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* games_;
  prometheus::Family<prometheus::Counter>* moves_;
  prometheus::Family<prometheus::Counter>* simulations_;
  prometheus::Family<prometheus::Counter>* sent_;
  prometheus::Family<prometheus::Counter>* dropped_;
  prometheus::Family<prometheus::Counter>* best_starts_;
  prometheus::Family<prometheus::Counter>* followed_moves_;
  prometheus::Family<prometheus::Counter>* rejoined_;
  prometheus::Family<prometheus::Gauge>* window_;
  prometheus::Family<prometheus::Gauge>* version_;
  prometheus::Family<prometheus::Gauge>* lag_;
  prometheus::Family<prometheus::Histogram>* returns_;
  prometheus::Histogram* batch_size_;
  prometheus::Histogram* latency_;
  metrics::JobSeries job_series_;  // every family above labelled "job"
  std::unique_ptr<metrics::HttpEndpoint> http_;
  int port_ = 0;
};

}  // namespace mmapzero::actor

#endif  // MMAPZERO_ACTOR_ACTOR_METRICS_H_
