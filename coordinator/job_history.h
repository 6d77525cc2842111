// The dashboard's memory of each job over time: samples of its status
// (best simulated latency and normalised return, learner step, games,
// moves), recorded by the coordinator server every few seconds while the
// job runs and once when it ends. At most `max_points` samples per job:
// when a series is full, every other sample is dropped, so a long job
// keeps its whole span at a coarser grain. Record says what it changed, so
// that the server keeps the same series in the coordinator's database
// (job_samples, schema 9), and Restore puts them back after a restart.
#ifndef MMAPZERO_COORDINATOR_JOB_HISTORY_H_
#define MMAPZERO_COORDINATOR_JOB_HISTORY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "proto/job.pb.h"

namespace mmapzero::coordinator {

struct JobSample {
  int64_t unix_ms = 0;
  double best_normalised_return = 0;
  double best_latency_us = 0;
  int64_t learner_step = 0;
  int64_t games = 0;
  int64_t moves = 0;
};

// What one Record did to a job's series: appended `samples` (one), or
// thinned the series and appended, so that `samples` is the whole series
// now (`rewritten`).
struct HistoryChange {
  std::string job_id;
  bool rewritten = false;
  std::vector<JobSample> samples;
};

class JobHistory {
 public:
  explicit JobHistory(int max_points = 1000) : max_points_(max_points) {}

  // A sample of every running job, and a last one of each job that ended
  // since the previous call; what changed, one entry per job. `jobs` is
  // every stored job: the series of a job not among them (deleted) is
  // forgotten.
  std::vector<HistoryChange> Record(const std::vector<v1::JobStatus>& jobs,
                                    int64_t now_unix_ms)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A job's series as stored (oldest first), thinned evenly to max_points;
  // `ended`: the job is final (Record adds nothing more to it).
  void Restore(const std::string& job_id, std::vector<JobSample> samples,
               bool ended) ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<JobSample> Samples(const std::string& job_id) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Series {
    std::vector<JobSample> samples;
    bool ended = false;
  };
  const int max_points_;
  mutable absl::Mutex mu_;
  std::map<std::string, Series> series_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_JOB_HISTORY_H_
