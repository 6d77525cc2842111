// mmapzero-reanalyse's config (ReanalyseServiceConfig,
// proto/service_config.proto) and the one place its values are checked:
// the defaults of every field, and the worker options they make.
#ifndef MMAPZERO_REANALYSE_REANALYSE_SERVICE_CONFIG_H_
#define MMAPZERO_REANALYSE_REANALYSE_SERVICE_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/service_config.pb.h"
#include "reanalyse/reanalyse_worker.h"

namespace mmapzero::reanalyse {

// What the service starts from (the worker's metrics are made at start).
struct ReanalyseServiceSettings {
  ReanalyseWorkerOptions worker;
  std::string metrics_listen;  // "": no /metrics
  int torch_threads = 1;       // 0: LibTorch's default

  bool operator==(const ReanalyseServiceSettings&) const = default;
};

// `given` over the defaults: capacity 1, metrics port 9092 on 127.0.0.1,
// one LibTorch thread, seed 1, 4 trajectories per round.
ReanalyseServiceConfig WithDefaults(ReanalyseServiceConfig given);

// The settings of `given` over the defaults; InvalidArgument naming the
// flag of a missing or out-of-range value.
absl::StatusOr<ReanalyseServiceSettings> ReanalyseSettingsFromConfig(
    const ReanalyseServiceConfig& config);

}  // namespace mmapzero::reanalyse

#endif  // MMAPZERO_REANALYSE_REANALYSE_SERVICE_CONFIG_H_
