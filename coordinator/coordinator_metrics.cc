#include "coordinator/coordinator_metrics.h"

#include <exception>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/rpc/metrics_endpoint.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace mmapzero::coordinator {
namespace {

prometheus::MetricFamily Family(const std::string& name,
                                const std::string& help,
                                prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  return family;
}

void AddSample(prometheus::MetricFamily* family,
               std::vector<prometheus::ClientMetric::Label> labels,
               double value) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  if (family->type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family->metric.push_back(std::move(metric));
}

// "queued" for JOB_STATE_QUEUED.
std::string StateLabel(v1::JobState state) {
  std::string name = v1::JobState_Name(state);
  return absl::AsciiStrToLower(name.substr(std::string("JOB_STATE_").size()));
}

// Job metrics, computed from the coordinator at each scrape.
class JobCollector final : public prometheus::Collectable {
 public:
  explicit JobCollector(Coordinator* coordinator) : coordinator_(coordinator) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    using prometheus::MetricType;
    const absl::StatusOr<std::vector<v1::JobStatus>> jobs =
        coordinator_->AllJobs();
    if (!jobs.ok()) return {};
    auto states =
        Family("mmapzero_coordinator_jobs", "Jobs by state", MetricType::Gauge);
    auto best = Family("mmapzero_job_best_normalised_return",
                       "Normalised return of the job's best verified solution",
                       MetricType::Gauge);
    auto heuristic =
        Family("mmapzero_job_heuristic_normalised_return",
               "Normalised return of the heuristic seed", MetricType::Gauge);
    auto step = Family("mmapzero_job_learner_step", "The job's learner step",
                       MetricType::Gauge);
    auto games =
        Family("mmapzero_job_games_total",
               "Self-play games finished for the job", MetricType::Counter);
    auto workers = Family("mmapzero_job_workers",
                          "Live leases on the job by role", MetricType::Gauge);
    for (const v1::JobState state :
         {v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING, v1::JOB_STATE_DONE,
          v1::JOB_STATE_CANCELLED, v1::JOB_STATE_FAILED}) {
      int count = 0;
      for (const v1::JobStatus& job : *jobs) count += job.state() == state;
      AddSample(&states, {{"state", StateLabel(state)}}, count);
    }
    for (const v1::JobStatus& job : *jobs) {
      const std::vector<prometheus::ClientMetric::Label> labels = {
          {"job", job.job_id()}, {"name", job.name()}};
      AddSample(&best, labels, job.best_normalised_return());
      AddSample(&heuristic, labels, job.heuristic_normalised_return());
      AddSample(&step, labels, static_cast<double>(job.learner_step()));
      AddSample(&games, labels, static_cast<double>(job.games()));
      if (job.state() != v1::JOB_STATE_RUNNING) continue;
      AddSample(&workers, {{"job", job.job_id()}, {"role", "learner"}},
                job.learner_worker_id().empty() ? 0 : 1);
      AddSample(&workers, {{"job", job.job_id()}, {"role", "actor"}},
                job.actors());
      AddSample(&workers, {{"job", job.job_id()}, {"role", "reanalyse"}},
                job.reanalysers());
    }
    return {states, best, heuristic, step, games, workers};
  }

 private:
  Coordinator* coordinator_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CoordinatorMetrics>> CoordinatorMetrics::Start(
    const std::string& address, Coordinator* coordinator) {
  std::unique_ptr<CoordinatorMetrics> metrics(new CoordinatorMetrics());
  metrics->registry_ = std::make_shared<prometheus::Registry>();
  metrics->rpcs_ = rpc::RpcMetrics(*metrics->registry_, "coordinator",
                                   /*with_latency=*/false);
  metrics->jobs_ = std::make_shared<JobCollector>(coordinator);
  ASSIGN_OR_RETURN(
      rpc::MetricsEndpoint endpoint,
      rpc::StartMetricsEndpoint(address, {metrics->registry_, metrics->jobs_}));
  metrics->exposer_ = std::move(endpoint.exposer);
  metrics->port_ = endpoint.port;
  return metrics;
}

CoordinatorMetrics::~CoordinatorMetrics() {
  exposer_.reset();  // no scrape may run on what follows
}

void CoordinatorMetrics::OnRpc(absl::string_view method, absl::StatusCode code,
                               absl::Duration latency) {
  rpcs_.Record(method, code, latency);
}

}  // namespace mmapzero::coordinator
