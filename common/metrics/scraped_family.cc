#include "common/metrics/scraped_family.h"

#include <utility>

namespace mmapzero::metrics {

prometheus::MetricFamily ScrapedFamily(const std::string& name,
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

}  // namespace mmapzero::metrics
