#include "common/agent/targets.h"

#include "common/base/check.h"

namespace mmapzero::agent {

float ValueTarget(const Trajectory& trajectory, int t, int td_steps,
                  double discount) {
  const int T = static_cast<int>(trajectory.steps.size());
  if (t >= T) return 0.0f;
  double value = 0;
  double scale = 1;
  for (int j = 0; j < td_steps && t + j < T; ++j) {
    value += scale * trajectory.steps[t + j].reward;
    scale *= discount;
  }
  if (t + td_steps < T)
    value += scale * trajectory.steps[t + td_steps].root_value;
  return static_cast<float>(value);
}

PositionTargets MakeTargets(const Trajectory& trajectory, int index,
                            const TargetOptions& options) {
  const int T = static_cast<int>(trajectory.steps.size());
  MMAPZERO_CHECK(index >= 0 && index < T, "target position out of range");
  const int K = options.unroll_steps;
  PositionTargets out;
  out.value.resize(K + 1);
  out.reward.resize(K + 1);
  out.policy.resize(K + 1);
  out.policy_weight.resize(K + 1);
  out.actions.resize(K);
  out.demonstration = trajectory.demonstration;
  for (int k = 0; k <= K; ++k) {
    const int t = index + k;
    out.value[k] =
        ValueTarget(trajectory, t, options.td_steps, options.discount);
    out.reward[k] =
        (k > 0 && t - 1 < T) ? trajectory.steps[t - 1].reward : 0.0f;
    if (t < T) {
      out.policy[k] = trajectory.steps[t].policy;
      out.policy_weight[k] = trajectory.steps[t].fast_move ? 0 : 1;
    } else {
      out.policy[k] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
      out.policy_weight[k] = 0;
    }
    if (k < K) {
      out.actions[k] = t < T ? trajectory.steps[t].action : kPastEndAction;
    }
  }
  return out;
}

}  // namespace mmapzero::agent
