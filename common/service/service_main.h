// What every service's thin main shares: shutdown signals blocked before
// any thread starts and waited for on the main thread, and the documented
// dashed flag names (--data-dir) fed to absl flags, which spell them with
// underscores (--data_dir). RunServiceMain is a service's whole main(): the
// service says only how it starts from its flags and how it stops, so the
// signal handling and the "shutting_down" log line are written once.
#ifndef MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_
#define MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_

#include <signal.h>

#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"

namespace mmapzero::rpc {

// Stops what a service's start function started. Called once, on SIGTERM
// or SIGINT, after the "shutting_down" log line.
using StopService = absl::AnyInvocable<void() &&>;

// Starts a service from its parsed flags; an error names the flag.
using StartService = absl::StatusOr<StopService> (*)();

// Checks a service's parsed flags as its start function would, without
// starting anything or reading the files they name (other than config
// files whose contents are flags): what `--check-flags` runs, so that a
// deploy manifest's command line is checked against the real parser
// (scripts/check-deploy) on a machine without the cluster's secrets.
using CheckServiceFlags = absl::Status (*)();

// Blocks SIGTERM and SIGINT in the calling thread and every thread it
// starts afterwards (gRPC's and ours inherit the mask), so that
// WaitForShutdownSignal receives them. Call first thing in main.
sigset_t BlockShutdownSignals();

// Waits for one of `signals`; returns its name ("Terminated").
std::string WaitForShutdownSignal(const sigset_t& signals);

// The machine's host name (a worker's default name for humans), or
// `fallback` when it cannot be read.
std::string HostName(const std::string& fallback);

// A service's whole main(): sets the log component, blocks the shutdown
// signals, parses the flags (dashed names accepted), applies the transport
// security flags (transport_security_flags.h) and calls `start`; then
// waits for SIGTERM or SIGINT, logs "shutting_down" with the signal and
// stops the service. An error from `start` becomes
// "mmapzero-COMPONENT: message" on stderr and exit status 1, as does an
// argument that is not a flag. With
// --check-flags it runs `check` instead of starting: "flags ok" on stdout
// and exit 0, or the error and exit 1.
int RunServiceMain(int argc, char** argv, const std::string& component,
                   const std::string& usage, CheckServiceFlags check,
                   StartService start);

// "--data-dir=x" -> "--data_dir=x"; `storage` owns the strings pointed to.
std::vector<char*> UnderscoreFlagNames(int argc, char** argv,
                                       std::vector<std::string>* storage);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_
