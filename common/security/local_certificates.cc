#include "common/security/local_certificates.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/atomic_file.h"
#include "common/base/plain_name.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/security/transport_security.h"

namespace mmapzero::security {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;
using BioPtr = std::unique_ptr<BIO, decltype(&BIO_free)>;

absl::Status OpenSslError(const std::string& what) {
  char text[256] = "unknown error";
  if (const unsigned long code = ERR_get_error(); code != 0) {
    ERR_error_string_n(code, text, sizeof(text));
  }
  ERR_clear_error();
  return absl::InternalError(absl::StrCat(what, ": ", text));
}

absl::StatusOr<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  if (key == nullptr) return OpenSslError("generating a P-256 key");
  return key;
}

template <typename Write>
absl::StatusOr<std::string> ToPem(const std::string& what, Write write) {
  BioPtr bio(BIO_new(BIO_s_mem()), BIO_free);
  if (bio == nullptr || write(bio.get()) != 1) {
    return OpenSslError(absl::StrCat("writing ", what));
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

absl::StatusOr<IssuedCertificate> ToIssued(X509* cert, EVP_PKEY* key) {
  IssuedCertificate issued;
  absl::StatusOr<std::string> cert_pem =
      ToPem("a certificate",
            [cert](BIO* bio) { return PEM_write_bio_X509(bio, cert); });
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ToPem("a private key", [key](BIO* bio) {
    return PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr,
                                    nullptr);
  });
  if (!key_pem.ok()) return key_pem.status();
  issued.cert_pem = *std::move(cert_pem);
  issued.key_pem = *std::move(key_pem);
  return issued;
}

// A v3 certificate for `key` with a random serial, valid from an hour ago
// (clock skew) for `validity`, subject O=mmapzero[,OU=role],CN=name.
absl::StatusOr<CertPtr> NewCertificate(EVP_PKEY* key, const std::string& name,
                                       std::optional<Role> role,
                                       absl::Duration validity) {
  CertPtr cert(X509_new(), X509_free);
  if (cert == nullptr) return OpenSslError("X509_new");
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) {
    return OpenSslError("drawing a serial number");
  }
  serial[0] &= 0x7f;  // positive
  BIGNUM* number = BN_bin2bn(serial, sizeof(serial), nullptr);
  const bool serial_set =
      number != nullptr &&
      BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert.get())) != nullptr;
  BN_free(number);
  const auto add_name = [&](const char* field, const std::string& value) {
    return X509_NAME_add_entry_by_txt(
               X509_get_subject_name(cert.get()), field, MBSTRING_UTF8,
               reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
               0) == 1;
  };
  if (!serial_set || X509_set_version(cert.get(), 2) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                      absl::ToInt64Seconds(validity)) == nullptr ||
      X509_set_pubkey(cert.get(), key) != 1 || !add_name("O", "mmapzero") ||
      (role.has_value() && !add_name("OU", RoleName(*role))) ||
      !add_name("CN", name)) {
    return OpenSslError(absl::StrCat("building the certificate of ", name));
  }
  return cert;
}

absl::Status AddExtension(X509* cert, X509* issuer, int nid,
                          const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension =
      X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (extension == nullptr) {
    return OpenSslError(
        absl::StrCat("extension ", OBJ_nid2sn(nid), " = ", value));
  }
  const int added = X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
  if (added != 1) return OpenSslError("X509_add_ext");
  return absl::OkStatus();
}

// DIR/HOLDER.key (mode 0600), then DIR/HOLDER.pem: a holder's files are
// complete once its certificate is there.
// The key in key_dir, the certificate in dir.
absl::Status WriteHolder(const std::string& dir, const std::string& holder,
                         const IssuedCertificate& certificate,
                         const std::string& key_dir) {
  RETURN_IF_ERROR(WriteFileAtomically(absl::StrCat(key_dir, "/", holder, ".key"),
                                      certificate.key_pem, 0600));
  return WriteFileAtomically(absl::StrCat(dir, "/", holder, ".pem"),
                             certificate.cert_pem, 0644);
}

// `dir`, made when missing, readable by its owner only.
absl::Status MakePrivateFolder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(dir, error);
  if (!error) fs::permissions(dir, fs::perms::owner_all, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        dir, ": cannot make the CA key's folder: ", error.message()));
  }
  return absl::OkStatus();
}

bool IsIpAddress(const std::string& host) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

