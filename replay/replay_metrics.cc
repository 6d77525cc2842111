#include "replay/replay_metrics.h"

#include <vector>

#include "common/metrics/scraped_family.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace mmapzero::replay {
namespace {

using metrics::AddSample;
using metrics::ScrapedFamily;

class TableCollector final : public prometheus::Collectable {
 public:
  explicit TableCollector(const ReplayTables* tables) : tables_(tables) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    using prometheus::MetricType;
    std::vector<prometheus::MetricFamily> families = {
        ScrapedFamily("mmapzero_replay_trajectories", "Trajectories held",
                      MetricType::Gauge),
        ScrapedFamily("mmapzero_replay_positions", "Steps held",
                      MetricType::Gauge),
        ScrapedFamily("mmapzero_replay_capacity", "Trajectories kept (FIFO)",
                      MetricType::Gauge),
        ScrapedFamily("mmapzero_replay_bytes",
                      "Memory the held trajectories take", MetricType::Gauge),
        ScrapedFamily("mmapzero_replay_inserted_trajectories_total",
                      "Trajectories inserted since the table was created",
                      MetricType::Counter),
        ScrapedFamily("mmapzero_replay_inserted_positions_total",
                      "Steps inserted since this server loaded the table",
                      MetricType::Counter),
        ScrapedFamily("mmapzero_replay_sampled_windows_total",
                      "Training windows handed out", MetricType::Counter),
        ScrapedFamily("mmapzero_replay_reanalysed_total",
                      "Target updates applied", MetricType::Counter),
        ScrapedFamily("mmapzero_replay_newest_parameter_version",
                      "Newest acting parameter version held",
                      MetricType::Gauge),
    };
    prometheus::MetricFamily damaged = ScrapedFamily(
        "mmapzero_replay_checkpoints_damaged_total",
        "Table checkpoint files found damaged when loaded and set aside",
        MetricType::Counter);
    AddSample(&damaged, {},
              static_cast<double>(tables_->damaged_checkpoints()));
    prometheus::MetricFamily parked =
        ScrapedFamily("mmapzero_replay_parked_tables",
                      "Tables of jobs out of the assignments held on disk only",
                      MetricType::Gauge);
    AddSample(&parked, {}, static_cast<double>(tables_->parked_tables()));
    for (const JobReplayStats& job : tables_->AllStats()) {
      const v1::ReplayStats& s = job.stats;
      const double values[] = {
          static_cast<double>(s.trajectories()),
          static_cast<double>(s.positions()),
          static_cast<double>(s.capacity()),
          static_cast<double>(s.bytes()),
          static_cast<double>(s.inserted()),
          static_cast<double>(job.positions_inserted),
          static_cast<double>(s.sampled()),
          static_cast<double>(s.reanalysed()),
          static_cast<double>(s.newest_parameter_version())};
      for (size_t i = 0; i < families.size(); ++i) {
        AddSample(&families[i], {{"job", s.job_id()}}, values[i]);
      }
    }
    families.push_back(std::move(damaged));
    families.push_back(std::move(parked));
    return families;
  }

 private:
  const ReplayTables* tables_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<metrics::ServiceMetrics>> StartReplayMetrics(
    const std::string& address, const ReplayTables* tables) {
  return metrics::ServiceMetrics::Start(
      {.address = address,
       .service = "replay",
       .rpc_latency = true,
       .scraped = std::make_shared<TableCollector>(tables)});
}

}  // namespace mmapzero::replay
