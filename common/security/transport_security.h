// How a process's gRPC servers and channels are secured, chosen once per
// process (a service's flags, mmapctl's client flags) and used by every
// server StartGrpcServer starts and every channel MakeClientChannel opens:
//
//   - TLS with client certificates (mutual TLS): `ca_pem` verifies peers,
//     `cert_pem`/`key_pem` are this process's identity. Servers ask for a
//     client certificate but do not require one at the handshake, so that
//     a caller without one reaches the handler and is told UNAUTHENTICATED
//     (access_policy.h). Clients check that the server's certificate names
//     `server_name` (one name for every service, so that a learner
//     reached at a pod address verifies like a coordinator reached by a
//     DNS name).
//   - Bearer tokens, for a job API whose TLS ends at a proxy: clients send
//     `authorization: Bearer <bearer_token>`; servers accept the tokens of
//     `accepted_tokens`, each with its role.
//   - Neither: plaintext and no identity (every caller may do everything),
//     for loopback only; the services listen on 127.0.0.1 by default.
#ifndef MMAPZERO_COMMON_SECURITY_TRANSPORT_SECURITY_H_
#define MMAPZERO_COMMON_SECURITY_TRANSPORT_SECURITY_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/security/access_role.h"

namespace mmapzero::security {

// The name every service's certificate carries (subjectAltName DNS).
inline constexpr char kDefaultServerName[] = "mmapzero";

struct TransportSecurity {
  std::string ca_pem;    // empty: no TLS
  std::string cert_pem;  // this process's certificate chain
  std::string key_pem;
  std::string server_name = kDefaultServerName;
  std::string bearer_token;  // sent by this process's channels; "" none
  std::map<std::string, Role> accepted_tokens;  // token -> role (servers)

  bool tls() const { return !ca_pem.empty(); }
  // True when servers check who calls (TLS or accepted tokens).
  bool authenticates() const { return tls() || !accepted_tokens.empty(); }
};

// Where the files are; empty strings are "not given".
struct TransportSecurityFiles {
  std::string ca;                    // --tls-ca
  std::string cert;                  // --tls-cert
  std::string key;                   // --tls-key
  std::string server_name;           // --tls-server-name ("" = default)
  std::string bearer_token_file;     // --bearer-token-file: one token
  std::string accepted_tokens_file;  // --accept-tokens: "ROLE TOKEN" lines

  bool operator==(const TransportSecurityFiles&) const = default;
};

// Reads the files. InvalidArgument naming the flag (and line) when only
// some of ca/cert/key are given, a file cannot be read or is not PEM, a
// token file is empty, or a line of the accepted tokens has an unknown
// role or a token shorter than 16 characters.
absl::StatusOr<TransportSecurity> LoadTransportSecurity(
    const TransportSecurityFiles& files);

// What LoadTransportSecurity checks before reading any file: the three
// mutual-TLS files are given together or not at all.
absl::Status CheckTransportSecurityFiles(const TransportSecurityFiles& files);

// The process-wide choice (default: plaintext, no tokens). Set once, before
// servers start and channels open; reading is thread-safe.
void SetProcessTransportSecurity(TransportSecurity security);
std::shared_ptr<const TransportSecurity> ProcessTransportSecurity();

// Credentials for a server or a channel under `security`; a channel's
// `arguments` get the target name override under TLS.
std::shared_ptr<grpc::ServerCredentials> ServerCredentialsFor(
    const TransportSecurity& security);
std::shared_ptr<grpc::ChannelCredentials> ChannelCredentialsFor(
    const TransportSecurity& security, grpc::ChannelArguments* arguments);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_TRANSPORT_SECURITY_H_