// Host names and addresses only: nothing that could end the extension's
// value and start another.
absl::Status CheckHost(const std::string& host) {
  if (host.empty() || host.size() > 253) {
    return absl::InvalidArgumentError(
        absl::StrCat("host '", host, "': must have 1 to 253 characters"));
  }
  for (const char c : host) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '-' && c != ':' && c != '*') {
      return absl::InvalidArgumentError(absl::StrCat(
          "host '", host, "': only letters, digits, '.', '-', ':' and '*'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<IssuedCertificate> MakeCertificateAuthority(
    const std::string& name, absl::Duration validity) {
  absl::StatusOr<KeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  absl::StatusOr<CertPtr> cert =
      NewCertificate(key->get(), name, std::nullopt, validity);
  if (!cert.ok()) return cert.status();
  X509* ca = cert->get();
  if (X509_set_issuer_name(ca, X509_get_subject_name(ca)) != 1) {
    return OpenSslError("X509_set_issuer_name");
  }
  for (const auto& [nid, value] : std::vector<std::pair<int, std::string>>{
           {NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
           {NID_key_usage, "critical,keyCertSign,cRLSign"},
           {NID_subject_key_identifier, "hash"}}) {
    if (absl::Status added = AddExtension(ca, ca, nid, value); !added.ok()) {
      return added;
    }
  }
  if (X509_sign(ca, key->get(), EVP_sha256()) == 0) {
    return OpenSslError("signing the CA certificate");
  }
  return ToIssued(ca, key->get());
}

absl::StatusOr<IssuedCertificate> IssueCertificate(
    const IssuedCertificate& ca, const CertificateSubject& subject,
    absl::Duration validity) {
  for (const std::string& host : subject.hosts) {
    if (absl::Status valid = CheckHost(host); !valid.ok()) return valid;
  }
  BioPtr ca_cert_bio(
      BIO_new_mem_buf(ca.cert_pem.data(), static_cast<int>(ca.cert_pem.size())),
      BIO_free);
  CertPtr ca_cert(
      PEM_read_bio_X509(ca_cert_bio.get(), nullptr, nullptr, nullptr),
      X509_free);
  BioPtr ca_key_bio(
      BIO_new_mem_buf(ca.key_pem.data(), static_cast<int>(ca.key_pem.size())),
      BIO_free);
  KeyPtr ca_key(
      PEM_read_bio_PrivateKey(ca_key_bio.get(), nullptr, nullptr, nullptr),
      EVP_PKEY_free);
  if (ca_cert == nullptr || ca_key == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "the CA's certificate or key is not PEM that OpenSSL can read");
  }
  absl::StatusOr<KeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  absl::StatusOr<CertPtr> cert =
      NewCertificate(key->get(), subject.common_name, subject.role, validity);
  if (!cert.ok()) return cert.status();
  if (X509_set_issuer_name(cert->get(), X509_get_subject_name(ca_cert.get())) !=
      1) {
    return OpenSslError("X509_set_issuer_name");
  }
  std::vector<std::pair<int, std::string>> extensions = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature"},
      {NID_ext_key_usage,
       subject.hosts.empty() ? "clientAuth" : "serverAuth,clientAuth"},
      {NID_subject_key_identifier, "hash"},
      {NID_authority_key_identifier, "keyid:always"}};
  if (!subject.hosts.empty()) {
    std::vector<std::string> names;
    for (const std::string& host : subject.hosts) {
      names.push_back(absl::StrCat(IsIpAddress(host) ? "IP:" : "DNS:", host));
    }
    extensions.emplace_back(NID_subject_alt_name, absl::StrJoin(names, ","));
  }
  for (const auto& [nid, value] : extensions) {
    if (absl::Status added =
            AddExtension(cert->get(), ca_cert.get(), nid, value);
        !added.ok()) {
      return added;
    }
  }
  if (X509_sign(cert->get(), ca_key.get(), EVP_sha256()) == 0) {
    return OpenSslError(
        absl::StrCat("signing the certificate of ", subject.common_name));
  }
  return ToIssued(cert->get(), key->get());
}

absl::Status WriteLocalCertificates(const LocalCertificatesOptions& options) {
  namespace fs = std::filesystem;
  const fs::path dir(options.dir);
  if (fs::exists(dir / "ca.pem")) {
    return absl::AlreadyExistsError(absl::StrCat(
        (dir / "ca.pem").string(),
        " exists: this folder already has a CA (remove it to start anew)"));
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        options.dir, ": cannot create the folder: ", error.message()));
  }
  absl::StatusOr<IssuedCertificate> ca =
      MakeCertificateAuthority("mmapzero local CA", options.validity);
  if (!ca.ok()) return ca.status();
  std::vector<std::string> service_hosts = {kDefaultServerName, "localhost",
                                            "127.0.0.1"};
  service_hosts.insert(service_hosts.end(), options.extra_hosts.begin(),
                       options.extra_hosts.end());
  const std::vector<std::pair<std::string, CertificateSubject>> holders = {
      {"worker", {"mmapzero-worker", Role::kWorker, service_hosts}},
      {"client", {"mmapzero-client", Role::kClient, {}}},
      {"admin", {"mmapzero-admin", Role::kAdmin, {}}}};
  std::vector<std::pair<std::string, IssuedCertificate>> issued;
  for (const auto& [file, subject] : holders) {
    absl::StatusOr<IssuedCertificate> one =
        IssueCertificate(*ca, subject, options.validity);
    if (!one.ok()) return one.status();
    issued.emplace_back(file, *std::move(one));
  }
  // Leaves first and the CA last: a folder with a ca.pem is complete.
  for (const auto& [file, certificate] : issued) {
    RETURN_IF_ERROR(WriteHolder(options.dir, file, certificate, options.dir));
  }
  if (options.ca_key_dir.empty()) {
    return WriteHolder(options.dir, "ca", *ca, options.dir);
  }
  RETURN_IF_ERROR(MakePrivateFolder(options.ca_key_dir));
  return WriteHolder(options.dir, "ca", *ca, options.ca_key_dir);
}

