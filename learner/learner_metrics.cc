#include "learner/learner_metrics.h"

#include <exception>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/metrics/metrics_endpoint.h"
#include "prometheus/text_serializer.h"

namespace mmapzero::learner {
namespace {

// Batch waits from 100 us (prefetched) to 10 s (replay away).
const prometheus::Histogram::BucketBoundaries& WaitBuckets() {
  static const auto* buckets = new prometheus::Histogram::BucketBoundaries{
      1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1, 3, 10};
  return *buckets;
}

// Steps between two steps/s samples.
constexpr int64_t kRateSteps = 10;

}  // namespace

absl::StatusOr<std::unique_ptr<LearnerMetrics>> LearnerMetrics::Start(
    const std::string& address) {
  std::unique_ptr<LearnerMetrics> m(new LearnerMetrics());
  m->registry_ = std::make_shared<prometheus::Registry>();
  prometheus::Registry& r = *m->registry_;
  m->steps_ = &prometheus::BuildCounter()
                   .Name("mmapzero_learner_steps_total")
                   .Help("Learner steps taken on the job by this learner")
                   .Register(r);
  m->steps_per_second_ = &prometheus::BuildGauge()
                              .Name("mmapzero_learner_steps_per_second")
                              .Help("Learner steps per second, recent")
                              .Register(r);
  m->loss_ = &prometheus::BuildGauge()
                  .Name("mmapzero_learner_loss")
                  .Help("The latest step's loss, by term")
                  .Register(r);
  m->version_ = &prometheus::BuildGauge()
                     .Name("mmapzero_learner_parameter_version")
                     .Help("The latest published parameter version")
                     .Register(r);
  m->checkpoints_ = &prometheus::BuildCounter()
                         .Name("mmapzero_learner_checkpoints_total")
                         .Help("Checkpoints written")
                         .Register(r);
  m->checkpoint_fallbacks_ =
      &prometheus::BuildCounter()
           .Name("mmapzero_learner_checkpoint_fallbacks_total")
           .Help(
               "Job starts whose newest checkpoint was damaged and set "
               "aside, resuming from an older one or afresh")
           .Register(r)
           .Add({});
  m->batch_wait_ = &prometheus::BuildHistogram()
                        .Name("mmapzero_learner_batch_wait_seconds")
                        .Help("Time a training step waited for its batch")
                        .Register(r);
  m->device_ = &prometheus::BuildGauge()
                    .Name("mmapzero_learner_device")
                    .Help("1 for the device training runs on")
                    .Register(r);
  m->rpcs_ = metrics::RpcMetrics(r, "learner", /*with_latency=*/false);
  m->job_series_.Track(m->steps_, m->checkpoints_, m->steps_per_second_,
                       m->loss_, m->version_, m->batch_wait_);
  if (!address.empty()) {
    ASSIGN_OR_RETURN(metrics::MetricsEndpoint endpoint,
                     metrics::StartMetricsEndpoint(address, {m->registry_}));
    m->http_ = std::move(endpoint.server);
    m->port_ = endpoint.port;
  }
  return m;
}

LearnerMetrics::~LearnerMetrics() { http_.reset(); }

void LearnerMetrics::SetDevice(const std::string& device) {
  device_->Add({{"device", device}}).Set(1);
}

void LearnerMetrics::OnStep(const std::string& job,
                            const training::LearnerStats& stats,
                            absl::Duration batch_wait) {
  job_series_.Update([&] {
    steps_->Add({{"job", job}}).Increment();
    loss_->Add({{"job", job}, {"term", "total"}}).Set(stats.total);
    loss_->Add({{"job", job}, {"term", "value"}}).Set(stats.value);
    loss_->Add({{"job", job}, {"term", "reward"}}).Set(stats.reward);
    loss_->Add({{"job", job}, {"term", "policy"}}).Set(stats.policy);
    batch_wait_->Add({{"job", job}}, WaitBuckets())
        .Observe(absl::ToDoubleSeconds(batch_wait));
    const absl::Time now = absl::Now();
    rates_.Update([&](absl::flat_hash_map<std::string, Rate>& rates) {
      auto [it, inserted] = rates.try_emplace(job, Rate{stats.step, now});
      if (inserted || stats.step - it->second.step < kRateSteps) return;
      const double seconds = absl::ToDoubleSeconds(now - it->second.time);
      if (seconds > 0) {
        steps_per_second_->Add({{"job", job}})
            .Set((stats.step - it->second.step) / seconds);
      }
      it->second = Rate{stats.step, now};
    });
  });
}

void LearnerMetrics::OnPublish(const std::string& job, int64_t version) {
  job_series_.Update([&] {
    version_->Add({{"job", job}}).Set(static_cast<double>(version));
  });
}

void LearnerMetrics::OnCheckpoint(const std::string& job) {
  job_series_.Update([&] { checkpoints_->Add({{"job", job}}).Increment(); });
}

void LearnerMetrics::ForgetJob(const std::string& job) {
  job_series_.Forget(job);
  rates_.Update(
      [&](absl::flat_hash_map<std::string, Rate>& rates) { rates.erase(job); });
}

void LearnerMetrics::OnCheckpointFallback() {
  checkpoint_fallbacks_->Increment();
}

void LearnerMetrics::OnRpc(absl::string_view method, absl::StatusCode code,
                           absl::Duration latency) {
  rpcs_.Record(method, code, latency);
}

std::string LearnerMetrics::Text() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace mmapzero::learner
