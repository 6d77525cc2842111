// A service's TransportSecurityConfig (proto/service_config.proto) as the
// files security::LoadTransportSecurity reads: the one mapping from the
// config's fields (and so the flags --tls-ca, --tls-cert, --tls-key,
// --tls-server-name, --bearer-token-file, --accept-tokens) to the files.
#ifndef MMAPZERO_COMMON_SERVICE_TRANSPORT_SECURITY_CONFIG_H_
#define MMAPZERO_COMMON_SERVICE_TRANSPORT_SECURITY_CONFIG_H_

#include "common/security/transport_security.h"
#include "proto/service_config.pb.h"

namespace mmapzero::service {

security::TransportSecurityFiles TransportSecurityFilesFromConfig(
    const TransportSecurityConfig& config);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_TRANSPORT_SECURITY_CONFIG_H_
