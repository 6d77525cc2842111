// How many times a `while` loop runs, read from the module text alone:
//  - `backend_config={"known_trip_count":{"n":"N"}}` (XLA's own analysis,
//    in optimised dumps);
//  - else a condition whose ROOT compares the loop counter, a
//    get-tuple-element of the condition's parameter, with a bound N, a
//    constant or an element of the loop state that starts as a constant:
//    `counter < N` (or <=, != N, either operand order). The counter
//    starts at the constant the while's operand tuple holds for it, else at
//    0 (assumed, said so); it steps by one. A ROOT `and` of such a compare
//    and anything else (a loop that may stop early, e.g. on an end token)
//    gives the compare's count as an upper bound, said so.
// Anything else is unknown: the caller costs one trip and warns.
#ifndef MMAPZERO_COMMON_HLO_HLO_TRIP_COUNT_H_
#define MMAPZERO_COMMON_HLO_HLO_TRIP_COUNT_H_

#include <cstdint>
#include <string>

#include "common/hlo/hlo_module.h"

namespace mmapzero::hlo {

struct TripCount {
  int64_t trips = 1;   // >= 1; 1 when unknown
  bool known = false;  // false: unknown, costed as one trip
  // How it was found, for warnings and docs: "known_trip_count",
  // "counter from 0 to 32", "at most 100 (the loop may stop early)", ...
  std::string how;
  bool assumed_start = false;  // the counter's start was assumed to be 0
  bool upper_bound = false;    // the loop may stop before `trips`
};

// `caller`: the computation that holds `loop` (its operand is looked up
// there for the counter's start).
TripCount LoopTripCount(const HloModule& module, const HloComputation& caller,
                        const HloInstruction& loop);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_TRIP_COUNT_H_
