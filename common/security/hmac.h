// HMAC-SHA256 (OpenSSL), the one keyed hash the services sign with: lease
// tickets (lease_ticket.h) and worker secrets (worker_secret.h).
#ifndef MMAPZERO_COMMON_SECURITY_HMAC_H_
#define MMAPZERO_COMMON_SECURITY_HMAC_H_

#include <string>

#include "absl/strings/string_view.h"

namespace mmapzero::security {

// The 32-byte MAC of `bytes` under `key`; "" if OpenSSL fails.
std::string HmacSha256(absl::string_view key, absl::string_view bytes);

// Whether `a` and `b` are equal, in time that does not depend on where
// they differ (CRYPTO_memcmp); false for different sizes or empty `a`.
bool SameMac(absl::string_view a, absl::string_view b);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_HMAC_H_
