// The flags with which every service chooses its transport security
// (transport_security.h), defined once for all of them:
//   --tls-ca FILE --tls-cert FILE --tls-key FILE   mutual TLS (all three)
//   --tls-server-name NAME    the name servers' certificates carry
//                             (default "mmapzero")
//   --bearer-token-file FILE  a token this service's calls carry
//   --accept-tokens FILE      "ROLE TOKEN" lines its servers accept
// RunServiceMain (service_main.h) applies them before the service starts.
#ifndef MMAPZERO_COMMON_RPC_TRANSPORT_SECURITY_FLAGS_H_
#define MMAPZERO_COMMON_RPC_TRANSPORT_SECURITY_FLAGS_H_

#include "absl/status/status.h"

namespace mmapzero::rpc {

// Loads the files the flags name and makes them the process's transport
// security; an error names the flag and the file.
absl::Status ApplyTransportSecurityFlags();

// Checks the flags' combination (--tls-ca, --tls-cert and --tls-key all or
// none) without reading any file, for --check-flags.
absl::Status CheckTransportSecurityFlags();

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_TRANSPORT_SECURITY_FLAGS_H_
