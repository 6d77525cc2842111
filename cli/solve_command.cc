#include <iostream>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/solution_summary.h"
#include "common/base/status_macros.h"
#include "common/solvers/portfolio_solver.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {

// solve WORKLOAD [--out SOLUTION] [--seconds S] [--seed S] [--json]
absl::Status RunSolve(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, {"out", "seconds", "seed"}, {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(
      1, "solve WORKLOAD [--out SOLUTION] [--seconds S] [--json]"));
  ASSIGN_OR_RETURN(const double seconds, line.GetDouble("seconds", 2.0));
  if (!(seconds > 0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--seconds: must be > 0, got %g", seconds));
  }
  ASSIGN_OR_RETURN(const int64_t seed, line.GetInt("seed", 1));
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(line.positional()[0]));
  ASSIGN_OR_RETURN(auto program, game::Program::Create(workload));
  std::cerr << absl::StrFormat(
      "solving %s: %d buffers, %d instructions, %.1f s budget\n",
      line.positional()[0], program->num_buffers(), program->num_steps(), seconds);
  absl::Time last_report = absl::Now();
  solvers::PortfolioOptions options{
      .budget = absl::Seconds(seconds),
      .seed = static_cast<uint64_t>(seed),
      .on_progress = [&](int64_t games, double best) {
        if (absl::Now() - last_report < absl::Seconds(1)) return;
        last_report = absl::Now();
        std::cerr << absl::StrFormat("  %lld games, best normalised return %.4f\n",
                                     static_cast<long long>(games), best);
      }};
  const solvers::PortfolioResult result = SolveWithPortfolio(program, options);
  // Every solution leaves checked by the engine-independent validator.
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, result.best);
  if (!report.ok) {
    return absl::InternalError(absl::StrFormat(
        "the solver's solution failed independent validation (%d violations, "
        "first: %s: %s); this is a bug, please report it",
        report.violations.size(), report.violations[0].rule,
        report.violations[0].message));
  }
  std::cerr << "validated independently: VALID\n";
  if (line.Has("out")) {
    RETURN_IF_ERROR(WriteProtoFile(line.GetString("out", ""), result.best));
  }
  PrintSolutionSummary(*program, result.best, line.Has("json"), std::cout);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
