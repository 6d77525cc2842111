// Structural checks of a workload before anything plays it: every field in
// range and consistent with the others. Errors name the field path and the
// value, e.g. "buffers[12].size: must be > 0, got -5". A buffer larger than
// the fast memory is not an error: it can only be dropped.
#ifndef MMAPZERO_COMMON_WORKLOAD_WORKLOAD_CHECK_H_
#define MMAPZERO_COMMON_WORKLOAD_WORKLOAD_CHECK_H_

#include "absl/status/status.h"
#include "proto/workload.pb.h"

namespace mmapzero {

// OK, or InvalidArgument naming the first offending field and value.
absl::Status CheckWorkload(const Workload& workload);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_WORKLOAD_CHECK_H_
