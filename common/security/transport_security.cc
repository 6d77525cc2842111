#include "common/security/transport_security.h"

#include <grpcpp/security/server_credentials.h>

#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "common/base/read_file.h"

namespace mmapzero::security {
namespace {

constexpr size_t kMinTokenLength = 16;

absl::StatusOr<std::string> ReadPem(const std::string& flag,
                                    const std::string& path,
                                    const std::string& marker) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", text.status().message()));
  }
  if (text->find("-----BEGIN ") == std::string::npos ||
      text->find(marker) == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, ": ", path, " is not a PEM file with a ", marker));
  }
  return text;
}

absl::StatusOr<std::map<std::string, Role>> ReadAcceptedTokens(
    const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--accept-tokens: ", text.status().message()));
  }
  std::map<std::string, Role> tokens;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    const std::string where =
        absl::StrCat("--accept-tokens: ", path, ":", line_number, ": ");
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "expected 'ROLE TOKEN'"));
    }
    const std::optional<Role> role = ParseRole(fields[0]);
    if (!role.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "role must be client, worker or admin, got '",
                       fields[0], "'"));
    }
    if (fields[1].size() < kMinTokenLength) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "a token must have at least ", kMinTokenLength,
                       " characters, this one has ", fields[1].size()));
    }
    tokens[std::string(fields[1])] = *role;
  }
  if (tokens.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--accept-tokens: ", path, " holds no token"));
  }
  return tokens;
}

ABSL_CONST_INIT absl::Mutex process_security_mutex(absl::kConstInit);
std::shared_ptr<const TransportSecurity> process_security
    ABSL_GUARDED_BY(process_security_mutex);

}  // namespace

absl::Status CheckTransportSecurityFiles(const TransportSecurityFiles& files) {
  const int given =
      !files.ca.empty() + !files.cert.empty() + !files.key.empty();
  if (given != 0 && given != 3) {
    return absl::InvalidArgumentError(
        "--tls-ca, --tls-cert and --tls-key go together: give all three "
        "(mmapctl certs makes them) or none");
  }
  return absl::OkStatus();
}

absl::StatusOr<TransportSecurity> LoadTransportSecurity(
    const TransportSecurityFiles& files) {
  TransportSecurity security;
  if (absl::Status given = CheckTransportSecurityFiles(files); !given.ok()) {
    return given;
  }
  if (!files.ca.empty()) {
    using R = absl::StatusOr<std::string>;
    R ca = ReadPem("tls-ca", files.ca, "CERTIFICATE");
    if (!ca.ok()) return ca.status();
    R cert = ReadPem("tls-cert", files.cert, "CERTIFICATE");
    if (!cert.ok()) return cert.status();
    R key = ReadPem("tls-key", files.key, "PRIVATE KEY");
    if (!key.ok()) return key.status();
    security.ca_pem = *std::move(ca);
    security.cert_pem = *std::move(cert);
    security.key_pem = *std::move(key);
  }
  if (!files.server_name.empty()) security.server_name = files.server_name;
  if (!files.bearer_token_file.empty()) {
    absl::StatusOr<std::string> token = ReadWholeFile(files.bearer_token_file);
    if (!token.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--bearer-token-file: ", token.status().message()));
    }
    security.bearer_token = std::string(absl::StripAsciiWhitespace(*token));
    if (security.bearer_token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--bearer-token-file: ", files.bearer_token_file, " is empty"));
    }
  }
  if (!files.accepted_tokens_file.empty()) {
    absl::StatusOr<std::map<std::string, Role>> tokens =
        ReadAcceptedTokens(files.accepted_tokens_file);
    if (!tokens.ok()) return tokens.status();
    security.accepted_tokens = *std::move(tokens);
  }
  return security;
}

void SetProcessTransportSecurity(TransportSecurity security) {
  auto shared = std::make_shared<const TransportSecurity>(std::move(security));
  absl::MutexLock lock(&process_security_mutex);
  process_security = std::move(shared);
}

std::shared_ptr<const TransportSecurity> ProcessTransportSecurity() {
  absl::MutexLock lock(&process_security_mutex);
  if (process_security == nullptr) {
    process_security = std::make_shared<const TransportSecurity>();
  }
  return process_security;
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentialsFor(
    const TransportSecurity& security) {
  if (!security.tls()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = security.ca_pem;
  options.pem_key_cert_pairs.push_back({security.key_pem, security.cert_pem});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> ChannelCredentialsFor(
    const TransportSecurity& security, grpc::ChannelArguments* arguments) {
  if (!security.tls()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = security.ca_pem;
  options.pem_private_key = security.key_pem;
  options.pem_cert_chain = security.cert_pem;
  arguments->SetSslTargetNameOverride(security.server_name);
  return grpc::SslCredentials(options);
}

}  // namespace mmapzero::security
