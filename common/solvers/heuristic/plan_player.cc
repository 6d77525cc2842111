#include "common/solvers/heuristic/plan_player.h"

#include <array>

namespace mmapzero::solvers {
namespace {

using game::Action;

bool Legal(uint8_t mask, Action action) {
  return (mask & (1u << static_cast<int>(action))) != 0;
}

Action Choose(Action planned, uint8_t mask, bool fill) {
  if (fill && planned == Action::kDrop) {
    for (Action action : {Action::kNoCopy, Action::kCopy}) {
      if (Legal(mask, action)) return action;
    }
  }
  if (Legal(mask, planned)) return planned;
  if (planned == Action::kNoCopy && Legal(mask, Action::kCopy)) {
    return Action::kCopy;
  }
  if (Legal(mask, Action::kDrop)) return Action::kDrop;
  // Inside an alias group decided fast: any legal fast action.
  for (Action action : {Action::kNoCopy, Action::kCopy}) {
    if (Legal(mask, action)) return action;
  }
  return Action::kDrop;  // unreachable: a live game has a legal action
}

}  // namespace

game::MMapGame PlayPlan(const std::shared_ptr<const game::Program>& program,
                        const MemoryPlan& plan, PlayStats* stats,
                        const PlayOptions& options) {
  game::MMapGame game(program);
  PlayStats local;
  while (!game.IsTerminal()) {
    if (StopAskedAt(local.moves, options.stop_requested)) break;
    const Action planned = plan[game.CurrentBuffer()];
    const uint8_t mask = game.LegalActionMask();
    if (!Legal(mask, planned)) ++local.refused;
    const bool fill =
        options.fill &&
        game.program().buffer(game.CurrentBuffer()).benefit_us > 0;
    game.ApplyAction(Choose(planned, mask, fill));
    ++local.moves;
  }
  if (stats != nullptr) *stats = local;
  return game;
}

}  // namespace mmapzero::solvers
