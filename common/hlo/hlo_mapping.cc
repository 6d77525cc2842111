#include "common/hlo/hlo_mapping.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"

namespace mmapzero::hlo {

absl::StatusOr<MappedSolution> SolutionFromMapping(
    const Workload& workload, const std::vector<Action>& mapping) {
  if (static_cast<int>(mapping.size()) != workload.buffers_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a placement of ", mapping.size(), " buffers for a workload of ",
        workload.buffers_size()));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const game::Program> program,
                   game::Program::Create(workload));
  MappedSolution mapped;
  for (Action action : mapping) {
    mapped.copies += action == COPY;
    mapped.no_copies += action == NO_COPY;
    mapped.drops += action == DROP;
  }
  game::MMapGame game(program);
  while (!game.IsTerminal()) {
    const game::Action wanted =
        static_cast<game::Action>(mapping[game.CurrentBuffer()]);
    game::Action played = wanted;
    if (!game.Outcome(played).legal) {
      ++mapped.changed;
      const game::Action other = wanted == game::Action::kCopy
                                     ? game::Action::kNoCopy
                                     : game::Action::kCopy;
      played = wanted != game::Action::kDrop && game.Outcome(other).legal
                   ? other
                   : game::Action::kDrop;
      if (!game.Outcome(played).legal) {
        // Only when the alias group was decided fast and nothing fits: the
        // first legal action (the engine's Drop-backup resolves the rest).
        played = game.LegalActions().front();
      }
    }
    game.ApplyAction(played);
  }
  mapped.solution = game.ToSolution();
  mapped.solution.mutable_solver()->set_name("hlo-mapping");
  (*mapped.solution.mutable_solver()->mutable_settings())["changed"] =
      absl::StrCat(mapped.changed);
  return mapped;
}

}  // namespace mmapzero::hlo