std::string CaKeyDirOf(const std::string& dir, const std::string& ca_key_dir) {
  namespace fs = std::filesystem;
  if (!ca_key_dir.empty()) return ca_key_dir;
  if (fs::exists(fs::path(dir) / "ca.key")) return dir;
  return (fs::path(dir).parent_path() / "ca").string();
}

std::string LocalCaKeyDir(const std::string& data_dir) {
  return data_dir + "/ca";
}

absl::Status MoveCaKey(const std::string& dir, const std::string& ca_key_dir) {
  namespace fs = std::filesystem;
  const fs::path from = fs::path(dir) / "ca.key";
  if (!fs::exists(from)) return absl::OkStatus();
  RETURN_IF_ERROR(MakePrivateFolder(ca_key_dir));
  std::error_code error;
  fs::rename(from, fs::path(ca_key_dir) / "ca.key", error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        from.string(), ": cannot move it to ", ca_key_dir, ": ",
        error.message()));
  }
  return absl::OkStatus();
}

absl::Status WriteClientCertificate(const std::string& dir,
                                    const std::string& name,
                                    absl::Duration validity,
                                    const std::string& ca_key_dir) {
  namespace fs = std::filesystem;
  const auto bad = [&name](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("client name '", name.substr(0, 64), "': ", why));
  };
  if (name.empty() || name.size() > 64) return bad("1 to 64 characters");
  if (!IsPlainName(name)) return bad("letters, digits, '.', '_' and '-' only");
  for (const char* own : {"ca", "worker", "client", "admin"}) {
    if (name == own) return bad("the folder's own certificate has that name");
  }
  const fs::path folder(dir);
  if (fs::exists(folder / (name + ".pem"))) {
    return absl::AlreadyExistsError(absl::StrCat(
        (folder / (name + ".pem")).string(),
        " exists: that client has a certificate already"));
  }
  IssuedCertificate ca;
  for (const auto& [path, out] :
       {std::pair{folder / "ca.pem", &ca.cert_pem},
        std::pair{fs::path(CaKeyDirOf(dir, ca_key_dir)) / "ca.key",
                  &ca.key_pem}}) {
    absl::StatusOr<std::string> bytes = ReadWholeFile(path.string());
    if (!bytes.ok()) {
      return absl::NotFoundError(absl::StrCat(
          path.string(), ": cannot read the CA (`mmapctl certs --out ", dir,
          "` writes it): ", bytes.status().message()));
    }
    *out = *std::move(bytes);
  }
  absl::StatusOr<IssuedCertificate> issued =
      IssueCertificate(ca, {name, Role::kClient, {}}, validity);
  if (!issued.ok()) return issued.status();
  return WriteHolder(dir, name, *issued, dir);
}

TransportSecurityFiles CertificateDirFiles(const std::string& dir,
                                           const std::string& holder) {
  TransportSecurityFiles files;
  files.ca = dir + "/ca.pem";
  files.cert = absl::StrCat(dir, "/", holder, ".pem");
  files.key = absl::StrCat(dir, "/", holder, ".key");
  return files;
}

absl::StatusOr<TransportSecurity> SecurityFromCertificateDir(
    const std::string& dir, const std::string& holder) {
  return LoadTransportSecurity(CertificateDirFiles(dir, holder));
}

}  // namespace mmapzero::security
