#include "learner/learner_service_config.h"

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/service/torch_threads.h"
#include "common/service/worker_identity.h"
#include "learner/training_device.h"

namespace mmapzero::learner {
namespace {

absl::Status AtLeast(const char* flag, int64_t value, int64_t low) {
  if (value >= low) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": must be >= ", low, ", got ", value));
}

}  // namespace

LearnerServiceConfig WithDefaults(LearnerServiceConfig given) {
  LearnerServiceConfig config;
  config.mutable_worker()->set_capacity(1);
  config.mutable_worker()->set_metrics_port(9093);
  config.set_listen("127.0.0.1:7072");
  config.set_publish_interval(10);
  config.set_checkpoint_interval(0);
  config.set_prefetch_batches(4);
  config.set_max_chunk_bytes(1 << 20);
  config.set_replay_deadline_ms(10000);
  config.set_device("auto");
  config.set_torch_threads(1);
  config.MergeFrom(given);
  return config;
}

absl::StatusOr<LearnerServiceSettings> LearnerSettingsFromConfig(
    const LearnerServiceConfig& given) {
  const LearnerServiceConfig config = WithDefaults(given);
  LearnerServiceSettings settings;
  LearnerWorkerOptions& o = settings.worker;
  o.listen = config.listen();
  o.advertise = config.advertise();
  o.data_dir = config.data_dir();
  ASSIGN_OR_RETURN(const service::WorkerIdentity identity,
                   service::WorkerIdentityFromConfig(
                       config.worker(), "learner", ListenHost(o.listen),
                       service::CoordinatorIs::kRequired));
  o.coordinator = identity.coordinator;
  o.name = identity.name;
  o.capacity = identity.capacity;
  o.metrics_listen = identity.metrics_listen;
  o.publish_interval = config.publish_interval();
  RETURN_IF_ERROR(
      AtLeast("--checkpoint-interval", config.checkpoint_interval(), 0));
  o.checkpoint_interval = config.checkpoint_interval();
  RETURN_IF_ERROR(AtLeast("--prefetch-batches", config.prefetch_batches(), 1));
  o.prefetch_batches = config.prefetch_batches();
  o.max_chunk_bytes = config.max_chunk_bytes();
  RETURN_IF_ERROR(
      AtLeast("--replay-deadline-ms", config.replay_deadline_ms(), 1));
  o.replay_deadline = absl::Milliseconds(config.replay_deadline_ms());
  RETURN_IF_ERROR(CheckDeviceName(config.device()));
  o.device = config.device();
  ASSIGN_OR_RETURN(settings.torch_threads,
                   service::TorchThreadsFromConfig(config.torch_threads()));
  settings.address_file = config.address_file();
  RETURN_IF_ERROR(CheckLearnerWorkerOptions(o));
  return settings;
}

}  // namespace mmapzero::learner
