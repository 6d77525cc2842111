#include "common/security/hmac.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace mmapzero::security {

std::string HmacSha256(absl::string_view key, absl::string_view bytes) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
           mac, &length) == nullptr) {
    return "";
  }
  return std::string(reinterpret_cast<const char*>(mac), length);
}

bool SameMac(absl::string_view a, absl::string_view b) {
  return !a.empty() && a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace mmapzero::security
