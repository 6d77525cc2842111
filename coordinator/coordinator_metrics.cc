#include "coordinator/coordinator_metrics.h"

#include <vector>

#include "common/metrics/scraped_family.h"
#include "common/rpc/enum_names.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace mmapzero::coordinator {
namespace {

using metrics::AddSample;
using metrics::ScrapedFamily;

// Job metrics and the database's size, computed from the coordinator at
// each scrape.
class JobCollector final : public prometheus::Collectable {
 public:
  explicit JobCollector(Coordinator* coordinator) : coordinator_(coordinator) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    using prometheus::MetricType;
    const absl::StatusOr<std::vector<v1::JobStatus>> jobs =
        coordinator_->AllJobs();
    if (!jobs.ok()) return {};
    auto states = ScrapedFamily("mmapzero_coordinator_jobs", "Jobs by state",
                                MetricType::Gauge);
    auto best =
        ScrapedFamily("mmapzero_job_best_normalised_return",
                      "Normalised return of the job's best verified solution",
                      MetricType::Gauge);
    auto heuristic = ScrapedFamily("mmapzero_job_heuristic_normalised_return",
                                   "Normalised return of the heuristic seed",
                                   MetricType::Gauge);
    auto best_latency = ScrapedFamily(
        "mmapzero_job_best_latency_us",
        "Simulated latency of the job's best verified solution, us",
        MetricType::Gauge);
    auto heuristic_latency = ScrapedFamily(
        "mmapzero_job_heuristic_latency_us",
        "Simulated latency of the heuristic seed, us", MetricType::Gauge);
    auto speedup = ScrapedFamily(
        "mmapzero_job_speedup_over_heuristic",
        "The heuristic's simulated latency over the best's", MetricType::Gauge);
    auto step = ScrapedFamily("mmapzero_job_learner_step",
                              "The job's learner step", MetricType::Gauge);
    auto games = ScrapedFamily("mmapzero_job_games_total",
                               "Self-play games finished for the job",
                               MetricType::Counter);
    auto workers =
        ScrapedFamily("mmapzero_job_workers", "Live leases on the job by role",
                      MetricType::Gauge);
    for (const v1::JobState state :
         {v1::JOB_STATE_SEEDING, v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING,
          v1::JOB_STATE_DONE, v1::JOB_STATE_CANCELLED, v1::JOB_STATE_FAILED}) {
      int count = 0;
      for (const v1::JobStatus& job : *jobs) count += job.state() == state;
      AddSample(&states, {{"state", rpc::JobStateName(state)}}, count);
    }
    for (const v1::JobStatus& job : *jobs) {
      const std::vector<prometheus::ClientMetric::Label> labels = {
          {"job", job.job_id()}, {"name", job.name()}};
      AddSample(&best, labels, job.best_normalised_return());
      AddSample(&heuristic, labels, job.heuristic_normalised_return());
      // Latencies only once known (not for jobs stored before they were).
      if (job.best_latency_us() > 0 && job.heuristic_latency_us() > 0) {
        AddSample(&best_latency, labels, job.best_latency_us());
        AddSample(&heuristic_latency, labels, job.heuristic_latency_us());
        AddSample(&speedup, labels,
                  job.heuristic_latency_us() / job.best_latency_us());
      }
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
    auto database = ScrapedFamily(
        "mmapzero_coordinator_database_bytes",
        "Bytes the coordinator's database takes on disk", MetricType::Gauge);
    if (const absl::StatusOr<int64_t> bytes = coordinator_->DatabaseBytes();
        bytes.ok()) {
      AddSample(&database, {}, static_cast<double>(*bytes));
    }
    return {states,  best,  heuristic, best_latency, heuristic_latency,
            speedup, step,  games,     workers,      database};
  }

 private:
  Coordinator* coordinator_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<metrics::ServiceMetrics>>
StartCoordinatorMetrics(const std::string& address, Coordinator* coordinator) {
  return metrics::ServiceMetrics::Start(
      {.address = address,
       .service = "coordinator",
       .scraped = std::make_shared<JobCollector>(coordinator)});
}

}  // namespace mmapzero::coordinator
