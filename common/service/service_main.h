// A service's whole main(), written once: the shutdown signals blocked
// before any thread starts and waited for on the main thread; the flags
// parsed (dashed names accepted: --data-dir for absl's --data_dir); the
// service's config read (service_config.h: --config FILE, then the flags
// given, then the service's defaults); --print-config and --check-flags
// answered; the transport security of the config's `security` applied;
// the service started, and stopped on SIGTERM or SIGINT after the
// "shutting_down" log line. A service says only what its defaults are,
// how its config is checked, and how it starts from it.
#ifndef MMAPZERO_COMMON_SERVICE_SERVICE_MAIN_H_
#define MMAPZERO_COMMON_SERVICE_SERVICE_MAIN_H_

#include <signal.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace mmapzero::service {

// Stops what a service's start function started. Called once, on SIGTERM
// or SIGINT, after the "shutting_down" log line.
using StopService = absl::AnyInvocable<void() &&>;

// What a service's main.cc gives RunServiceMain, for its config message
// `Config` (proto/service_config.proto), which must have a
// TransportSecurityConfig field named `security`.
template <typename Config>
struct ServiceDefinition {
  std::string component;  // "replay": the log lines', "mmapzero-replay"
  std::string usage;      // --help's first lines
  // The effective config: the given fields over the service's defaults.
  Config (*with_defaults)(Config given);
  // Checks the effective config as `start` would, without starting
  // anything or reading the files it names (--check-flags, so that a
  // deploy manifest's command line is checked by the real parser on a
  // machine without the cluster's secrets); an error names the flag.
  absl::Status (*check)(const Config& config);
  absl::StatusOr<StopService> (*start)(const Config& config);
};

// The type-free form RunServiceMain passes to RunService.
struct ServiceHooks {
  std::string component;
  std::string usage;
  std::function<void(google::protobuf::Message*)> apply_defaults;
  std::function<absl::Status(const google::protobuf::Message&)> check;
  std::function<absl::StatusOr<StopService>(const google::protobuf::Message&)>
      start;
};

// Runs the service (see the file comment); returns main's exit status: 0
// after a clean stop, after --print-config or a passing --check-flags; 1
// with "mmapzero-COMPONENT: message" on stderr for a bad flag, config or
// start.
int RunService(int argc, char** argv, google::protobuf::Message* config,
               const ServiceHooks& hooks);

template <typename Config>
int RunServiceMain(int argc, char** argv,
                   const ServiceDefinition<Config>& service) {
  Config config;
  return RunService(
      argc, argv, &config,
      {.component = service.component,
       .usage = service.usage,
       .apply_defaults =
           [&service](google::protobuf::Message* message) {
             auto* typed = static_cast<Config*>(message);
             *typed = service.with_defaults(*typed);
           },
       .check =
           [&service](const google::protobuf::Message& message) {
             return service.check(static_cast<const Config&>(message));
           },
       .start =
           [&service](const google::protobuf::Message& message) {
             return service.start(static_cast<const Config&>(message));
           }});
}

// The exit status of a service that stops because the cluster refuses it
// for good (a worker whose certificate or token the coordinator does not
// accept as a worker's): EX_CONFIG, a setup to fix rather than a crash.
inline constexpr int kExitRefused = 78;

// Asks the service's main (RunService) to stop as on SIGTERM and then to
// exit with `exit_code`: for a service that cannot go on. False when no
// RunService runs in this process (a test); the caller then stops what it
// runs by itself.
bool RequestShutdown(int exit_code);

// Blocks SIGTERM and SIGINT in the calling thread and every thread it
// starts afterwards (gRPC's and ours inherit the mask), so that
// WaitForShutdownSignal receives them. Call first thing in main.
sigset_t BlockShutdownSignals();

// Waits for one of `signals`; returns its name ("Terminated").
std::string WaitForShutdownSignal(const sigset_t& signals);

// The machine's host name (a worker's default name for humans), or
// `fallback` when it cannot be read.
std::string HostName(const std::string& fallback);

// "--data-dir=x" -> "--data_dir=x"; `storage` owns the strings pointed to.
std::vector<char*> UnderscoreFlagNames(int argc, char** argv,
                                       std::vector<std::string>* storage);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_SERVICE_MAIN_H_
