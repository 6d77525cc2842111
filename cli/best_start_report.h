// How a job's self-play used the best game so far (JobStatus.best_starts
// and the fields after it), in one line for `status` and `solve`. A job
// whose games mostly rejoin the best unchanged, with a wide window, is
// replaying its best rather than searching around it: the figure that
// tells why one job plays more or fewer games than another.
#ifndef MMAPZERO_CLI_BEST_START_REPORT_H_
#define MMAPZERO_CLI_BEST_START_REPORT_H_

#include <string>

#include "proto/job.pb.h"

namespace mmapzero::cli {

// "9620 games started on it, 71.3 % of moves followed it, 8800
// variations rejoined it (2100 unchanged), window 8" (games started
// include those still in play), or "-" before any game started on the
// best.
std::string BestStartText(const v1::JobStatus& job);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_BEST_START_REPORT_H_
