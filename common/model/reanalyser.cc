#include "common/model/reanalyser.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/game/program.h"
#include "proto/workload.pb.h"

namespace mmapzero::model {
namespace {

// A one-buffer game whose root allows Copy, NoCopy and Drop: an output
// written at step 0 of two (as the search tests' AllLegalRoot).
absl::StatusOr<game::MMapGame> AllLegalStandIn() {
  Workload w;
  w.set_name("reanalyse-stand-in");
  w.set_memory_size(100);
  w.add_instructions()->set_supply_us(10);
  w.add_instructions()->set_supply_us(10);
  Buffer* b = w.add_buffers();
  b->set_id(0);
  b->set_target_time(0);
  b->set_is_output(true);
  b->set_size(10);
  b->set_tensor_id(0);
  b->mutable_live_range()->set_start(0);
  b->mutable_live_range()->set_end(1);
  b->set_demand_us(1);
  b->set_benefit_us(1);
  ASSIGN_OR_RETURN(auto program, game::Program::Create(w));
  game::MMapGame game(program);
  if (game.LegalActionMask() != 7) {
    return absl::InternalError("reanalyse stand-in game: not all legal");
  }
  return game;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Reanalyser>> Reanalyser::Create(
    const SearchConfig& search, MuZeroNetwork network,
    agent::ReplayBuffer* replay) {
  ASSIGN_OR_RETURN(game::MMapGame stand_in, AllLegalStandIn());
  return std::unique_ptr<Reanalyser>(
      new Reanalyser(search, std::move(network), replay, std::move(stand_in)));
}

Reanalyser::Reanalyser(const SearchConfig& search, MuZeroNetwork network,
                       agent::ReplayBuffer* replay, game::MMapGame stand_in)
    : replay_(replay),
      evaluator_(std::move(network)),
      stand_in_(std::move(stand_in)) {
  SearchConfig config = search;
  config.set_mode(SearchConfig::LEARNED_MODEL);
  config.set_root_exploration_fraction(0);
  search_ = std::make_unique<search::BatchedSearch>(
      config, &evaluator_,
      [this](const game::MMapGame& game, features::Observation* out) {
        const size_t index = &game - roots_.data();
        *out = observations_[index];
      });
}

absl::Status Reanalyser::Refresh(int64_t id, int first, int last,
                                 uint64_t seed) {
  std::shared_ptr<const agent::Trajectory> trajectory = replay_->Get(id);
  if (trajectory == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("reanalyse: trajectory ", id, " is not stored"));
  }
  first = std::max(first, 0);
  last = std::min<int>(last, trajectory->steps.size());
  if (first >= last) return absl::OkStatus();
  const int n = last - first;
  roots_.assign(n, stand_in_);
  observations_.resize(n);
  std::vector<const game::MMapGame*> games(n);
  std::vector<uint64_t> seeds(n);
  for (int i = 0; i < n; ++i) {
    agent::Expand(trajectory->steps[first + i].observation, &observations_[i]);
    games[i] = &roots_[i];
    seeds[i] = seed + i;
  }
  std::vector<search::SearchResult> results;
  search_->Run(games, seeds, /*temperature=*/0.0, &results);
  std::vector<agent::StepTargets> targets(n);
  for (int i = 0; i < n; ++i) {
    const agent::TrajectoryStep& step = trajectory->steps[first + i];
    agent::StepTargets& t = targets[i];
    t.step = first + i;
    t.root_value = results[i].root_value;
    float sum = 0;
    for (int a = 0; a < 3; ++a) {
      t.policy[a] = ((step.legal_mask >> a) & 1) ? results[i].policy[a] : 0;
      sum += t.policy[a];
    }
    if (sum > 0) {
      for (float& p : t.policy) p /= sum;
    } else {
      t.policy = step.policy;  // the search put no mass on a legal action
    }
  }
  RETURN_IF_ERROR(replay_->UpdateTargets(id, targets));
  refreshed_steps_ += n;
  return absl::OkStatus();
}

absl::Status Reanalyser::RefreshSampled(int positions, uint64_t seed) {
  for (const agent::SampledPosition& p : replay_->Sample(positions)) {
    const absl::Status status = Refresh(p.id, p.step, p.step + 1, seed++);
    if (!status.ok() && status.code() != absl::StatusCode::kNotFound) {
      return status;
    }
  }
  return absl::OkStatus();
}

void Reanalyser::Run(std::stop_token stop, int positions_per_round) {
  while (!stop.stop_requested()) {
    if (replay_->total_steps() == 0 ||
        !RefreshSampled(positions_per_round, rounds_ * 1000003).ok()) {
      // Nothing to do yet (or a broken replay): avoid spinning hot.
      std::this_thread::yield();
    }
    ++rounds_;
  }
}

}  // namespace mmapzero::model
