#include "common/service/transport_security_config.h"

namespace mmapzero::service {

security::TransportSecurityFiles TransportSecurityFilesFromConfig(
    const TransportSecurityConfig& config) {
  return {.ca = config.tls_ca(),
          .cert = config.tls_cert(),
          .key = config.tls_key(),
          .server_name = config.tls_server_name(),
          .bearer_token_file = config.bearer_token_file(),
          .accepted_tokens_file = config.accept_tokens()};
}

}  // namespace mmapzero::service
