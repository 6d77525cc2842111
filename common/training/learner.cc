#include "common/training/learner.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/training/learner_checkpoint.h"

namespace mmapzero::training {

namespace {

// InvalidArgument naming the first position whose step is outside its
// trajectory, whose observation does not have `shape`'s sizes, or whose
// next `unroll_steps` + 1 actions (those its targets read) are not 0..2.
absl::Status CheckBatch(const std::vector<agent::SampledPosition>& positions,
                        const model::ObservationShape& shape,
                        int unroll_steps) {
  if (positions.empty()) {
    return absl::InvalidArgumentError("learner: empty batch");
  }
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
    const size_t end = std::min(p.trajectory->steps.size(),
                                static_cast<size_t>(p.step) + unroll_steps + 1);
    for (size_t i = p.step; i < end; ++i) {
      const int action = p.trajectory->steps[i].action;
      if (action >= model::kNumActions) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": step ", i, ": action ", action, " is not 0..2"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Learner>> Learner::Create(
    const TrainingConfig& training, double discount,
    model::MuZeroNetwork network) {
  const auto bad = [](const char* field, double value) {
    return absl::InvalidArgumentError(
        absl::StrCat("learner: training.", field, " = ", value, " is invalid"));
  };
  if (training.batch_size() <= 0) {
    return bad("batch_size", training.batch_size());
  }
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
  if (training.demonstration_fraction() < 0 ||
      training.demonstration_fraction() > 1) {
    return bad("demonstration_fraction", training.demonstration_fraction());
  }
  if (training.has_value_loss_weight() &&
      !(training.value_loss_weight() >= 0 &&
        training.value_loss_weight() <= 100)) {
    return bad("value_loss_weight", training.value_loss_weight());
  }
  if (training.has_reward_loss_weight() &&
      !(training.reward_loss_weight() >= 0 &&
        training.reward_loss_weight() <= 100)) {
    return bad("reward_loss_weight", training.reward_loss_weight());
  }
  return std::unique_ptr<Learner>(
      new Learner(training, discount, std::move(network)));
}

Learner::Learner(const TrainingConfig& training, double discount,
                 model::MuZeroNetwork network)
    : training_(training),
      targets_{training.unroll_steps(), training.td_steps(), discount},
      loss_weights_{.value = training.has_value_loss_weight()
                                 ? training.value_loss_weight()
                                 : 1.0,
                    .reward = training.has_reward_loss_weight()
                                  ? training.reward_loss_weight()
                                  : 1.0},
      network_(std::move(network)) {
  optimizer_ = std::make_unique<torch::optim::Adam>(
      network_->parameters(),
      torch::optim::AdamOptions(training.learning_rate())
          .weight_decay(training.weight_decay()));
}

absl::StatusOr<LearnerStats> Learner::Step(
    const std::vector<agent::SampledPosition>& positions) {
  const absl::Status checked =
      CheckBatch(positions, network_->shape(), targets_.unroll_steps);
  if (!checked.ok()) return checked;
  LearnerStats stats;
  std::vector<const agent::TrajectoryStep*> roots;
  std::vector<agent::PositionTargets> targets;
  roots.reserve(positions.size());
  targets.reserve(positions.size());
  for (const agent::SampledPosition& p : positions) {
    roots.push_back(&p.trajectory->steps[p.step]);
    targets.push_back(agent::MakeTargets(*p.trajectory, p.step, targets_));
  }
  const model::TrainingBatch batch =
      model::StackBatch(roots, targets, network_->shape(), network_->device());
  optimizer_->zero_grad();
  model::LossParts loss = model::MuZeroLoss(network_, batch, loss_weights_);
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

absl::Status Learner::Save(const std::string& dir,
                           const agent::ReplayBuffer* replay,
                           int64_t lease_epoch) const {
  return SaveLearnerCheckpoint(dir, network_, *optimizer_, step_, replay,
                               lease_epoch);
}

absl::Status Learner::Load(const std::string& dir, agent::ReplayBuffer* replay,
                           std::string* note, int64_t* lease_epoch) {
  return LoadLearnerCheckpoint(dir, network_, *optimizer_, &step_, replay, note,
                               lease_epoch);
}

}  // namespace mmapzero::training
