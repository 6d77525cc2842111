// mmapzero-reanalyse: the reanalyse worker service (reanalyse_worker.h).
//   mmapzero-reanalyse --coordinator HOST:PORT [--capacity N] [--name NAME]
//       [--metrics-port 9092] [--trajectories-per-round 4] [--seed S]
//       [--config reanalyse.json] [--print-config]
// Its config is a ReanalyseServiceConfig (reanalyse_service_config.h). It
// serves no gRPC itself: it finds its jobs, their replay servers and
// learners through the coordinator. SIGTERM or SIGINT: every job ends
// after its current round, heartbeats stop.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "common/base/status_macros.h"
#include "common/model/compute_threads.h"
#include "common/service/log_line.h"
#include "common/service/service_main.h"
#include "common/service/worker_identity.h"
#include "reanalyse/reanalyse_metrics.h"
#include "reanalyse/reanalyse_service_config.h"

ABSL_FLAG(std::optional<int>, trajectories_per_round, std::nullopt,
          "trajectories per SampleForReanalyse");

namespace mmapzero::reanalyse {
namespace {

absl::Status Check(const ReanalyseServiceConfig& config) {
  return ReanalyseSettingsFromConfig(config).status();
}

absl::StatusOr<service::StopService> Start(
    const ReanalyseServiceConfig& config) {
  ASSIGN_OR_RETURN(ReanalyseServiceSettings settings,
                   ReanalyseSettingsFromConfig(config));
  model::SetComputeThreads(settings.torch_threads);
  ASSIGN_OR_RETURN(std::unique_ptr<ReanalyseMetrics> metrics,
                   ReanalyseMetrics::Start(settings.metrics_listen));
  settings.worker.metrics = metrics.get();
  ASSIGN_OR_RETURN(std::unique_ptr<ReanalyseWorker> worker,
                   ReanalyseWorker::Start(settings.worker));
  service::LogWorkerStarted(settings.worker.coordinator,
                            settings.worker.capacity, metrics->port());
  return [metrics = std::move(metrics), worker = std::move(worker)]() mutable {
    worker->Shutdown();
    service::LogLine("info", "stopped");
    worker.reset();  // before the metrics it reports to
  };
}

}  // namespace
}  // namespace mmapzero::reanalyse

int main(int argc, char** argv) {
  return mmapzero::service::RunServiceMain<mmapzero::ReanalyseServiceConfig>(
      argc, argv,
      {.component = "reanalyse",
       .usage = "the mmapzero reanalyse worker.\n  mmapzero-reanalyse "
                "--coordinator HOST:PORT [--capacity N] [--metrics-port N] "
                "[--name NAME] [--config FILE] [--print-config]",
       .with_defaults = &mmapzero::reanalyse::WithDefaults,
       .check = &mmapzero::reanalyse::Check,
       .start = &mmapzero::reanalyse::Start});
}
