// SHA-256 of bytes as 64 lowercase hex digits (OpenSSL): the checksum the
// network registry names networks' and workloads' bytes by, the same
// figure `sha256sum` prints for a file.
#ifndef MMAPZERO_COMMON_SECURITY_SHA256_H_
#define MMAPZERO_COMMON_SECURITY_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

namespace mmapzero::security {

std::string Sha256Hex(absl::string_view bytes);

// Whether `text` looks like Sha256Hex's output (64 lowercase hex digits).
bool IsSha256Hex(absl::string_view text);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_SHA256_H_
