// mmapzero-learner: the learner service (learner_worker.h).
//   mmapzero-learner --coordinator HOST:PORT --data-dir DIR
//       [--listen 127.0.0.1:7072] [--advertise HOST:PORT] [--metrics-port 9093]
//       [--device auto|cpu|cuda] [--config learner.json] [--print-config]
// Its config is a LearnerServiceConfig (learner_service_config.h); flags
// given override the file's fields. SIGTERM or SIGINT shuts down
// gracefully: every job checkpoints, heartbeats stop, fetches finish.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/model/compute_threads.h"
#include "common/service/service_main.h"
#include "learner/learner_service_config.h"

ABSL_FLAG(std::optional<int64_t>, publish_interval, std::nullopt,
          "learner steps between published parameter snapshots");
ABSL_FLAG(std::optional<int64_t>, checkpoint_interval, std::nullopt,
          "learner steps between checkpoints; 0: the job's "
          "training.checkpoint_interval");
ABSL_FLAG(std::optional<int>, prefetch_batches, std::nullopt,
          "batches fetched ahead from the replay");
ABSL_FLAG(std::optional<int>, max_chunk_bytes, std::nullopt,
          "FetchParameters chunk size when the client asks for none");
ABSL_FLAG(std::optional<int>, replay_deadline_ms, std::nullopt,
          "deadline of each SampleBatch call");
ABSL_FLAG(std::optional<std::string>, device, std::nullopt,
          "auto (CUDA when LibTorch has it, else CPU), cpu or cuda");

namespace mmapzero::learner {
namespace {

absl::Status Check(const LearnerServiceConfig& config) {
  return LearnerSettingsFromConfig(config).status();
}

absl::StatusOr<service::StopService> Start(const LearnerServiceConfig& config) {
  ASSIGN_OR_RETURN(LearnerServiceSettings settings,
                   LearnerSettingsFromConfig(config));
  model::SetComputeThreads(settings.torch_threads);
  const std::string listen = settings.worker.listen;
  ASSIGN_OR_RETURN(std::unique_ptr<LearnerWorker> worker,
                   LearnerWorker::Start(std::move(settings.worker)));
  if (!settings.address_file.empty()) {
    RETURN_IF_ERROR(
        WriteAddressFile(settings.address_file, listen, worker->port()));
  }
  return [worker = std::move(worker)] { worker->Shutdown(); };
}

}  // namespace
}  // namespace mmapzero::learner

int main(int argc, char** argv) {
  return mmapzero::service::RunServiceMain<mmapzero::LearnerServiceConfig>(
      argc, argv,
      {.component = "learner",
       .usage = "the mmapzero learner: trains each assigned job, serves its "
                "parameters.\n  mmapzero-learner --coordinator HOST:PORT "
                "--data-dir DIR [--listen HOST:PORT] [--metrics-port N] "
                "[--config FILE] [--print-config]",
       .with_defaults = &mmapzero::learner::WithDefaults,
       .check = &mmapzero::learner::Check,
       .start = &mmapzero::learner::Start});
}
