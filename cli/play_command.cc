#include <chrono>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/latency_report.h"
#include "cli/solution_summary.h"
#include "common/base/status_macros.h"
#include "common/game/mmap_game.h"
#include "common/solvers/policy.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {

// play WORKLOAD --policy P --seed S --out SOLUTION [--no-drop-backup] [--json]
absl::Status RunPlay(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, {"policy", "seed", "out"},
                                      {"json", "no-drop-backup"}));
  RETURN_IF_ERROR(line.ExpectPositional(
      1, "play WORKLOAD --policy random|drop-all|fast-first --seed S --out SOLUTION"));
  if (!line.Has("out")) return absl::InvalidArgumentError("--out is required");
  ASSIGN_OR_RETURN(const int64_t seed, line.GetInt("seed", 1));
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(line.positional()[0]));
  ASSIGN_OR_RETURN(auto program, game::Program::Create(workload));
  const std::string policy_name = line.GetString("policy", "random");
  auto policy = solvers::MakePolicy(policy_name, static_cast<uint64_t>(seed));
  if (!policy.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--policy: ", policy.status().message()));
  }
  const auto start = std::chrono::steady_clock::now();
  game::MMapGame game(program, {.drop_backup = !line.Has("no-drop-backup")});
  solvers::PlayOut(game, **policy);
  Solution solution = game.ToSolution();
  solution.mutable_solver()->set_name(policy_name);
  (*solution.mutable_solver()->mutable_settings())["seed"] = absl::StrCat(seed);
  solution.mutable_solver()->set_wall_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  RETURN_IF_ERROR(WriteProtoFile(line.GetString("out", ""), solution));
  ASSIGN_OR_RETURN(const LatencyReport latency,
                   ReportLatency(program, solution));
  PrintSolutionSummary(*program, solution, latency, line.Has("json"),
                       std::cout);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
