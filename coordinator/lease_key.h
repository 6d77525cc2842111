// The coordinator's lease key (common/security/lease_ticket.h): made once
// per data directory and kept there as `lease.key` (mode 0600), so that
// tickets issued before a restart still hold after it and replay servers
// keep the key they were given at registration.
#ifndef MMAPZERO_COORDINATOR_LEASE_KEY_H_
#define MMAPZERO_COORDINATOR_LEASE_KEY_H_

#include <string>

#include "absl/status/statusor.h"

namespace mmapzero::coordinator {

// The key in `data_dir`/lease.key, made there when the file is missing.
// A file of another size is refused naming it (nothing is overwritten).
absl::StatusOr<std::string> LoadOrCreateLeaseKey(const std::string& data_dir);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_LEASE_KEY_H_
