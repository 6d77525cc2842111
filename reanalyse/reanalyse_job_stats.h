// The running figures of one job on a reanalyse worker
// (ReanalyseJob::stats), in their own header so that the worker, its config
// and main need not include LibTorch through reanalyse_job.h.
#ifndef MMAPZERO_REANALYSE_REANALYSE_JOB_STATS_H_
#define MMAPZERO_REANALYSE_REANALYSE_JOB_STATS_H_

#include <cstdint>

namespace mmapzero::reanalyse {

struct ReanalyseJobStats {
  int64_t rounds = 0;      // UpdateTargets calls answered
  int64_t reanalysed = 0;  // trajectories updated
  int64_t steps = 0;       // steps re-searched
  int64_t gone = 0;        // evicted meanwhile
  int64_t failures = 0;    // failed calls or unreadable trajectories
  int64_t parameter_version = 0;
};

}  // namespace mmapzero::reanalyse

#endif  // MMAPZERO_REANALYSE_REANALYSE_JOB_STATS_H_
