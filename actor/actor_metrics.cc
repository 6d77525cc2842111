#include "actor/actor_metrics.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/metrics/metrics_endpoint.h"
#include "prometheus/text_serializer.h"

namespace mmapzero::actor {
namespace {

prometheus::Family<prometheus::Counter>* CounterFamily(
    prometheus::Registry& registry, const std::string& name,
    const std::string& help) {
  return &prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Gauge>* GaugeFamily(
    prometheus::Registry& registry, const std::string& name,
    const std::string& help) {
  return &prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Histogram>* HistogramFamily(
    prometheus::Registry& registry, const std::string& name,
    const std::string& help) {
  return &prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
}

}  // namespace

ActorMetrics::ActorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()) {
  prometheus::Registry& r = *registry_;
  games_ = CounterFamily(r, "mmapzero_actor_games_total",
                         "Self-play games finished");
  moves_ =
      CounterFamily(r, "mmapzero_actor_moves_total", "Self-play moves played");
  simulations_ = CounterFamily(r, "mmapzero_actor_simulations_total",
                               "MCTS simulations run");
  sent_ = CounterFamily(r, "mmapzero_actor_trajectories_sent_total",
                        "Trajectories the job's replay accepted");
  dropped_ = CounterFamily(r, "mmapzero_actor_trajectories_dropped_total",
                           "Trajectories dropped while replay was away");
  version_ = GaugeFamily(r, "mmapzero_actor_parameter_version",
                         "Learner step of the parameters the job acts with");
  lag_ = GaugeFamily(r, "mmapzero_actor_parameter_lag",
                     "Learner's latest version minus the acting version");
  returns_ = HistogramFamily(r, "mmapzero_actor_episode_normalised_return",
                             "Normalised return of each finished game");
  best_starts_ = CounterFamily(r, "mmapzero_actor_best_starts_total",
                              "Games started on the best game's prefix");
  followed_moves_ =
      CounterFamily(r, "mmapzero_actor_followed_moves_total",
                    "Moves that followed the best game (no network call)");
  rejoined_ = CounterFamily(r, "mmapzero_actor_rejoined_total",
                            "Variations ended where they rejoined the best");
  window_ = GaugeFamily(r, "mmapzero_actor_best_start_window",
                        "Decisions a variation of the best game makes, at "
                        "most (doubles while the best stands)");
  job_series_.Track(games_, moves_, simulations_, sent_, dropped_, version_,
                    lag_, returns_, best_starts_, followed_moves_, rejoined_,
                    window_);
  batch_size_ = &HistogramFamily(r, "mmapzero_actor_inference_batch_size",
                                 "Positions per network call")
                     ->Add({}, prometheus::Histogram::BucketBoundaries{
                                   1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
  latency_ = &HistogramFamily(r, "mmapzero_actor_inference_latency_seconds",
                              "Wall time of one network call")
                  ->Add({}, prometheus::Histogram::BucketBoundaries{
                                1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2,
                                2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1});
}

absl::StatusOr<std::unique_ptr<ActorMetrics>> ActorMetrics::Start(
    const std::string& address) {
  std::unique_ptr<ActorMetrics> metrics(new ActorMetrics());
  if (address.empty()) return metrics;
  ASSIGN_OR_RETURN(
      metrics::MetricsEndpoint endpoint,
      metrics::StartMetricsEndpoint(address, {metrics->registry_}));
  metrics->http_ = std::move(endpoint.server);
  metrics->port_ = endpoint.port;
  return metrics;
}

void ActorMetrics::AddMoves(const std::string& job, int64_t moves) {
  job_series_.Update([&] {
    moves_->Add({{"job", job}}).Increment(static_cast<double>(moves));
  });
}

void ActorMetrics::AddSimulations(const std::string& job, int64_t simulations) {
  job_series_.Update([&] {
    simulations_->Add({{"job", job}})
        .Increment(static_cast<double>(simulations));
  });
}

void ActorMetrics::AddGame(const std::string& job, double normalised_return) {
  job_series_.Update([&] {
    games_->Add({{"job", job}}).Increment();
    returns_
        ->Add({{"job", job}},
              prometheus::Histogram::BucketBoundaries{
                  0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1})
        .Observe(normalised_return);
  });
}

void ActorMetrics::ObserveInference(int batch, absl::Duration latency) {
  batch_size_->Observe(batch);
  latency_->Observe(absl::ToDoubleSeconds(latency));
}

void ActorMetrics::SetParameters(const std::string& job, int64_t version,
                                 int64_t learner_latest) {
  job_series_.Update([&] {
    version_->Add({{"job", job}}).Set(static_cast<double>(version));
    lag_->Add({{"job", job}})
        .Set(static_cast<double>(
            std::max<int64_t>(0, learner_latest - version)));
  });
}

void ActorMetrics::AddTrajectories(const std::string& job, int64_t sent,
                                   int64_t dropped) {
  job_series_.Update([&] {
    if (sent > 0) {
      sent_->Add({{"job", job}}).Increment(static_cast<double>(sent));
    }
    if (dropped > 0) {
      dropped_->Add({{"job", job}}).Increment(static_cast<double>(dropped));
    }
  });
}

void ActorMetrics::AddBestStarts(const std::string& job, int64_t starts,
                                 int64_t followed_moves, int64_t rejoined,
                                 int64_t window) {
  job_series_.Update([&] {
    best_starts_->Add({{"job", job}}).Increment(static_cast<double>(starts));
    followed_moves_->Add({{"job", job}})
        .Increment(static_cast<double>(followed_moves));
    rejoined_->Add({{"job", job}}).Increment(static_cast<double>(rejoined));
    window_->Add({{"job", job}}).Set(static_cast<double>(window));
  });
}

void ActorMetrics::ForgetJob(const std::string& job) {
  job_series_.Forget(job);
}

std::string ActorMetrics::Text() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace mmapzero::actor
