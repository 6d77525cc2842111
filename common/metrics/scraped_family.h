// Metric families built at scrape time by a prometheus::Collectable, from
// a service's state as it is when Prometheus asks (the coordinator's jobs,
// the replay server's tables), so they are never stale and cost nothing
// between scrapes. prometheus-cpp's MetricFamily is a plain struct; these
// fill it.
#ifndef MMAPZERO_COMMON_METRICS_SCRAPED_FAMILY_H_
#define MMAPZERO_COMMON_METRICS_SCRAPED_FAMILY_H_

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>

#include <string>
#include <vector>

namespace mmapzero::metrics {

// An empty family; `type` is Counter or Gauge.
prometheus::MetricFamily ScrapedFamily(const std::string& name,
                                       const std::string& help,
                                       prometheus::MetricType type);

// Appends one sample: the counter's or the gauge's value, as the family's
// type says.
void AddSample(prometheus::MetricFamily* family,
               std::vector<prometheus::ClientMetric::Label> labels,
               double value);

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_SCRAPED_FAMILY_H_
