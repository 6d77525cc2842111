#include "coordinator/job_history.h"

#include <map>
#include <string>

#include "absl/container/flat_hash_set.h"

namespace mmapzero::coordinator {

std::vector<HistoryChange> JobHistory::Record(
    const std::vector<v1::JobStatus>& jobs, int64_t now_unix_ms) {
  absl::MutexLock lock(&mu_);
  std::vector<HistoryChange> changes;
  absl::flat_hash_set<std::string> listed;
  for (const v1::JobStatus& job : jobs) {
    listed.insert(job.job_id());
    const bool running = job.state() == v1::JOB_STATE_RUNNING;
    auto it = series_.find(job.job_id());
    if (!running && (it == series_.end() || it->second.ended)) continue;
    Series& series = series_[job.job_id()];
    series.ended = !running;
    HistoryChange& change = changes.emplace_back();
    change.job_id = job.job_id();
    if (static_cast<int>(series.samples.size()) >= max_points_) {
      change.rewritten = true;
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
    if (change.rewritten) {
      change.samples = series.samples;
    } else {
      change.samples.push_back(series.samples.back());
    }
  }
  // The series of jobs no longer listed (deleted, by hand or by retention)
  // go, so that a coordinator that runs for days holds no more than its
  // stored jobs' series.
  std::erase_if(series_, [&listed](const auto& entry) {
    return !listed.contains(entry.first);
  });
  return changes;
}

void JobHistory::Restore(const std::string& job_id,
                         std::vector<JobSample> samples, bool ended) {
  if (static_cast<int>(samples.size()) > max_points_) {
    // Every stride-th, the first always: at most max_points_ of them.
    const size_t stride =
        (samples.size() + max_points_ - 1) / static_cast<size_t>(max_points_);
    size_t kept = 0;
    for (size_t i = 0; i < samples.size(); i += stride) {
      samples[kept++] = samples[i];
    }
    samples.resize(kept);
  }
  absl::MutexLock lock(&mu_);
  Series& series = series_[job_id];
  series.samples = std::move(samples);
  series.ended = ended;
}

std::vector<JobSample> JobHistory::Samples(const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  auto it = series_.find(job_id);
  return it == series_.end() ? std::vector<JobSample>() : it->second.samples;
}

}  // namespace mmapzero::coordinator
