// mmapctl imitate WORKLOAD... --out NETWORK.pt [--solutions DIR]
// [--network none|default|FILE] [--config cpu|FILE] [--steps 2000]
// [--seed S] [--threads N]: imitation pretraining
// (common/training/imitation.h). Each workload is imitated as the
// heuristic plays it, or as DIR/<workload's file name> plays it when
// --solutions has a valid solution there that beats the heuristic (the
// best of an earlier search, a job's best). The network (a fresh one by
// default) is trained in this process and written to --out, a network
// file any job or `solve --solver policy` can start from (`--set
// network=FILE`). The value and reward losses weigh 0.1 beside the
// policy's 1 unless the config sets them (TrainingConfig.value_loss_weight
// says why). Prints, per workload, how often the network's greedy choice
// agreed with the imitated plan before and after.
#include <torch/torch.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/training/training_commands.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/model/networks.h"
#include "common/solvers/solver.h"
#include "common/training/imitation.h"
#include "common/training/initial_network.h"
#include "common/validate/evaluation.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "imitate WORKLOAD... --out NETWORK.pt [--solutions DIR] [--network "
    "none|default|FILE] [--config cpu|FILE] [--steps 2000] [--seed S] "
    "[--threads N]";

// The plan to imitate on `workload`: the heuristic's, or the solution in
// `solutions_dir` named as the workload's file when it is valid and
// better. Says which on stderr.
absl::StatusOr<training::ImitationExample> ExampleOf(
    const std::string& path, const std::string& solutions_dir, uint64_t seed) {
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(path));
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(workload);
  if (!program.ok()) {
    return absl::Status(program.status().code(),
                        absl::StrCat(path, ": ", program.status().message()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<solvers::Solver> heuristic,
                   solvers::MakeSolver("heuristic", {}));
  solvers::SolverBudget budget;
  budget.seed = seed;
  absl::StatusOr<Solution> solution = heuristic->Solve(*program, budget);
  if (!solution.ok()) {
    return absl::Status(
        solution.status().code(),
        absl::StrCat(path, ": the heuristic: ", solution.status().message()));
  }
  std::string from = "heuristic";
  double normalised = solution->normalised_return();
  const std::string candidate =
      solutions_dir.empty()
          ? ""
          : (fs::path(solutions_dir) / fs::path(path).filename()).string();
  std::error_code error;
  if (!candidate.empty() && fs::exists(candidate, error)) {
    ASSIGN_OR_RETURN(const Solution given, ReadSolution(candidate));
    const validate::ValidationReport report =
        validate::ValidateSolution(workload, given);
    if (absl::Status invalid = validate::InvalidSolutionError(report);
        !invalid.ok()) {
      return absl::Status(invalid.code(),
                          absl::StrCat(candidate, ": ", invalid.message()));
    }
    if (report.normalised_return > normalised) {
      *solution = given;
      normalised = report.normalised_return;
      from = absl::StrCat(candidate, " (", given.solver().name(), ")");
    }
  }
  std::cerr << absl::StrFormat(
      "%s: %d buffers, imitating %s, normalised return %.4f\n", path,
      (*program)->num_buffers(), from, normalised);
  return training::ImitationExample{.name = fs::path(path).filename(),
                                    .program = *std::move(program),
                                    .solution = *std::move(solution)};
}

double MeanAgreement(const std::vector<training::ImitationAgreement>& all) {
  double sum = 0;
  for (const auto& one : all) sum += one.agreement;
  return all.empty() ? 0 : sum / all.size();
}

}  // namespace

absl::Status RunImitate(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args,
                                      {"out", "solutions", "network", "config",
                                       "steps", "seed", "threads"},
                                      {}));
  if (line.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no workload given; usage: ", kUsage));
  }
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));
  ASSIGN_OR_RETURN(const int64_t steps, line.GetInt("steps", 2000));
  ASSIGN_OR_RETURN(const int64_t seed, line.GetInt("seed", 1));
  ASSIGN_OR_RETURN(
      const int64_t threads,
      line.GetInt("threads",
                  std::max(1u, std::thread::hardware_concurrency())));
  if (steps < 1 || steps > 10'000'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps: must be 1..10000000, got ", steps));
  }
  if (threads < 1 || threads > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads: must be 1..256, got ", threads));
  }
  const std::string config_name = line.GetString("config", "cpu");
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(config_name, {});
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--config ", config_name, ": ", config.status().message()));
  }
  // Imitation's own default: the value and reward losses light beside the
  // policy's (TrainingConfig.value_loss_weight says why).
  constexpr double kImitationModelLossWeight = 0.1;
  TrainingConfig& training = *config->mutable_training();
  if (!training.has_value_loss_weight()) {
    training.set_value_loss_weight(kImitationModelLossWeight);
  }
  if (!training.has_reward_loss_weight()) {
    training.set_reward_loss_weight(kImitationModelLossWeight);
  }
  const std::string solutions = line.GetString("solutions", "");
  std::error_code error;
  if (!solutions.empty() && !fs::is_directory(solutions, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--solutions: not a folder: '", solutions, "'"));
  }
  model::SetComputeThreads(static_cast<int>(threads));
  torch::manual_seed(static_cast<uint64_t>(seed));

  std::vector<training::ImitationExample> examples;
  for (const std::string& path : line.positional()) {
    ASSIGN_OR_RETURN(training::ImitationExample example,
                     ExampleOf(path, solutions, static_cast<uint64_t>(seed)));
    examples.push_back(std::move(example));
  }
  ASSIGN_OR_RETURN(
      model::MuZeroNetwork network,
      model::CreateNetwork(config->network(),
                           model::ShapeOf(config->features()), torch::kCPU));
  const std::string network_name =
      line.GetString("network", features::kNoNetwork);
  absl::StatusOr<std::string> loaded =
      training::LoadNetworkByName(network_name, network);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat("--network ", network_name, ": ",
                                     loaded.status().message()));
  }
  training::ImitationOptions options{
      .steps = steps,
      .seed = static_cast<uint64_t>(seed),
      .report_every = std::max<int64_t>(1, steps / 20),
      .on_progress = [](const training::ImitationProgress& progress) {
        std::cerr << absl::StrFormat(
            "imitate: step %d/%d, %.1f s, policy loss %.4f, value loss %.4f\n",
            progress.step, progress.steps, progress.seconds,
            progress.policy_loss, progress.value_loss);
      }};
  std::cerr << absl::StrFormat(
      "imitate: %d workloads, network %s, config %s, %d steps of %d "
      "positions, value and reward loss weights %g and %g, %d threads\n",
      examples.size(), *loaded, config_name, steps,
      config->training().batch_size(), training.value_loss_weight(),
      training.reward_loss_weight(), threads);
  ASSIGN_OR_RETURN(const training::ImitationResult result,
                   training::Imitate(examples, *config, network, options));
  RETURN_IF_ERROR(model::SaveCheckpoint(network, out));
  std::cout << absl::StrFormat("%-50s %10s %8s %8s\n", "workload", "decisions",
                               "before", "after");
  for (size_t i = 0; i < result.after.size(); ++i) {
    std::cout << absl::StrFormat(
        "%-50s %10d %8.4f %8.4f\n", result.after[i].name,
        result.after[i].decisions, result.before[i].agreement,
        result.after[i].agreement);
  }
  std::cout << absl::StrFormat(
      "wrote %s: %d steps on %d positions of %d workloads in %.1f s; greedy "
      "agreement with the imitated plans %.4f -> %.4f (mean over workloads)\n",
      out, steps, result.positions, examples.size(), result.seconds,
      MeanAgreement(result.before), MeanAgreement(result.after));
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
