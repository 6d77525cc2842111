// For tests: a CA and one certificate per role in a folder
// (local_certificates.h), and each holder's transport security from it,
// so that a test calls real servers as a client, worker or admin.
#ifndef MMAPZERO_COMMON_SECURITY_TEST_CERTIFICATES_H_
#define MMAPZERO_COMMON_SECURITY_TEST_CERTIFICATES_H_

#include <string>
#include <utility>

#include "common/security/local_certificates.h"
#include "common/security/transport_security.h"
#include "gtest/gtest.h"

namespace mmapzero::security {

class TestCertificates {
 public:
  // Writes the CA and the role certificates into `dir` (made).
  explicit TestCertificates(std::string dir) : dir_(std::move(dir)) {
    LocalCertificatesOptions options;
    options.dir = dir_;
    const absl::Status written = WriteLocalCertificates(options);
    EXPECT_TRUE(written.ok()) << written;
  }

  // "client", "worker", "admin", or a client added with
  // WriteClientCertificate; plaintext (and a test failure) when missing.
  TransportSecurity Identity(const std::string& holder) const {
    absl::StatusOr<TransportSecurity> security =
        SecurityFromCertificateDir(dir_, holder);
    EXPECT_TRUE(security.ok()) << security.status();
    return security.ok() ? *security : TransportSecurity();
  }

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_TEST_CERTIFICATES_H_
