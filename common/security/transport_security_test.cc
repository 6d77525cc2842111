// Roles from certificate subjects, the transport security files and their
// errors, and the local CA's certificates: what they name, what they may
// do, and that a folder's CA is never replaced.
#include "common/security/transport_security.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "common/base/atomic_file.h"
#include "common/security/access_policy.h"
#include "common/security/access_role.h"
#include "common/security/local_certificates.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::security {
namespace {

using ::testing::HasSubstr;

class TempFolder {
 public:
  TempFolder() {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "tls_XXXXXX").string();
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(AccessRoleTest, RoleIsTheSubjectsOrganizationalUnit) {
  EXPECT_EQ(RoleFromSubject("CN=actor-0,OU=worker,O=mmapzero"), Role::kWorker);
  EXPECT_EQ(RoleFromSubject("OU=admin"), Role::kAdmin);
  EXPECT_EQ(RoleFromSubject("CN=x,OU=client"), Role::kClient);
  EXPECT_EQ(RoleFromSubject("CN=worker,O=mmapzero"), std::nullopt);
  EXPECT_EQ(RoleFromSubject("CN=a,OU=operator"), std::nullopt);
  // An escaped separator stays in the common name: no OU here.
  EXPECT_EQ(RoleFromSubject("CN=a\\,OU=admin,O=mmapzero"), std::nullopt);
  EXPECT_EQ(RoleFromSubject(""), std::nullopt);
}

TEST(AccessRoleTest, PolicyTableGivesEachRoleItsMethods) {
  EXPECT_TRUE(RoleMayCall(Role::kClient, "SubmitJob"));
  EXPECT_FALSE(RoleMayCall(Role::kClient, "InsertTrajectories"));
  EXPECT_FALSE(RoleMayCall(Role::kClient, "Register"));
  EXPECT_TRUE(RoleMayCall(Role::kWorker, "InsertTrajectories"));
  EXPECT_FALSE(RoleMayCall(Role::kWorker, "CancelJob"));
  EXPECT_TRUE(RoleMayCall(Role::kAdmin, "CancelJob"));
  EXPECT_TRUE(RoleMayCall(Role::kAdmin, "FetchParameters"));
  EXPECT_FALSE(RoleMayCall(Role::kAdmin, "SomeNewMethod"));  // default deny
}

TEST(TransportSecurityTest, NoFilesIsPlaintextWithoutAuthentication) {
  absl::StatusOr<TransportSecurity> security =
      LoadTransportSecurity(TransportSecurityFiles());
  ASSERT_TRUE(security.ok());
  EXPECT_FALSE(security->tls());
  EXPECT_FALSE(security->authenticates());
  EXPECT_EQ(security->server_name, "mmapzero");
}

TEST(TransportSecurityTest, BadFilesAreRefusedNamingTheFlag) {
  TempFolder folder;
  const std::string text = folder.path() + "/text";
  ASSERT_TRUE(WriteFileAtomically(text, "not a certificate\n").ok());
  TransportSecurityFiles files;
  files.ca = text;
  EXPECT_THAT(LoadTransportSecurity(files).status().message(),
              HasSubstr("go together"));
  files.cert = text;
  files.key = text;
  EXPECT_THAT(LoadTransportSecurity(files).status().message(),
              HasSubstr("--tls-ca: " + text + " is not a PEM file"));
  files.ca = folder.path() + "/missing.pem";
  EXPECT_THAT(LoadTransportSecurity(files).status().message(),
              HasSubstr("--tls-ca: " + folder.path() + "/missing.pem"));

  TransportSecurityFiles tokens;
  tokens.accepted_tokens_file = text;
  ASSERT_TRUE(WriteFileAtomically(text, "root 0123456789abcdef\n").ok());
  EXPECT_THAT(
      LoadTransportSecurity(tokens).status().message(),
      HasSubstr(":1: role must be client, worker or admin, got 'root'"));
  ASSERT_TRUE(WriteFileAtomically(text, "\nclient short\n").ok());
  EXPECT_THAT(LoadTransportSecurity(tokens).status().message(),
              HasSubstr(":2: a token must have at least 16 characters"));
  ASSERT_TRUE(WriteFileAtomically(text, "# nothing\n").ok());
  EXPECT_THAT(LoadTransportSecurity(tokens).status().message(),
              HasSubstr("holds no token"));
  TransportSecurityFiles empty_token;
  empty_token.bearer_token_file = text;
  ASSERT_TRUE(WriteFileAtomically(text, " \n").ok());
  EXPECT_THAT(LoadTransportSecurity(empty_token).status().message(),
              HasSubstr("--bearer-token-file: " + text + " is empty"));
}

// The subject and subjectAltName of a PEM certificate, as OpenSSL prints
// them.
std::string Describe(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (cert == nullptr) return "unreadable";
  BIO* out = BIO_new(BIO_s_mem());
  X509_NAME_print_ex(out, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  BIO_puts(out, " SAN:");
  const int index = X509_get_ext_by_NID(cert, NID_subject_alt_name, -1);
  if (index >= 0) X509V3_EXT_print(out, X509_get_ext(cert, index), 0, 0);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  std::string text(data, static_cast<size_t>(size));
  BIO_free(out);
  X509_free(cert);
  return text;
}

TEST(LocalCertificatesTest, WritesOneCertificatePerRoleAndPrivateKeys) {
  TempFolder folder;
  LocalCertificatesOptions options;
  options.dir = folder.path() + "/tls";
  options.extra_hosts = {"coordinator.mmapzero.svc", "10.0.0.7"};
  ASSERT_TRUE(WriteLocalCertificates(options).ok());
  for (const std::string holder : {"worker", "client", "admin"}) {
    absl::StatusOr<TransportSecurity> security =
        SecurityFromCertificateDir(options.dir, holder);
    ASSERT_TRUE(security.ok()) << security.status();
    EXPECT_THAT(Describe(security->cert_pem), HasSubstr("OU=" + holder));
    struct stat key {};
    ASSERT_EQ(stat((options.dir + "/" + holder + ".key").c_str(), &key), 0);
    EXPECT_EQ(key.st_mode & 0777, 0600u) << holder;
  }
  const std::string worker =
      Describe(SecurityFromCertificateDir(options.dir, "worker")->cert_pem);
  EXPECT_THAT(worker, HasSubstr("DNS:mmapzero"));
  EXPECT_THAT(worker, HasSubstr("DNS:coordinator.mmapzero.svc"));
  EXPECT_THAT(worker, HasSubstr("IP Address:10.0.0.7"));
  EXPECT_THAT(
      Describe(SecurityFromCertificateDir(options.dir, "client")->cert_pem),
      ::testing::Not(HasSubstr("DNS:")));
}

TEST(LocalCertificatesTest, NeverReplacesAFoldersCa) {
  TempFolder folder;
  LocalCertificatesOptions options;
  options.dir = folder.path();
  ASSERT_TRUE(WriteLocalCertificates(options).ok());
  const std::string before =
      SecurityFromCertificateDir(folder.path(), "client")->ca_pem;
  const absl::Status again = WriteLocalCertificates(options);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(SecurityFromCertificateDir(folder.path(), "client")->ca_pem,
            before);
}

TEST(LocalCertificatesTest, TheCaKeyCanBeKeptApart) {
  TempFolder folder;
  LocalCertificatesOptions options;
  options.dir = folder.path() + "/tls";
  options.ca_key_dir = LocalCaKeyDir(folder.path());
  ASSERT_TRUE(WriteLocalCertificates(options).ok());
  EXPECT_FALSE(std::filesystem::exists(options.dir + "/ca.key"));
  struct stat key {};
  ASSERT_EQ(stat((options.ca_key_dir + "/ca.key").c_str(), &key), 0);
  EXPECT_EQ(key.st_mode & 0777, 0600u);
  struct stat keys {};
  ASSERT_EQ(stat(options.ca_key_dir.c_str(), &keys), 0);
  EXPECT_EQ(keys.st_mode & 0777, 0700u);
  // A client identity is signed with the key found beside the folder.
  EXPECT_EQ(CaKeyDirOf(options.dir, ""), options.ca_key_dir);
  ASSERT_TRUE(WriteClientCertificate(options.dir, "bob", absl::Hours(1)).ok());
  absl::StatusOr<TransportSecurity> bob =
      SecurityFromCertificateDir(options.dir, "bob");
  ASSERT_TRUE(bob.ok()) << bob.status();
  EXPECT_THAT(Describe(bob->cert_pem), HasSubstr("CN=bob"));

  // A folder written with its key inside gives it up to the folder apart.
  TempFolder older;
  LocalCertificatesOptions inside;
  inside.dir = older.path() + "/tls";
  ASSERT_TRUE(WriteLocalCertificates(inside).ok());
  EXPECT_EQ(CaKeyDirOf(inside.dir, ""), inside.dir);
  const std::string apart = LocalCaKeyDir(older.path());
  ASSERT_TRUE(MoveCaKey(inside.dir, apart).ok());
  EXPECT_FALSE(std::filesystem::exists(inside.dir + "/ca.key"));
  EXPECT_TRUE(std::filesystem::exists(apart + "/ca.key"));
  EXPECT_TRUE(MoveCaKey(inside.dir, apart).ok());  // nothing left to move
  EXPECT_TRUE(WriteClientCertificate(inside.dir, "carol", absl::Hours(1)).ok());
  // Without the key anywhere: NotFound naming where it looked.
  std::filesystem::remove(apart + "/ca.key");
  const absl::Status none =
      WriteClientCertificate(inside.dir, "dave", absl::Hours(1));
  EXPECT_EQ(none.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(none.message(), HasSubstr(apart + "/ca.key"));
}

TEST(LocalCertificatesTest, HostThatCouldInjectAnExtensionIsRefused) {
  absl::StatusOr<IssuedCertificate> ca =
      MakeCertificateAuthority("test", absl::Hours(1));
  ASSERT_TRUE(ca.ok()) << ca.status();
  CertificateSubject subject{"x", Role::kWorker, {"a,DNS:evil"}};
  const absl::Status refused =
      IssueCertificate(*ca, subject, absl::Hours(1)).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("host 'a,DNS:evil'"));
  EXPECT_EQ(
      IssueCertificate(IssuedCertificate{"x", "y"}, subject, absl::Hours(1))
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mmapzero::security
