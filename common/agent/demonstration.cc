#include "common/agent/demonstration.h"

#include <bit>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/agent/target_scale.h"
#include "common/features/feature_extractor.h"
#include "common/game/mmap_game.h"

namespace mmapzero::agent {

absl::StatusOr<Trajectory> DemonstrationFromSolution(
    const std::shared_ptr<const game::Program>& program,
    const Solution& solution, const MuZeroConfig& config) {
  const int32_t buffers = program->num_buffers();
  std::vector<int> action_of(buffers, -1);
  for (const BufferDecision& decision : solution.decisions()) {
    if (decision.buffer_id() >= 0 && decision.buffer_id() < buffers) {
      action_of[decision.buffer_id()] = decision.action();
    }
  }
  const double scale = TargetScale(config.training(), *program);
  Trajectory out;
  out.demonstration = true;
  game::MMapGame game(program);
  features::Observation observation;
  while (!game.IsTerminal()) {
    const int32_t buffer = game.CurrentBuffer();
    const int action = action_of[buffer];
    const uint8_t mask = game.LegalActionMask();
    if (action < 0 || action >= game::kNumActions || !(mask & (1u << action))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "demonstration of solution '", solution.workload_name(),
          "': buffer ", buffer,
          action < 0 ? " has no decision"
                     : absl::StrCat(": action ", action, " is illegal here")));
    }
    const bool forced = std::popcount(mask) == 1;
    const bool record = !forced || out.steps.empty();
    if (record) {
      TrajectoryStep step;
      features::Observe(game, config.features(), &observation);
      step.observation = Compact(observation);
      step.buffer = buffer;
      step.action = static_cast<uint8_t>(action);
      step.legal_mask = mask;
      step.policy[action] = 1.0f;
      step.fast_move = forced;
      out.steps.push_back(std::move(step));
    }
    const game::StepResult applied =
        game.ApplyAction(static_cast<game::Action>(action));
    out.steps.back().reward +=
        static_cast<float>(scale * applied.transition_reward());
    out.episode_return += applied.transition_reward();
  }
  // The exact discounted return-to-go of every recorded state.
  const double discount = config.search().discount();
  double to_go = 0;
  for (int i = static_cast<int>(out.steps.size()) - 1; i >= 0; --i) {
    to_go = out.steps[i].reward + discount * to_go;
    out.steps[i].root_value = static_cast<float>(to_go);
  }
  out.normalised_return = game.NormalisedReturn();
  out.drop_backups = game.drop_backups();
  return out;
}

}  // namespace mmapzero::agent
