// The figures of a complete game under the workload's latency model (spec
// 4.6 and 6), from the sets S_t of buffers each instruction finds in fast
// memory. Return and latency are summed per instruction, each weighed by
// how often it runs (rules §7), so they do not depend on the order the
// buffers were decided in.
#ifndef MMAPZERO_COMMON_VALIDATE_MODELLED_FIGURES_H_
#define MMAPZERO_COMMON_VALIDATE_MODELLED_FIGURES_H_

#include <vector>

#include "common/validate/reference_latency.h"

namespace mmapzero::validate {

struct ModelledFigures {
  double return_us = 0.0;            // sum_t L_t({}) - L_t(S_t)
  double normalised_return = 0.0;    // return / sum_t L_t({}) - L_t(all); 0
                                     // when that sum is 0
  double latency_us = 0.0;           // sum_t L_t(S_t)
  double all_slow_latency_us = 0.0;  // sum_t L_t({})
  double all_fast_latency_us = 0.0;  // sum_t L_t(all)
};

// `fast[b]` is non-zero when buffer b is in fast memory (COPY or NO_COPY).
ModelledFigures ComputeFigures(const ReferenceLatency& latency,
                               const std::vector<char>& fast);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_MODELLED_FIGURES_H_
