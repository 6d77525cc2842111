// `mmapctl solve WORKLOAD --solver muzero` through the service: the
// workload becomes a job on the local cluster of a data dir (the one
// `mmapctl local up` uses), trained by its learner, actors and reanalyse
// workers, and the job's best solution comes back. A cluster already
// running there is used and left running; otherwise one is started with
// `threads - 1` actors (at least one) and stopped again at the end, also
// after an error or a Ctrl-C. A Ctrl-C cancels the job, which ends with
// its best so far, and that best is returned.
//
// Settings (`--set key=value`), as the in-process solver's where they
// mean the same: config=cpu|paper|FILE and dotted MuZeroConfig fields
// (a.b=value) make the job's training config; actors=N (0: auto) and
// reanalyse=N (default 1) size a cluster this starts; seed_solver and
// seed_share (common/solvers/seed_stage.h) run a search here first, for
// that share of the budget, and the job starts from its best with the
// rest (the combination). The result's solver settings say which part
// found it (found_by: a worker, "the heuristic seed", or the seed stage).
#ifndef MMAPZERO_CLI_CLUSTER_SOLVE_H_
#define MMAPZERO_CLI_CLUSTER_SOLVE_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/solvers/solver.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::cli {

struct ClusterSolveOptions {
  std::string job_name;  // shown by `mmapctl list`
  absl::Duration budget = absl::Minutes(1);  // the job's wall time
  int threads = 2;                           // actors: threads - 1
  uint64_t seed = 1;                         // the actors' first seed
  solvers::SolverSettings settings;
  std::string data_dir;
  std::string bin_dir;  // where the mmapzero-<role> binaries are
  // Progress of a seed stage (settings seed_solver, seed_share), if any.
  std::function<void(const solvers::SolverProgress&)> on_stage_progress;
};

// The job's best solution as the coordinator verified it (the caller
// validates it again). Progress lines go to `log`. Errors: bad settings
// (InvalidArgument naming the key), a cluster that cannot start (with its
// log's tail), a failed job (Aborted with the job's error).
absl::StatusOr<Solution> SolveOnLocalCluster(const Workload& workload,
                                             const ClusterSolveOptions& options,
                                             std::ostream& log);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_CLUSTER_SOLVE_H_
