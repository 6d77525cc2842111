// The static features of rules §2, computed from each instruction's
// latency model and written into the workload, so that a workload can be
// shipped (and played) with static features only, as the paper's Table 1
// lists them:
//   demand_us  = size / copy bandwidth                       (every buffer)
//   benefit_us = L_t({}) - L_t({b})                          (every buffer)
//   supply_us  = L_t(all buffers of t in fast memory)   (every instruction)
// Roofline: L_t(S) = max(compute_t, sum_b size_b / bw(memory of b)), with
// compute_t = flops / peak_tflops when flops > 0, else compute_us; a
// bandwidth of g GB/s moves g * 1e3 bytes per microsecond.
#ifndef MMAPZERO_COMMON_WORKLOAD_STATIC_FEATURES_H_
#define MMAPZERO_COMMON_WORKLOAD_STATIC_FEATURES_H_

#include "absl/status/status.h"
#include "proto/workload.pb.h"

namespace mmapzero {

// Overwrites demand_us and benefit_us of every buffer and supply_us of
// every instruction that has a latency model. Measured tables give the
// benefits of the buffers they list (latency_us[0] - latency_us[1 << i]) and
// the supply latency_us[all] minus the static benefits of the buffers they
// do not list; instructions without a model keep what they have. Benefits
// are clamped at 0 (a fast memory slower than the slow one gains nothing).
// InvalidArgument when the workload fails CheckWorkload or a demand needs a
// copy bandwidth the hardware lacks.
absl::Status FillStaticFeatures(Workload* workload);

// Removes every instruction's latency model, leaving supply_us and the
// buffers' benefit_us as the only latency information (the paper's static
// game). Call after FillStaticFeatures.
void DropLatencyModels(Workload* workload);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_STATIC_FEATURES_H_
