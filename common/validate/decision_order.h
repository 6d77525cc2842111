// The order in which the game decides buffers (rules §3): by
// target_time, then operands before outputs, then by buffer id. A solution
// lists its decisions in this order.
#ifndef MMAPZERO_COMMON_VALIDATE_DECISION_ORDER_H_
#define MMAPZERO_COMMON_VALIDATE_DECISION_ORDER_H_

#include <vector>

#include "proto/workload.pb.h"

namespace mmapzero::validate {

// Buffer ids of `workload` in decision order.
std::vector<int> DecisionOrder(const Workload& workload);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_DECISION_ORDER_H_
