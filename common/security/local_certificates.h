// A small certificate authority for one mmapzero deployment, so that mutual
// TLS needs no tool beyond mmapctl (`mmapctl certs`, and `mmapctl local up`
// for the local cluster): a CA and one certificate per role, ECDSA P-256
// keys, SHA-256 signatures (OpenSSL).
//
// The files of a folder (keys mode 0600):
//   ca.pem ca.key          the CA (keep ca.key off the cluster: it may be
//                          written to a folder of its own, ca_key_dir,
//                          as the local cluster does)
//   worker.pem worker.key  every service's identity (OU=worker): it serves
//                          and calls; subjectAltName mmapzero (the name
//                          clients check, transport_security.h),
//                          localhost, 127.0.0.1 and the extra hosts
//   client.pem client.key  mmapctl's identity (OU=client)
//   admin.pem admin.key    an operator's identity (OU=admin)
//   NAME.pem NAME.key      another client identity, CN=NAME (OU=client),
//                          added by WriteClientCertificate: jobs belong to
//                          the identity that submitted them
#ifndef MMAPZERO_COMMON_SECURITY_LOCAL_CERTIFICATES_H_
#define MMAPZERO_COMMON_SECURITY_LOCAL_CERTIFICATES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/security/access_role.h"
#include "common/security/transport_security.h"

namespace mmapzero::security {

struct IssuedCertificate {
  std::string cert_pem;
  std::string key_pem;
};

struct CertificateSubject {
  std::string common_name;  // the holder, for logs ("actor-0")
  Role role = Role::kClient;
  // subjectAltName entries: IP addresses where they parse as one, else
  // DNS names. Empty: a certificate that only calls (clientAuth).
  std::vector<std::string> hosts;
};

// A new CA (self-signed, `validity` long).
absl::StatusOr<IssuedCertificate> MakeCertificateAuthority(
    const std::string& name, absl::Duration validity);

// A certificate for `subject` signed by `ca`. InvalidArgument when `ca`'s
// PEM does not parse.
absl::StatusOr<IssuedCertificate> IssueCertificate(
    const IssuedCertificate& ca, const CertificateSubject& subject,
    absl::Duration validity);

struct LocalCertificatesOptions {
  std::string dir;
  // Where ca.key goes (a folder of mode 0700, made when missing); "": dir.
  // A folder apart keeps the CA's key out of the one the services are
  // given, so that a service's files never include what signs identities.
  std::string ca_key_dir;
  std::vector<std::string> extra_hosts;  // added to worker.pem's names
  absl::Duration validity = absl::Hours(24 * 365);
};

// Writes the folder described above (created when missing). AlreadyExists
// when it already holds a ca.pem, so that a CA is never replaced by
// accident.
absl::Status WriteLocalCertificates(const LocalCertificatesOptions& options);

// The folder that holds the CA key of certificate folder `dir`:
// `ca_key_dir` when given; else `dir` when it holds ca.key; else the local
// cluster's folder beside it, DIR/../ca (LocalCaKeyDir).
std::string CaKeyDirOf(const std::string& dir, const std::string& ca_key_dir);

// <data dir>/ca: where a local cluster keeps its CA key, beside the
// certificates its services are given (<data dir>/tls).
std::string LocalCaKeyDir(const std::string& data_dir);

// Moves DIR/ca.key into `ca_key_dir` (made with mode 0700 when missing);
// OK and nothing moved when DIR has none. For folders written before the
// key was kept apart.
absl::Status MoveCaKey(const std::string& dir, const std::string& ca_key_dir);

// Adds NAME.pem and NAME.key to a folder written by WriteLocalCertificates:
// a client certificate (OU=client) with common name `name`, signed by the
// folder's CA (its key found by CaKeyDirOf), so that one deployment has
// several client identities. InvalidArgument for a name that is not 1-64
// of [A-Za-z0-9._-] or is one of the folder's own (ca, worker, client,
// admin); NotFound without the CA's files; AlreadyExists when NAME.pem is
// there.
absl::Status WriteClientCertificate(const std::string& dir,
                                    const std::string& name,
                                    absl::Duration validity,
                                    const std::string& ca_key_dir = "");

// The files of `holder` ("worker", "client", "admin") in a folder written
// by WriteLocalCertificates: DIR/ca.pem, DIR/HOLDER.pem, DIR/HOLDER.key.
TransportSecurityFiles CertificateDirFiles(const std::string& dir,
                                           const std::string& holder);

// LoadTransportSecurity of those files.
absl::StatusOr<TransportSecurity> SecurityFromCertificateDir(
    const std::string& dir, const std::string& holder);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_LOCAL_CERTIFICATES_H_
