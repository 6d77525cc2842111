// The one-line summary `generate` and `import` print for the workload they
// wrote: counts and the peak of live bytes against the fast memory.
#ifndef MMAPZERO_CLI_WORKLOAD_SUMMARY_H_
#define MMAPZERO_CLI_WORKLOAD_SUMMARY_H_

#include <string>

#include "proto/workload.pb.h"

namespace mmapzero::cli {

// "PATH: NAME, B buffers, I instructions, T tensors, G alias groups, peak
// live X MiB = R.RRx memory M MiB".
std::string WorkloadSummary(const std::string& path, const Workload& workload);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_WORKLOAD_SUMMARY_H_
