// A job's best solution checked here, on the client, with the
// engine-independent validator (common/validate), before `mmapctl best`
// or `mmapctl archive` writes it: a user keeps nothing the coordinator
// merely said was valid.
#ifndef MMAPZERO_CLI_VERIFIED_BEST_H_
#define MMAPZERO_CLI_VERIFIED_BEST_H_

#include <string>

#include "absl/status/status.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::cli {

// OK when `solution` is valid for `workload`; DataLoss naming the job, the
// number of violations and the first, and saying nothing was written.
absl::Status CheckBestValid(const std::string& job_id, const Workload& workload,
                            const Solution& solution);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_VERIFIED_BEST_H_
