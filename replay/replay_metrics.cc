#include "replay/replay_metrics.h"

#include <exception>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/rpc/metrics_endpoint.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace mmapzero::replay {
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

void AddSample(prometheus::MetricFamily* family, const std::string& job,
               double value) {
  prometheus::ClientMetric metric;
  metric.label = {{"job", job}};
  if (family->type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family->metric.push_back(std::move(metric));
}

class TableCollector final : public prometheus::Collectable {
 public:
  explicit TableCollector(const ReplayTables* tables) : tables_(tables) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    using prometheus::MetricType;
    std::vector<prometheus::MetricFamily> families = {
        Family("mmapzero_replay_trajectories", "Trajectories held",
               MetricType::Gauge),
        Family("mmapzero_replay_positions", "Steps held", MetricType::Gauge),
        Family("mmapzero_replay_capacity", "Trajectories kept (FIFO)",
               MetricType::Gauge),
        Family("mmapzero_replay_inserted_trajectories_total",
               "Trajectories inserted since the table was created",
               MetricType::Counter),
        Family("mmapzero_replay_inserted_positions_total",
               "Steps inserted since this server loaded the table",
               MetricType::Counter),
        Family("mmapzero_replay_sampled_windows_total",
               "Training windows handed out", MetricType::Counter),
        Family("mmapzero_replay_reanalysed_total", "Target updates applied",
               MetricType::Counter),
        Family("mmapzero_replay_newest_parameter_version",
               "Newest acting parameter version held", MetricType::Gauge),
    };
    for (const JobReplayStats& job : tables_->AllStats()) {
      const v1::ReplayStats& s = job.stats;
      const double values[] = {
          static_cast<double>(s.trajectories()),
          static_cast<double>(s.positions()),
          static_cast<double>(s.capacity()),
          static_cast<double>(s.inserted()),
          static_cast<double>(job.positions_inserted),
          static_cast<double>(s.sampled()),
          static_cast<double>(s.reanalysed()),
          static_cast<double>(s.newest_parameter_version())};
      for (size_t i = 0; i < families.size(); ++i) {
        AddSample(&families[i], s.job_id(), values[i]);
      }
    }
    return families;
  }

 private:
  const ReplayTables* tables_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ReplayMetrics>> ReplayMetrics::Start(
    const std::string& address, const ReplayTables* tables) {
  std::unique_ptr<ReplayMetrics> metrics(new ReplayMetrics());
  metrics->registry_ = std::make_shared<prometheus::Registry>();
  metrics->rpcs_ =
      rpc::RpcMetrics(*metrics->registry_, "replay", /*with_latency=*/true);
  metrics->tables_ = std::make_shared<TableCollector>(tables);
  ASSIGN_OR_RETURN(rpc::MetricsEndpoint endpoint,
                   rpc::StartMetricsEndpoint(
                       address, {metrics->registry_, metrics->tables_}));
  metrics->exposer_ = std::move(endpoint.exposer);
  metrics->port_ = endpoint.port;
  return metrics;
}

ReplayMetrics::~ReplayMetrics() {
  exposer_.reset();  // no scrape may run on what follows
}

void ReplayMetrics::OnRpc(absl::string_view method, absl::StatusCode code,
                          absl::Duration latency) {
  rpcs_.Record(method, code, latency);
}

}  // namespace mmapzero::replay
