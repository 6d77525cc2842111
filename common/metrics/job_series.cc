#include "common/metrics/job_series.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

namespace mmapzero::metrics {
namespace {

// The label sets of `family`'s series labelled job=`job`.
template <typename T>
std::vector<prometheus::Labels> LabelsOfJob(const prometheus::Family<T>& family,
                                            const std::string& job) {
  std::vector<prometheus::Labels> found;
  for (const prometheus::MetricFamily& collected : family.Collect()) {
    for (const prometheus::ClientMetric& metric : collected.metric) {
      prometheus::Labels labels;
      bool of_job = false;
      for (const prometheus::ClientMetric::Label& label : metric.label) {
        labels[label.name] = label.value;
        of_job |= label.name == "job" && label.value == job;
      }
      if (of_job) found.push_back(std::move(labels));
    }
  }
  return found;
}

// Removes `family`'s series of `job`. Add finds a series that exists
// (`add_args` only make new ones), which gives Remove its pointer.
template <typename T, typename... AddArgs>
void RemoveJob(prometheus::Family<T>& family, const std::string& job,
               const AddArgs&... add_args) {
  for (const prometheus::Labels& labels : LabelsOfJob(family, job)) {
    family.Remove(&family.Add(labels, add_args...));
  }
}

}  // namespace

void JobSeries::TrackOne(prometheus::Family<prometheus::Counter>* family) {
  forgetters_.push_back(
      [family](const std::string& job) { RemoveJob(*family, job); });
}

void JobSeries::TrackOne(prometheus::Family<prometheus::Gauge>* family) {
  forgetters_.push_back(
      [family](const std::string& job) { RemoveJob(*family, job); });
}

void JobSeries::TrackOne(prometheus::Family<prometheus::Histogram>* family) {
  forgetters_.push_back([family](const std::string& job) {
    RemoveJob(*family, job, prometheus::Histogram::BucketBoundaries{});
  });
}

void JobSeries::Forget(const std::string& job) {
  absl::MutexLock lock(&mu_);
  for (const auto& forget : forgetters_) forget(job);
}

}  // namespace mmapzero::metrics
