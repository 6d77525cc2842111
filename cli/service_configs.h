// The services' config files of deploy/k8s/base/config/, built into
// mmapctl so that `mmapctl local up` passes each service the same file
// (--config) as a Kubernetes cluster's ConfigMap does (cli/CMakeLists.txt
// embeds the files at configure time).
#ifndef MMAPZERO_CLI_SERVICE_CONFIGS_H_
#define MMAPZERO_CLI_SERVICE_CONFIGS_H_

#include <string>

#include "cli/local_role.h"

namespace mmapzero::cli {

// The JSON config file of `role`'s service; "" for Prometheus.
std::string ServiceConfigJson(LocalRole role);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_SERVICE_CONFIGS_H_
