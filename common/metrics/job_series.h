// The series a worker exports per job (those labelled "job"), and their
// removal once the worker no longer works on the job: kept, a worker that
// serves jobs for weeks would export a dead series per metric for every job
// it ever served (about 20 per job), each scrape larger than the last.
//
// prometheus-cpp deletes a series that is removed, so a series looked up in
// one thread must not be removed by another before it is updated: every
// update of a tracked family and every removal hold this object's lock
// (Update, Forget). An update after Forget adds the series again.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_COMMON_METRICS_JOB_SERIES_H_
#define MMAPZERO_COMMON_METRICS_JOB_SERIES_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace mmapzero::metrics {

class JobSeries {
 public:
  // The families whose series carry a "job" label (counters, gauges or
  // histograms, any mix); before any Update.
  template <typename... Families>
  void Track(Families*... families) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    (TrackOne(families), ...);
  }

  // Runs `update`, which looks up (Family::Add) and updates series of the
  // tracked families, with the lock held.
  template <typename Updater>
  void Update(Updater&& update) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::forward<Updater>(update)();
  }

  // Removes every series labelled job=`job` from the tracked families.
  void Forget(const std::string& job) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void TrackOne(prometheus::Family<prometheus::Counter>* family)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TrackOne(prometheus::Family<prometheus::Gauge>* family)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TrackOne(prometheus::Family<prometheus::Histogram>* family)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  // One per tracked family: removes that family's series of a job.
  std::vector<std::function<void(const std::string&)>> forgetters_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_JOB_SERIES_H_
