#include "common/rpc/transport_security_flags.h"

#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "common/rpc/transport_security.h"

ABSL_FLAG(std::string, tls_ca, "",
          "CA certificate (PEM) that verifies peers; with --tls-cert and "
          "--tls-key turns on mutual TLS");
ABSL_FLAG(std::string, tls_cert, "",
          "this service's certificate (PEM; its OU is its role: worker)");
ABSL_FLAG(std::string, tls_key, "", "this service's private key (PEM)");
ABSL_FLAG(std::string, tls_server_name, "",
          "the name the servers' certificates carry (default mmapzero)");
ABSL_FLAG(std::string, bearer_token_file, "",
          "a file with the bearer token this service's calls carry");
ABSL_FLAG(std::string, accept_tokens, "",
          "a file of 'ROLE TOKEN' lines: bearer tokens this service's "
          "servers accept, with the role each grants");

namespace mmapzero::rpc {

namespace {

TransportSecurityFiles FilesFromFlags() {
  TransportSecurityFiles files;
  files.ca = absl::GetFlag(FLAGS_tls_ca);
  files.cert = absl::GetFlag(FLAGS_tls_cert);
  files.key = absl::GetFlag(FLAGS_tls_key);
  files.server_name = absl::GetFlag(FLAGS_tls_server_name);
  files.bearer_token_file = absl::GetFlag(FLAGS_bearer_token_file);
  files.accepted_tokens_file = absl::GetFlag(FLAGS_accept_tokens);
  return files;
}

}  // namespace

absl::Status CheckTransportSecurityFlags() {
  return CheckTransportSecurityFiles(FilesFromFlags());
}

absl::Status ApplyTransportSecurityFlags() {
  absl::StatusOr<TransportSecurity> security =
      LoadTransportSecurity(FilesFromFlags());
  if (!security.ok()) return security.status();
  SetProcessTransportSecurity(*std::move(security));
  return absl::OkStatus();
}

}  // namespace mmapzero::rpc
