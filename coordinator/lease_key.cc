#include "coordinator/lease_key.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/security/lease_ticket.h"

namespace mmapzero::coordinator {

absl::StatusOr<std::string> LoadOrCreateLeaseKey(const std::string& data_dir) {
  const std::string path =
      (std::filesystem::path(data_dir) / "lease.key").string();
  std::error_code error;
  if (std::filesystem::exists(path, error)) {
    ASSIGN_OR_RETURN(std::string key, ReadWholeFile(path));
    if (key.size() != static_cast<size_t>(security::kLeaseKeyBytes)) {
      return absl::DataLossError(absl::StrCat(
          path, ": ", key.size(), " bytes, a lease key has ",
          security::kLeaseKeyBytes,
          "; move it away to make a new key (workers then take new lease "
          "tickets at their next heartbeat)"));
    }
    return key;
  }
  ASSIGN_OR_RETURN(std::string key, security::NewLeaseKey());
  RETURN_IF_ERROR(WriteFileAtomically(path, key, 0600));
  return key;
}

}  // namespace mmapzero::coordinator
