// A service's "address file": one line, the host:port a client on this
// machine dials to reach it. Services started with --listen HOST:0 bind a
// free port and write the port they got here (--address-file), so a
// launcher (`mmapctl local up`) needs neither a port race nor log parsing.
#ifndef MMAPZERO_COMMON_BASE_ADDRESS_FILE_H_
#define MMAPZERO_COMMON_BASE_ADDRESS_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmapzero {

// Where services listen unless told otherwise: loopback only, so that a
// service started by hand on a shared machine is not open to the network.
// Deployments that must be reached from other hosts (Kubernetes) pass
// --listen=0.0.0.0:PORT and, for the workers, --metrics-host=0.0.0.0.
inline constexpr char kDefaultListenHost[] = "127.0.0.1";

// The host part of a listen address ("0.0.0.0:7070" -> "0.0.0.0",
// "[::]:7070" -> "[::]"); kDefaultListenHost when it has none.
std::string ListenHost(const std::string& listen);

// The address to dial for a server that listens on `listen` and bound
// `port`: listen's host with the bound port; a wildcard host ("0.0.0.0",
// "[::]", "::", "*", "") becomes 127.0.0.1.
std::string DialableAddress(const std::string& listen, int port);

// The address a --metrics-port flag asks for on `host` (a service's
// ListenHost): "HOST:PORT", or "" (no endpoint) for port 0.
std::string MetricsListenAddress(const std::string& host, int port);

// Writes DialableAddress(listen, port) and a newline to `path`, atomically
// (a reader never sees a partial address). Errors name the path.
absl::Status WriteAddressFile(const std::string& path,
                              const std::string& listen, int port);

// The address in `path`, whitespace trimmed; NotFound naming the path when
// the file does not exist, InvalidArgument when it holds no host:port.
absl::StatusOr<std::string> ReadAddressFile(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_ADDRESS_FILE_H_
