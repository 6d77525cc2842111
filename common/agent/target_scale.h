// The factor between the engine's rewards (microseconds of modelled latency
// saved) and the units value and reward targets are trained in
// (TrainingConfig.target_scaling). NORMALISED maps a workload's maximum
// possible return (Program::max_return_us, every buffer in fast memory) to
// kNormalisedFullReturn, so one categorical support serves a 0.04 ms and an
// 8 ms program alike. RAW keeps microseconds: an imported Llama step's
// return of ~8,000 us is h(8,000) = 96 on the support, past a support of
// 50, while a 0.04 ms program's whole return fits inside one or two bins.
//
// Self-play multiplies every recorded and searched reward by the scale;
// the stored trajectories are in scaled units, so replay, reanalyse and the
// learner need not know the workload.
#ifndef MMAPZERO_COMMON_AGENT_TARGET_SCALE_H_
#define MMAPZERO_COMMON_AGENT_TARGET_SCALE_H_

#include "common/game/program.h"
#include "proto/muzero.pb.h"

namespace mmapzero::agent {

// What a game that puts every buffer in fast memory is worth, NORMALISED.
inline constexpr double kNormalisedFullReturn = 100.0;

// Multiplier from microseconds to target units (1 for RAW, and for a
// program that can save nothing).
inline double TargetScale(const TrainingConfig& training,
                          const game::Program& program) {
  if (training.target_scaling() != TrainingConfig::NORMALISED) return 1.0;
  const double max_return = program.max_return_us();
  return max_return > 0 ? kNormalisedFullReturn / max_return : 1.0;
}

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_TARGET_SCALE_H_
