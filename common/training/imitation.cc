#include "common/training/imitation.h"

#include <torch/torch.h>

#include <algorithm>
#include <bit>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/agent/demonstration.h"
#include "common/agent/replay_buffer.h"
#include "common/base/status_macros.h"
#include "common/features/observation.h"
#include "common/model/network_evaluator.h"
#include "common/training/learner.h"
#include "common/training/policy_play.h"

namespace mmapzero::training {
namespace {

// Positions evaluated at once when measuring agreement.
constexpr size_t kAgreementBatch = 256;

// Agreement of `network`'s greedy choice with every recorded decision of
// `trajectory` that had a choice (more than one legal action).
ImitationAgreement Agreement(const std::string& name,
                             const agent::Trajectory& trajectory,
                             model::MuZeroNetwork& network) {
  torch::NoGradGuard no_grad;
  model::NetworkEvaluator evaluator(network);
  ImitationAgreement out{.name = name};
  int64_t agreed = 0;
  std::vector<features::Observation> observations;
  std::vector<const agent::TrajectoryStep*> steps;
  std::vector<search::Inference> inferences;
  const auto flush = [&] {
    std::vector<const features::Observation*> pointers;
    for (const features::Observation& o : observations) pointers.push_back(&o);
    evaluator.InitialInference(pointers, &inferences);
    for (size_t i = 0; i < steps.size(); ++i) {
      agreed += GreedyLegalAction(inferences[i].policy_logits,
                                  steps[i]->legal_mask) == steps[i]->action;
    }
    out.decisions += static_cast<int64_t>(steps.size());
    observations.clear();
    steps.clear();
  };
  for (const agent::TrajectoryStep& step : trajectory.steps) {
    if (std::popcount(step.legal_mask) < 2) continue;
    observations.emplace_back();
    agent::Expand(step.observation, &observations.back());
    steps.push_back(&step);
    if (steps.size() == kAgreementBatch) flush();
  }
  if (!steps.empty()) flush();
  out.agreement =
      out.decisions == 0 ? 1.0 : static_cast<double>(agreed) / out.decisions;
  return out;
}

}  // namespace

absl::StatusOr<ImitationResult> Imitate(
    const std::vector<ImitationExample>& examples, const MuZeroConfig& config,
    model::MuZeroNetwork network, const ImitationOptions& options) {
  if (examples.empty()) {
    return absl::InvalidArgumentError("imitation: no programs to imitate");
  }
  if (options.steps < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("imitation: steps: must be >= 0, got ", options.steps));
  }
  const absl::Time start = absl::Now();
  ImitationResult result;
  // One replay per program, so that a batch draws every program equally
  // often: a long program would otherwise drown the short ones.
  std::vector<std::unique_ptr<agent::ReplayBuffer>> replays;
  // Each replay's one trajectory (the replay's own copy; an empty one for a
  // plan without decisions, which the replay does not keep).
  std::vector<std::shared_ptr<const agent::Trajectory>> trajectories;
  for (size_t i = 0; i < examples.size(); ++i) {
    const ImitationExample& example = examples[i];
    absl::StatusOr<agent::Trajectory> trajectory =
        agent::DemonstrationFromSolution(example.program, example.solution,
                                         config);
    if (!trajectory.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "imitation: ", example.name, ": ", trajectory.status().message()));
    }
    // Imitated everywhere: no self-play here to prefer where it is better.
    trajectory->demonstration = false;
    result.positions += agent::SampleableSteps(*trajectory);
    replays.push_back(
        std::make_unique<agent::ReplayBuffer>(1, options.seed + 1 + i));
    const int64_t id = replays.back()->Insert(*std::move(trajectory));
    trajectories.push_back(id >= 0
                               ? replays.back()->Get(id)
                               : std::make_shared<const agent::Trajectory>());
  }
  for (size_t i = 0; i < examples.size(); ++i) {
    result.before.push_back(
        Agreement(examples[i].name, *trajectories[i], network));
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<Learner> learner,
      Learner::Create(config.training(), config.search().discount(), network));
  const int batch_size = config.training().batch_size();
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<size_t> pick(0, replays.size() - 1);
  std::vector<int> per_replay(replays.size());
  for (int64_t step = 1; step <= options.steps; ++step) {
    std::fill(per_replay.begin(), per_replay.end(), 0);
    for (int i = 0; i < batch_size; ++i) ++per_replay[pick(rng)];
    std::vector<agent::SampledPosition> positions;
    positions.reserve(batch_size);
    for (size_t r = 0; r < replays.size(); ++r) {
      if (per_replay[r] == 0) continue;
      for (agent::SampledPosition& position :
           replays[r]->Sample(per_replay[r])) {
        positions.push_back(std::move(position));
      }
    }
    ASSIGN_OR_RETURN(const LearnerStats stats, learner->Step(positions));
    if (options.on_progress &&
        (step % std::max<int64_t>(1, options.report_every) == 0 ||
         step == options.steps)) {
      options.on_progress(
          {.step = step,
           .steps = options.steps,
           .seconds = absl::ToDoubleSeconds(absl::Now() - start),
           .policy_loss = stats.policy,
           .value_loss = stats.value});
    }
  }
  for (size_t i = 0; i < examples.size(); ++i) {
    result.after.push_back(
        Agreement(examples[i].name, *trajectories[i], network));
  }
  result.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return result;
}

}  // namespace mmapzero::training
