// mmapzero-coordinator: the coordinator service (coordinator_server.h).
//   mmapzero-coordinator --listen 127.0.0.1:7070 --data-dir /var/lib/mmapzero
//       [--metrics-port 9090] [--config coordinator.json]
//       [--address-file FILE]
// --address-file: once serving, write the host:port to dial there
// (common/base/address_file.h; `mmapctl local up` passes --listen
// 127.0.0.1:0 and reads the port bound); removed again at shutdown.
// Flags override the config file's fields. SIGTERM or SIGINT shuts down
// gracefully: health NOT_SERVING, in-flight calls finish, the store closes.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/rpc/service_main.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_config.h"
#include "coordinator/coordinator_server.h"

constexpr char kUsage[] =
    "the mmapzero coordinator: jobs, workers, leases, best solutions.\n"
    "  mmapzero-coordinator --data-dir DIR [--listen HOST:PORT] "
    "[--metrics-port N] [--config FILE] [--address-file FILE]";

ABSL_FLAG(std::string, config, "",
          "JSON file of mmapzero.CoordinatorConfig; flags override its fields");
ABSL_FLAG(std::string, listen, "",
          "gRPC address (and /metrics' host), default 127.0.0.1:7070; "
          "0.0.0.0:7070 for every interface");
ABSL_FLAG(std::string, data_dir, "", "folder of coordinator.db (required)");
ABSL_FLAG(int, metrics_port, -1, "Prometheus /metrics port; 0: off");
ABSL_FLAG(std::string, address_file, "",
          "once serving, write the host:port to dial to this file");

namespace mmapzero::coordinator {
namespace {

absl::StatusOr<CoordinatorConfig> ConfigFromFlags() {
  CoordinatorConfig config;
  if (const std::string path = absl::GetFlag(FLAGS_config); !path.empty()) {
    ASSIGN_OR_RETURN(config, LoadCoordinatorConfig(path));
  }
  if (const std::string listen = absl::GetFlag(FLAGS_listen); !listen.empty()) {
    config.set_listen(listen);
  }
  if (const std::string dir = absl::GetFlag(FLAGS_data_dir); !dir.empty()) {
    config.set_data_dir(dir);
  }
  if (const int port = absl::GetFlag(FLAGS_metrics_port); port >= 0) {
    config.set_metrics_port(port);
  }
  if (config.data_dir().empty()) {
    return absl::InvalidArgumentError(
        "--data-dir (or data_dir in --config) is required");
  }
  return config;
}

absl::Status CheckFlags() {
  ASSIGN_OR_RETURN(const CoordinatorConfig config, ConfigFromFlags());
  return ServerOptionsFromConfig(config).status();
}

absl::StatusOr<rpc::StopService> Start() {
  ASSIGN_OR_RETURN(const CoordinatorConfig config, ConfigFromFlags());
  std::cerr << "coordinator config:\n" << ToJson(WithDefaults(config)) << "\n";
  ASSIGN_OR_RETURN(CoordinatorServerOptions options,
                   ServerOptionsFromConfig(config));
  ASSIGN_OR_RETURN(std::unique_ptr<CoordinatorServer> server,
                   CoordinatorServer::Start(std::move(options)));
  const std::string address_file = absl::GetFlag(FLAGS_address_file);
  if (!address_file.empty()) {
    RETURN_IF_ERROR(
        WriteAddressFile(address_file, config.listen(), server->port()));
  }
  return [server = std::move(server), address_file] {
    server->Shutdown();
    if (!address_file.empty()) std::remove(address_file.c_str());
  };
}

}  // namespace
}  // namespace mmapzero::coordinator

int main(int argc, char** argv) {
  return mmapzero::rpc::RunServiceMain(argc, argv, "coordinator", kUsage,
                                       &mmapzero::coordinator::CheckFlags,
                                       &mmapzero::coordinator::Start);
}
