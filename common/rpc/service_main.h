// What every service's thin main shares: shutdown signals waited for on
// the main thread, and the documented dashed flag names (--data-dir) fed to
// absl flags, which spell them with underscores (--data_dir).
#ifndef MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_
#define MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_

#include <signal.h>

#include <string>
#include <vector>

namespace mmapzero::rpc {

// Blocks SIGTERM and SIGINT in the calling thread and every thread it
// starts afterwards (gRPC's and ours inherit the mask), so that
// WaitForShutdownSignal receives them. Call first thing in main.
sigset_t BlockShutdownSignals();

// Waits for one of `signals`; returns its name ("Terminated").
std::string WaitForShutdownSignal(const sigset_t& signals);

// "--data-dir=x" -> "--data_dir=x"; `storage` owns the strings pointed to.
std::vector<char*> UnderscoreFlagNames(int argc, char** argv,
                                       std::vector<std::string>* storage);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_SERVICE_MAIN_H_
