#include "coordinator/job_history.h"

namespace mmapzero::coordinator {

void JobHistory::Record(const std::vector<v1::JobStatus>& jobs,
                        int64_t now_unix_ms) {
  absl::MutexLock lock(&mu_);
  for (const v1::JobStatus& job : jobs) {
    const bool running = job.state() == v1::JOB_STATE_RUNNING;
    auto it = series_.find(job.job_id());
    if (!running && (it == series_.end() || it->second.ended)) continue;
    Series& series = series_[job.job_id()];
    series.ended = !running;
    if (static_cast<int>(series.samples.size()) >= max_points_) {
      // Keep every other sample (the first always).
      size_t kept = 0;
      for (size_t i = 0; i < series.samples.size(); i += 2) {
        series.samples[kept++] = series.samples[i];
      }
      series.samples.resize(kept);
    }
    // An ended job's last sample is at its end, when the job says when.
    const bool ended_at = !running && job.finished_unix_ms() > 0;
    series.samples.push_back(
        {.unix_ms = ended_at ? job.finished_unix_ms() : now_unix_ms,
         .best_normalised_return = job.best_normalised_return(),
         .best_latency_us = job.best_latency_us(),
         .learner_step = job.learner_step(),
         .games = job.games(),
         .moves = job.moves()});
  }
}

std::vector<JobSample> JobHistory::Samples(const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  auto it = series_.find(job_id);
  return it == series_.end() ? std::vector<JobSample>() : it->second.samples;
}

}  // namespace mmapzero::coordinator
