// What every service's thin main shares: shutdown signals waited for on
// the main thread, and the documented dashed flag names (--data-dir) fed to
// absl flags, which spell them with underscores (--data_dir); the whole
// main() of a service that needs nothing more.
#ifndef MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_
#define MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_

#include <signal.h>

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace mmapzero::rpc {

// Blocks SIGTERM and SIGINT in the calling thread and every thread it
// starts afterwards (gRPC's and ours inherit the mask), so that
// WaitForShutdownSignal receives them. Call first thing in main.
sigset_t BlockShutdownSignals();

// Waits for one of `signals`; returns its name ("Terminated").
std::string WaitForShutdownSignal(const sigset_t& signals);

// The machine's host name (a worker's default name for humans), or
// `fallback` when it cannot be read.
std::string HostName(const std::string& fallback);

// A service's whole main(): sets the log component, parses the flags
// (dashed names accepted), calls `run` and turns its error into
// "mmapzero-COMPONENT: message" on stderr and exit status 1.
int RunServiceMain(int argc, char** argv, const std::string& component,
                   const std::string& usage, absl::Status (*run)());

// "--data-dir=x" -> "--data_dir=x"; `storage` owns the strings pointed to.
std::vector<char*> UnderscoreFlagNames(int argc, char** argv,
                                       std::vector<std::string>* storage);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_
