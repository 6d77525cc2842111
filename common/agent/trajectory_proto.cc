#include "common/agent/trajectory_proto.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace mmapzero::agent {
namespace {

void StepToProto(const TrajectoryStep& step, bool with_observation,
                 v1::TrajectoryStep* out) {
  if (with_observation) {
    const std::vector<uint8_t>& occupancy = step.observation.occupancy;
    out->set_occupancy(std::string(occupancy.begin(), occupancy.end()));
    out->mutable_vector()->Assign(step.observation.vector.begin(),
                                  step.observation.vector.end());
  }
  out->set_buffer(step.buffer);
  out->set_action(static_cast<mmapzero::Action>(step.action));
  out->set_legal_mask(step.legal_mask);
  out->set_reward(step.reward);
  out->set_root_value(step.root_value);
  out->mutable_policy()->Assign(step.policy.begin(), step.policy.end());
  out->set_fast_move(step.fast_move);
}

void GameToProto(const Trajectory& trajectory, v1::Trajectory* out) {
  out->set_episode_return(trajectory.episode_return);
  out->set_normalised_return(trajectory.normalised_return);
  out->set_parameter_version(trajectory.parameter_version);
  out->set_targets_version(trajectory.parameter_version);
  out->set_drop_backups(trajectory.drop_backups);
  out->set_demonstration(trajectory.demonstration);
  out->set_continues(trajectory.continues);
  out->set_context_steps(trajectory.context_steps);
}

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

absl::Status CheckFinite(absl::string_view field, double value) {
  if (std::isfinite(value)) return absl::OkStatus();
  return Invalid(field, absl::StrCat("must be finite, got ", value));
}

// Sizes of the first observation seen; -1 until then.
struct ObservationShape {
  int64_t occupancy = -1;
  int64_t vector = -1;
};

absl::Status CheckObservation(const v1::TrajectoryStep& step,
                              const std::string& field,
                              ObservationShape* shape) {
  const int64_t occupancy = step.occupancy().size();
  const int64_t vector = step.vector_size();
  if (occupancy == 0 && vector == 0) {
    return Invalid(field, "has no observation (occupancy and vector empty)");
  }
  if (shape->occupancy < 0) {
    *shape = {occupancy, vector};
    return absl::OkStatus();
  }
  if (occupancy != shape->occupancy) {
    return Invalid(absl::StrCat(field, ".occupancy"),
                   absl::StrCat("size ", occupancy, " differs from step 0's ",
                                shape->occupancy));
  }
  if (vector != shape->vector) {
    return Invalid(absl::StrCat(field, ".vector"),
                   absl::StrCat("size ", vector, " differs from step 0's ",
                                shape->vector));
  }
  return absl::OkStatus();
}

absl::Status CheckStep(const v1::TrajectoryStep& step,
                       const std::string& field) {
  if (step.action() < 0 || step.action() > 2) {
    return Invalid(absl::StrCat(field, ".action"),
                   absl::StrCat("must be 0..2 (COPY, NO_COPY, DROP), got ",
                                static_cast<int>(step.action())));
  }
  if (step.legal_mask() > 7) {
    return Invalid(absl::StrCat(field, ".legal_mask"),
                   absl::StrCat("must be 0..7, got ", step.legal_mask()));
  }
  if (step.buffer() < 0) {
    return Invalid(absl::StrCat(field, ".buffer"),
                   absl::StrCat("must be >= 0, got ", step.buffer()));
  }
  if (step.policy_size() != 3) {
    return Invalid(
        absl::StrCat(field, ".policy"),
        absl::StrCat("must have 3 entries, got ", step.policy_size()));
  }
  for (int a = 0; a < 3; ++a) {
    const float p = step.policy(a);
    if (!std::isfinite(p) || p < 0) {
      return Invalid(absl::StrCat(field, ".policy[", a, "]"),
                     absl::StrCat("must be finite and >= 0, got ", p));
    }
  }
  for (const float v : step.vector()) {
    if (!std::isfinite(v)) {
      return Invalid(absl::StrCat(field, ".vector"),
                     absl::StrCat("must be finite, got ", v));
    }
  }
  RETURN_IF_ERROR(CheckFinite(absl::StrCat(field, ".reward"), step.reward()));
  return CheckFinite(absl::StrCat(field, ".root_value"), step.root_value());
}

}  // namespace

void TrajectoryToProto(const Trajectory& trajectory, v1::Trajectory* out) {
  out->Clear();
  GameToProto(trajectory, out);
  out->mutable_steps()->Reserve(trajectory.steps.size());
  for (const TrajectoryStep& step : trajectory.steps) {
    StepToProto(step, /*with_observation=*/true, out->add_steps());
  }
}

void WindowToProto(const Trajectory& trajectory, int first, int count,
                   v1::Trajectory* out) {
  out->Clear();
  GameToProto(trajectory, out);
  const int size = static_cast<int>(trajectory.steps.size());
  const int end = std::min(size, first + std::max(0, count));
  for (int i = std::max(0, first); i < end; ++i) {
    StepToProto(trajectory.steps[i], i == first, out->add_steps());
  }
  // A window's steps are all its own: the caller's positions are within.
  out->set_context_steps(0);
}

absl::StatusOr<Trajectory> TrajectoryFromProto(const v1::Trajectory& proto,
                                               absl::string_view field,
                                               ObservationRule rule) {
  if (proto.steps_size() == 0) {
    return Invalid(absl::StrCat(field, ".steps"), "must not be empty");
  }
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"episode_return",
                                       proto.episode_return()},
        {"normalised_return", proto.normalised_return()}}) {
    RETURN_IF_ERROR(CheckFinite(absl::StrCat(field, ".", name), value));
  }
  if (proto.drop_backups() < 0) {
    return Invalid(absl::StrCat(field, ".drop_backups"),
                   absl::StrCat("must be >= 0, got ", proto.drop_backups()));
  }
  Trajectory out;
  out.episode_return = proto.episode_return();
  out.normalised_return = proto.normalised_return();
  out.parameter_version = proto.parameter_version();
  out.drop_backups = proto.drop_backups();
  out.demonstration = proto.demonstration();
  if (proto.context_steps() < 0 ||
      proto.context_steps() >= proto.steps_size()) {
    return Invalid(absl::StrCat(field, ".context_steps"),
                   absl::StrCat("must be in [0, steps) = [0, ",
                                proto.steps_size(), "), got ",
                                proto.context_steps()));
  }
  out.continues = proto.continues();
  out.context_steps = proto.context_steps();
  out.steps.resize(proto.steps_size());
  ObservationShape shape;
  for (int i = 0; i < proto.steps_size(); ++i) {
    const v1::TrajectoryStep& step = proto.steps(i);
    const std::string step_field = absl::StrCat(field, ".steps[", i, "]");
    RETURN_IF_ERROR(CheckStep(step, step_field));
    if (rule == ObservationRule::kEveryStep || i == 0) {
      RETURN_IF_ERROR(CheckObservation(step, step_field, &shape));
    }
    TrajectoryStep& to = out.steps[i];
    to.observation.occupancy.assign(step.occupancy().begin(),
                                    step.occupancy().end());
    to.observation.vector.assign(step.vector().begin(), step.vector().end());
    to.buffer = step.buffer();
    to.action = static_cast<uint8_t>(step.action());
    to.legal_mask = static_cast<uint8_t>(step.legal_mask());
    to.reward = step.reward();
    to.root_value = step.root_value();
    std::copy(step.policy().begin(), step.policy().end(), to.policy.begin());
    to.fast_move = step.fast_move();
  }
  return out;
}

}  // namespace mmapzero::agent
