// mmapzero-learner's config (LearnerServiceConfig,
// proto/service_config.proto) and the one place its values are checked:
// the defaults of every field, and the worker options they make.
#ifndef MMAPZERO_LEARNER_LEARNER_SERVICE_CONFIG_H_
#define MMAPZERO_LEARNER_LEARNER_SERVICE_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "learner/learner_worker.h"
#include "proto/service_config.pb.h"

namespace mmapzero::learner {

// What the service starts from (the worker resolves its device when it
// starts, on the machine that runs it).
struct LearnerServiceSettings {
  LearnerWorkerOptions worker;
  int torch_threads = 1;     // 0: LibTorch's default
  std::string address_file;  // "": none

  bool operator==(const LearnerServiceSettings&) const = default;
};

// `given` over the defaults: listen 127.0.0.1:7072, metrics port 9093 on
// the listen host, capacity 1, parameters published every 10 steps,
// checkpoints at the job's interval, 4 batches prefetched, 1 MiB chunks,
// 10 s replay deadline, device auto, one LibTorch thread.
LearnerServiceConfig WithDefaults(LearnerServiceConfig given);

// The settings of `given` over the defaults; InvalidArgument naming the
// flag of a missing or out-of-range value.
absl::StatusOr<LearnerServiceSettings> LearnerSettingsFromConfig(
    const LearnerServiceConfig& config);

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_LEARNER_SERVICE_CONFIG_H_
