#include "common/training/demonstrations.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "common/agent/demonstration.h"

namespace mmapzero::training {

Demonstrations::Demonstrations(std::shared_ptr<const game::Program> program,
                               MuZeroConfig config, uint64_t seed)
    : program_(std::move(program)),
      config_(std::move(config)),
      enabled_(program_ != nullptr &&
               config_.training().demonstration_fraction() > 0),
      per_batch_(static_cast<int>(
          std::lround(config_.training().demonstration_fraction() *
                      config_.training().batch_size()))),
      kept_(agent::kDemonstrationsKept, seed) {}

bool Demonstrations::Offer(Solution solution) {
  const double offered = solution.normalised_return();
  const bool better = offered_.Update([&](Offered& offer) {
    if (offered <= offer.best) return false;
    offer.best = offered;
    offer.waiting = std::move(solution);
    return true;
  });
  if (better) {
    stats_.Update([offered](DemonstrationStats& stats) {
      stats.best_offered = std::max(stats.best_offered, offered);
    });
  }
  return better;
}

std::optional<DemonstrationReplay> Demonstrations::TakeDue(
    int64_t learner_step) {
  if (!enabled_) return std::nullopt;
  const int64_t interval = config_.training().demonstration_interval_steps();
  if (last_replay_step_ >= 0 && learner_step - last_replay_step_ < interval) {
    return std::nullopt;  // the offer waits (a newer one replaces it)
  }
  std::optional<Solution> solution = offered_.Update([](Offered& offer) {
    return std::exchange(offer.waiting, std::nullopt);
  });
  if (!solution.has_value()) return std::nullopt;
  last_replay_step_ = learner_step;
  DemonstrationReplay replay;
  replay.normalised_return = solution->normalised_return();
  replay.solver = solution->solver().name();
  const absl::Time start = absl::Now();
  absl::StatusOr<agent::Trajectory> shown =
      agent::DemonstrationFromSolution(program_, *solution, config_);
  replay.replay_time = absl::Now() - start;
  if (shown.ok()) {
    replay.steps = static_cast<int64_t>(shown->steps.size());
    kept_.Insert(*std::move(shown));
  } else {
    replay.status = shown.status();
  }
  replay.kept = kept_.size();
  stats_.Update([&replay](DemonstrationStats& stats) {
    if (replay.status.ok()) {
      ++stats.replayed;
      stats.error.clear();
    } else {
      stats.error = replay.status.ToString();
    }
  });
  return replay;
}

int Demonstrations::Mix(agent::Batch* batch) {
  if (!enabled_ || kept_.size() == 0) return 0;
  const int shown = std::min(per_batch_, static_cast<int>(batch->size()));
  if (shown == 0) return 0;
  batch->resize(batch->size() - shown);
  std::vector<agent::SampledPosition> positions = kept_.Sample(shown);
  std::move(positions.begin(), positions.end(), std::back_inserter(*batch));
  stats_.Update(
      [shown](DemonstrationStats& stats) { stats.mixed_positions += shown; });
  return shown;
}

}  // namespace mmapzero::training
