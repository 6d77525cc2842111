#include "common/service/service_flags.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"

ABSL_FLAG(std::string, config, "",
          "JSON file of this service's config message "
          "(proto/service_config.proto); flags given override its fields");
ABSL_FLAG(bool, print_config, false,
          "print the effective config (file, flags, defaults) as JSON and "
          "exit, or the error and exit 1 when it would not start");
ABSL_FLAG(bool, check_flags, false,
          "check the config and flags and exit (0: they would start) "
          "without starting the service or reading the files they name");

// TransportSecurityConfig: every service.
ABSL_FLAG(std::optional<std::string>, tls_ca, std::nullopt,
          "CA certificate (PEM) that verifies peers; with --tls-cert and "
          "--tls-key turns on mutual TLS");
ABSL_FLAG(std::optional<std::string>, tls_cert, std::nullopt,
          "this service's certificate (PEM; its OU is its role: worker)");
ABSL_FLAG(std::optional<std::string>, tls_key, std::nullopt,
          "this service's private key (PEM)");
ABSL_FLAG(std::optional<std::string>, tls_server_name, std::nullopt,
          "the name the servers' certificates carry (default mmapzero)");
ABSL_FLAG(std::optional<std::string>, bearer_token_file, std::nullopt,
          "a file with the bearer token this service's calls carry");
ABSL_FLAG(std::optional<std::string>, accept_tokens, std::nullopt,
          "a file of 'ROLE TOKEN' lines: bearer tokens this service's "
          "servers accept, with the role each grants");

// WorkerIdentityConfig: every service but the coordinator.
ABSL_FLAG(std::optional<std::string>, coordinator, std::nullopt,
          "the coordinator's host:port");
ABSL_FLAG(std::optional<std::string>, name, std::nullopt,
          "a name for humans (default: the host's)");
ABSL_FLAG(std::optional<int>, capacity, std::nullopt, "jobs served at once");
ABSL_FLAG(std::optional<int>, metrics_port, std::nullopt,
          "Prometheus /metrics port; 0: off");
ABSL_FLAG(std::optional<std::string>, metrics_host, std::nullopt,
          "host /metrics listens on (0.0.0.0: every interface); default: "
          "the --listen host, or 127.0.0.1 for a service without one");

// The services that serve gRPC: coordinator, replay, learner.
ABSL_FLAG(std::optional<std::string>, listen, std::nullopt,
          "gRPC address; 0.0.0.0:PORT for every interface, HOST:0 for a "
          "free port (see --address-file)");
ABSL_FLAG(std::optional<std::string>, advertise, std::nullopt,
          "host:port others dial (default: the listen host, 127.0.0.1 for "
          "a wildcard host, and the bound port)");
ABSL_FLAG(std::optional<std::string>, data_dir, std::nullopt,
          "folder of this service's state (required)");
ABSL_FLAG(std::optional<std::string>, address_file, std::nullopt,
          "once serving, write the host:port to dial to this file");

// The services that run networks (learner, actor, reanalyse) and the ones
// that draw random numbers (replay, actor, reanalyse).
ABSL_FLAG(std::optional<int>, torch_threads, std::nullopt,
          "LibTorch intra-op threads per network call; 0: LibTorch's own "
          "default (one per core)");
ABSL_FLAG(std::optional<uint64_t>, seed, std::nullopt,
          "random seed (mixed with each job id)");

namespace mmapzero::service {

bool IsControlFlag(absl::string_view name) {
  return name == "config" || name == "print_config" || name == "check_flags";
}

bool IsServiceFlagFile(absl::string_view defining_file) {
  return absl::EndsWith(defining_file, "/main.cc") ||
         absl::EndsWith(defining_file, "common/service/service_flags.cc");
}

}  // namespace mmapzero::service
