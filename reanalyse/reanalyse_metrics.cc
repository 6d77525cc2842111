#include "reanalyse/reanalyse_metrics.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/metrics/metrics_endpoint.h"
#include "prometheus/text_serializer.h"

namespace mmapzero::reanalyse {

ReanalyseMetrics::ReanalyseMetrics()
    : registry_(std::make_shared<prometheus::Registry>()) {
  prometheus::Registry& r = *registry_;
  trajectories_ = &prometheus::BuildCounter()
                       .Name("mmapzero_reanalyse_trajectories_total")
                       .Help("Trajectories whose targets were refreshed")
                       .Register(r);
  steps_ = &prometheus::BuildCounter()
                .Name("mmapzero_reanalyse_steps_total")
                .Help("Steps re-searched")
                .Register(r);
  gone_ = &prometheus::BuildCounter()
               .Name("mmapzero_reanalyse_gone_total")
               .Help("Trajectories evicted from replay while re-searched")
               .Register(r);
  version_ = &prometheus::BuildGauge()
                  .Name("mmapzero_reanalyse_parameter_version")
                  .Help("Learner step of the parameters searched with")
                  .Register(r);
  lag_ = &prometheus::BuildGauge()
              .Name("mmapzero_reanalyse_parameter_lag")
              .Help("Learner's latest version minus the version used")
              .Register(r);
  job_series_.Track(trajectories_, steps_, gone_, version_, lag_);
}

absl::StatusOr<std::unique_ptr<ReanalyseMetrics>> ReanalyseMetrics::Start(
    const std::string& address) {
  std::unique_ptr<ReanalyseMetrics> metrics(new ReanalyseMetrics());
  if (address.empty()) return metrics;
  ASSIGN_OR_RETURN(
      metrics::MetricsEndpoint endpoint,
      metrics::StartMetricsEndpoint(address, {metrics->registry_}));
  metrics->http_ = std::move(endpoint.server);
  metrics->port_ = endpoint.port;
  return metrics;
}

void ReanalyseMetrics::AddRound(const std::string& job, int64_t trajectories,
                                int64_t steps, int64_t gone) {
  job_series_.Update([&] {
    trajectories_->Add({{"job", job}})
        .Increment(static_cast<double>(trajectories));
    steps_->Add({{"job", job}}).Increment(static_cast<double>(steps));
    gone_->Add({{"job", job}}).Increment(static_cast<double>(gone));
  });
}

void ReanalyseMetrics::SetParameters(const std::string& job, int64_t version,
                                     int64_t learner_latest) {
  job_series_.Update([&] {
    version_->Add({{"job", job}}).Set(static_cast<double>(version));
    lag_->Add({{"job", job}})
        .Set(static_cast<double>(
            std::max<int64_t>(0, learner_latest - version)));
  });
}

void ReanalyseMetrics::ForgetJob(const std::string& job) {
  job_series_.Forget(job);
}

std::string ReanalyseMetrics::Text() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace mmapzero::reanalyse
