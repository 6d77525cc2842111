// The flags several services share, defined once (service_flags.cc): the
// three that steer a service's main rather than set a config field
// (--config FILE, --print-config, --check-flags), and a flag for each
// field of the shared config messages and each field that more than one
// service's config has (--tls-ca, --coordinator, --listen, --data-dir,
// --torch-threads, --seed, ...). A service's own fields get their flags in
// its main.cc. Every config flag is optional-valued: unset means "not
// given", so a given flag always wins over the file (service_config.h).
#ifndef MMAPZERO_COMMON_SERVICE_SERVICE_FLAGS_H_
#define MMAPZERO_COMMON_SERVICE_SERVICE_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/strings/string_view.h"

ABSL_DECLARE_FLAG(std::string, config);
ABSL_DECLARE_FLAG(bool, print_config);
ABSL_DECLARE_FLAG(bool, check_flags);

namespace mmapzero::service {

// True for the flags above that set no field (config, print_config,
// check_flags).
bool IsControlFlag(absl::string_view name);

// True for a flag defined in `defining_file` when that is service_flags.cc
// or a service's main.cc: a flag that must name a config field (or be a
// control flag). Flags of other libraries (absl's --flagfile, --help) are
// not.
bool IsServiceFlagFile(absl::string_view defining_file);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_SERVICE_FLAGS_H_
