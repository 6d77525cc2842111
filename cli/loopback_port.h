// Free ports on 127.0.0.1 for the services `mmapctl local up` starts.
//
// A service's metrics port is chosen before the service starts (its
// address goes into Prometheus's config and the .metrics file), so it is
// chosen where no other service of the same start can be handed it: below
// the kernel's ephemeral range, from which the kernel picks the port of
// every `--listen 127.0.0.1:0` and every outgoing connection.

#ifndef MMAPZERO_CLI_LOOPBACK_PORT_H_
#define MMAPZERO_CLI_LOOPBACK_PORT_H_

#include <utility>

#include "absl/status/statusor.h"

namespace mmapzero::cli {

// The kernel's ephemeral port range, [first, second]
// (net.ipv4.ip_local_port_range); Linux's default when it cannot be read.
std::pair<int, int> EphemeralPortRange();

// A port on 127.0.0.1 that nothing is bound to now (bound, read, closed),
// drawn at random from [10000, the ephemeral range's start); any free
// port when that range is too small or full. Another process can still
// take it before the service binds it: the caller starts the service
// again on another port when it says so.
absl::StatusOr<int> FreeLoopbackPort();

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_LOOPBACK_PORT_H_
