// `mmapctl certs --out DIR [--hosts a,b] [--days 365]`: a CA and one
// certificate per role for a deployment's mutual TLS
// (common/security/local_certificates.h). --hosts adds names and addresses to
// the services' certificate beside mmapzero, localhost and 127.0.0.1.
// `mmapctl certs --out DIR --client NAME`: one more client identity,
// DIR/NAME.{pem,key}, signed by DIR's CA (jobs belong to the identity that
// submitted them, so each user gets one). --ca-key-dir KEYS puts the CA's
// key in a folder of its own, or says where it is; by default DIR, or for
// a local cluster's DIR/../ca.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "common/base/status_macros.h"
#include "common/security/local_certificates.h"

namespace mmapzero::cli {

absl::Status RunCerts(const Args& args) {
  constexpr char kUsage[] =
      "certs --out DIR [--ca-key-dir KEYS] [--hosts NAME,ADDRESS,...] "
      "[--days 365] | certs --out DIR --client NAME [--ca-key-dir KEYS] "
      "[--days 365]";
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(
                       args, {"out", "hosts", "days", "client", "ca-key-dir"},
                       {}));
  RETURN_IF_ERROR(line.ExpectPositional(0, kUsage));
  security::LocalCertificatesOptions options;
  ASSIGN_OR_RETURN(options.dir, line.GetRequired("out", kUsage));
  ASSIGN_OR_RETURN(const int64_t days, line.GetInt("days", 365));
  if (days < 1 || days > 3650) {
    return absl::InvalidArgumentError(
        absl::StrCat("--days: must be in [1, 3650], got ", days));
  }
  options.validity = absl::Hours(24 * days);
  options.ca_key_dir = line.GetString("ca-key-dir", "");
  if (const std::string client = line.GetString("client", "");
      !client.empty()) {
    if (absl::Status written = security::WriteClientCertificate(
            options.dir, client, options.validity, options.ca_key_dir);
        !written.ok()) {
      return FlagError(written.code() == absl::StatusCode::kInvalidArgument
                           ? "client"
                           : "out",
                       written);
    }
    std::cout << "wrote " << options.dir << "/" << client
              << ".{pem,key}: a client identity (CN=" << client
              << "); mmapctl takes --tls-ca " << options.dir
              << "/ca.pem --tls-cert " << options.dir << "/" << client
              << ".pem --tls-key " << options.dir << "/" << client
              << ".key; it sees and cancels only its own jobs\n";
    return absl::OkStatus();
  }
  for (const absl::string_view host :
       absl::StrSplit(line.GetString("hosts", ""), ',', absl::SkipEmpty())) {
    options.extra_hosts.emplace_back(host);
  }
  if (absl::Status written = security::WriteLocalCertificates(options);
      !written.ok()) {
    return FlagError(
        written.code() == absl::StatusCode::kInvalidArgument ? "hosts" : "out",
        written);
  }
  const std::string ca_key =
      (options.ca_key_dir.empty() ? options.dir : options.ca_key_dir) +
      "/ca.key";
  std::cout << "wrote " << options.dir
            << "/{ca,worker,client,admin}.{pem,key} and " << ca_key
            << ": services take --tls-ca "
               "ca.pem --tls-cert worker.pem --tls-key worker.key, mmapctl "
               "the client's (or admin's); keep "
            << ca_key << " off the cluster\n";
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
