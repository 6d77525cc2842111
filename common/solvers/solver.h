// A solver searches for a good solution of one workload within a budget:
// the heuristic (XLA MSA-like), evolutionary search, BRKGA, random play and
// the portfolio. Every solver plays its decisions through the game engine,
// so what it returns is legal by construction; callers still validate it
// independently (common/validate/validator.h) before writing it out.
//
// Thread-safety: Solve() may use `budget.threads` threads of its own; one
// Solver object runs one Solve() at a time.
#ifndef MMAPZERO_COMMON_SOLVERS_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_SOLVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/game/program.h"
#include "proto/solution.pb.h"

namespace mmapzero::solvers {

// Reported while a solver runs, at most about once a second, and at the end.
struct SolverProgress {
  double elapsed_seconds = 0;
  int64_t evaluations = 0;  // complete games played (decodes)
  double best_normalised_return = 0;
  // Mean normalised return of the solver's most recent games, for a
  // learning solver (muzero) whose recent play shows whether it improves;
  // negative when the solver does not report it.
  double recent_normalised_return = -1;
};

struct SolverBudget {
  absl::Duration wall_time = absl::Seconds(10);
  int64_t max_evaluations = 0;  // 0: no limit
  int threads = 1;
  uint64_t seed = 1;
  // Called from the thread that called Solve().
  std::function<void(const SolverProgress&)> on_progress;
  // Asked between games (the heuristic after each plan, the searches after
  // each generation) from the thread that called Solve(); true: stop now
  // and return the best so far, as when the wall time runs out (the
  // coordinator stops a seed solve whose job is cancelled or whose process
  // stops). Unset: never. Honoured by the heuristic and the searches (ES,
  // BRKGA, random play, the portfolio).
  std::function<bool()> stop_requested;
  // Stronger: nobody wants the answer any more (the coordinator's seed
  // solve of a job cancelled, or of a coordinator stopping). Asked within
  // games and plans too (the heuristic every 256 buffers), so a solver
  // ends within a fraction of a second even on a 200,000-buffer program,
  // with its best so far or Cancelled when it has none. Also counts as
  // stop_requested. Unset: never.
  std::function<bool()> abandon_requested;

  // Whether stop_requested or abandon_requested is set and answers true.
  bool asked_to_stop() const {
    return (stop_requested && stop_requested()) || asked_to_abandon();
  }
  bool asked_to_abandon() const {
    return abandon_requested && abandon_requested();
  }
};

// Solver-specific settings by name ("population" -> "64", ...), as given on
// the command line; each solver documents its keys and rejects unknown ones.
using SolverSettings = std::map<std::string, std::string>;

class Solver {
 public:
  virtual ~Solver() = default;
  // The best solution found, with Solution.solver filled in (name,
  // settings including the seed, wall seconds). Errors only for bad
  // settings or a budget that allows no game at all.
  virtual absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) = 0;
  virtual std::string name() const = 0;
};

// The solver called `name` with `settings`; InvalidArgument lists the known
// names or names the bad setting and its value.
absl::StatusOr<std::unique_ptr<Solver>> MakeSolver(
    const std::string& name, const SolverSettings& settings);
std::vector<std::string> SolverNames();

// Solvers built outside mmapzero_common (the LibTorch `muzero`, in
// common/training/register_training_solvers.h) are added by an explicit call at
// startup, never by static self-registration. MakeSolver and SolverNames
// consult them after the built-in list; a name already known (built in or
// registered) is replaced for registered ones and ignored for built-ins.
// Thread-safe.
using SolverFactory = std::function<absl::StatusOr<std::unique_ptr<Solver>>(
    const SolverSettings&)>;
void RegisterSolver(const std::string& name, SolverFactory factory);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_SOLVER_H_
