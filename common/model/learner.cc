#include "common/model/learner.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/model/learner_checkpoint.h"

namespace mmapzero::model {

absl::StatusOr<std::unique_ptr<Learner>> Learner::Create(
    const TrainingConfig& training, double discount, MuZeroNetwork network,
    agent::ReplayBuffer* replay, Reanalyser* reanalyser) {
  const auto bad = [](const char* field, double value) {
    return absl::InvalidArgumentError(
        absl::StrCat("learner: training.", field, " = ", value, " is invalid"));
  };
  if (training.batch_size() <= 0)
    return bad("batch_size", training.batch_size());
  if (training.unroll_steps() <= 0) {
    return bad("unroll_steps", training.unroll_steps());
  }
  if (training.td_steps() <= 0) return bad("td_steps", training.td_steps());
  if (!(training.learning_rate() > 0)) {
    return bad("learning_rate", training.learning_rate());
  }
  if (training.weight_decay() < 0) {
    return bad("weight_decay", training.weight_decay());
  }
  if (training.reanalyse_fraction() < 0 || training.reanalyse_fraction() > 1) {
    return bad("reanalyse_fraction", training.reanalyse_fraction());
  }
  return std::unique_ptr<Learner>(
      new Learner(training, discount, std::move(network), replay, reanalyser));
}

Learner::Learner(const TrainingConfig& training, double discount,
                 MuZeroNetwork network, agent::ReplayBuffer* replay,
                 Reanalyser* reanalyser)
    : training_(training),
      targets_{training.unroll_steps(), training.td_steps(), discount},
      network_(std::move(network)),
      replay_(replay),
      reanalyser_(reanalyser) {
  optimizer_ = std::make_unique<torch::optim::Adam>(
      network_->parameters(),
      torch::optim::AdamOptions(training.learning_rate())
          .weight_decay(training.weight_decay()));
}

int Learner::demonstrations_per_batch() const {
  return static_cast<int>(
      std::lround(training_.demonstration_fraction() * training_.batch_size()));
}

absl::StatusOr<LearnerStats> Learner::Step() {
  if (replay_ == nullptr) {
    return absl::FailedPreconditionError(
        "learner: no replay (batches come from elsewhere: Step(positions))");
  }
  int demonstrated = 0;
  if (demonstrations_ != nullptr && demonstrations_->size() > 0) {
    demonstrated = demonstrations_per_batch();
  }
  std::vector<agent::SampledPosition> positions =
      replay_->Sample(training_.batch_size() - demonstrated);
  if (positions.empty() && demonstrated == 0) {
    return absl::FailedPreconditionError("learner: the replay is empty");
  }
  int reanalysed = 0;
  if (reanalyser_ != nullptr && training_.reanalyse_fraction() > 0) {
    const int count = static_cast<int>(
        std::lround(training_.reanalyse_fraction() * positions.size()));
    for (int b = 0; b < count; ++b) {
      agent::SampledPosition& p = positions[b];
      const int window = targets_.unroll_steps + targets_.td_steps + 1;
      const absl::Status status =
          reanalyser_->Refresh(p.id, p.step, p.step + window,
                               static_cast<uint64_t>(step_) * 1000003u + b);
      if (status.code() == absl::StatusCode::kNotFound) continue;  // evicted
      if (!status.ok()) return status;
      if (auto fresh = replay_->Get(p.id)) p.trajectory = std::move(fresh);
      ++reanalysed;
    }
  }
  if (demonstrated > 0) {
    std::vector<agent::SampledPosition> shown =
        demonstrations_->Sample(demonstrated);
    std::move(shown.begin(), shown.end(), std::back_inserter(positions));
  }
  return Train(positions, reanalysed);
}

absl::StatusOr<LearnerStats> Learner::Step(
    const std::vector<agent::SampledPosition>& positions) {
  if (positions.empty()) {
    return absl::InvalidArgumentError("learner: empty batch");
  }
  const ObservationShape& shape = network_->shape();
  const size_t cells = static_cast<size_t>(shape.time_bins) * shape.byte_bins;
  for (size_t b = 0; b < positions.size(); ++b) {
    const agent::SampledPosition& p = positions[b];
    const std::string where =
        absl::StrCat("learner: batch[", b, "] (trajectory ", p.id, ")");
    if (p.trajectory == nullptr || p.step < 0 ||
        p.step >= static_cast<int>(p.trajectory->steps.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": step ", p.step, " is outside its ",
          p.trajectory ? p.trajectory->steps.size() : 0, " steps"));
    }
    const agent::CompactObservation& o =
        p.trajectory->steps[p.step].observation;
    if (o.occupancy.size() != cells ||
        static_cast<int>(o.vector.size()) != shape.vector_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": observation of ", o.occupancy.size(), " cells and ",
          o.vector.size(), " vector values, the network takes ", cells, " and ",
          shape.vector_size));
    }
    // The actions its targets read (steps p.step .. p.step + K): a
    // demonstration is a whole game, of thousands of steps.
    const size_t end =
        std::min(p.trajectory->steps.size(),
                 static_cast<size_t>(p.step) + targets_.unroll_steps + 1);
    for (size_t i = p.step; i < end; ++i) {
      const int action = p.trajectory->steps[i].action;
      if (action >= kNumActions) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": step ", i, ": action ", action, " is not 0..2"));
      }
    }
  }
  return Train(positions, 0);
}

LearnerStats Learner::Train(
    const std::vector<agent::SampledPosition>& positions, int reanalysed) {
  LearnerStats stats;
  stats.reanalysed = reanalysed;
  std::vector<const agent::TrajectoryStep*> roots;
  std::vector<agent::PositionTargets> targets;
  roots.reserve(positions.size());
  targets.reserve(positions.size());
  for (const agent::SampledPosition& p : positions) {
    roots.push_back(&p.trajectory->steps[p.step]);
    targets.push_back(agent::MakeTargets(*p.trajectory, p.step, targets_));
  }
  const TrainingBatch batch =
      StackBatch(roots, targets, network_->shape(), network_->device());
  optimizer_->zero_grad();
  LossParts loss = MuZeroLoss(network_, batch);
  loss.total.backward();
  optimizer_->step();
  ++step_;
  stats.step = step_;
  stats.total = loss.total.item<double>();
  stats.value = loss.value;
  stats.reward = loss.reward;
  stats.policy = loss.policy;
  return stats;
}

absl::Status Learner::Save(const std::string& dir, int64_t lease_epoch) const {
  return SaveLearnerCheckpoint(dir, network_, *optimizer_, step_, replay_,
                               lease_epoch);
}

absl::Status Learner::Load(const std::string& dir, std::string* note,
                           int64_t* lease_epoch) {
  return LoadLearnerCheckpoint(dir, network_, *optimizer_, &step_, replay_,
                               note, lease_epoch);
}

}  // namespace mmapzero::model
