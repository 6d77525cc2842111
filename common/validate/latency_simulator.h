// The latency simulator (rules §6): replays a solution in time against
// the workload's hardware profile, where the game's reward assumes every
// copy hides under its supply. Its figure is what "speed-up over the
// baseline" is measured with; it can exceed the modelled latency, as real
// hardware does (paper 5.3).
//
// The model:
//  - Instructions run one at a time in program order; instruction t runs for
//    L_t(S_t) us (reference_latency.h), S_t being its buffers the solution
//    puts in fast memory (COPY or NO_COPY).
//  - One DMA engine serves copies first-in first-out in order of issue, each
//    for demand_us (size / copy bandwidth unless the workload gives it).
//    Copies with zero demand move nothing and are not issued.
//  - The prefetch of an operand used at u with copy steps [s, u-1] is issued
//    when instruction s starts; instruction u does not start before every
//    prefetch of its operands has finished.
//  - The write-back of an output written at d is issued when instruction d
//    ends; it must finish before instruction e+1 starts, e being the end of
//    its allocation interval I(b) = [d, e], because the space is given up
//    there. Write-backs with e = T-1 must finish before the program ends
//    (the final drain).
//  - Copies issued at the same moment go in causal order (write-backs of the
//    instruction that ends before prefetches issued as the next one starts),
//    and among themselves in decision order.
//  - A wait before an instruction starts is a stall. Latency = the end of the
//    program = sum_t L_t(S_t) + all stalls (final drain included).
//  - Loops (rules §7): a step inside loops runs its repeat times, and so do
//    its waits. No copy crosses a loop's boundary, so every copy a trip
//    issues has finished when the trip ends and each trip runs exactly like
//    the first: one pass over the steps, each time and wait weighed by its
//    step's repeat, is the unrolled program's timeline. Waits for
//    write-backs due after step e count as e's; those for prefetches as
//    their use's.
// Not modelled: DMA traffic slowing the instructions down (the copy
// bandwidth is its own), copies of one tensor waiting for each other beyond
// the FIFO order, and any cost of NoCopy or Drop.
#ifndef MMAPZERO_COMMON_VALIDATE_LATENCY_SIMULATOR_H_
#define MMAPZERO_COMMON_VALIDATE_LATENCY_SIMULATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

struct SimulationResult {
  double latency_us = 0.0;      // end of the program, stalls included
  double compute_us = 0.0;      // sum_t repeat_t L_t(S_t), the modelled latency
  double stall_us = 0.0;        // latency_us - compute_us
  double final_drain_us = 0.0;  // part of stall_us after the last instruction
  double dma_busy_us = 0.0;     // sum of the copies' durations, every trip
  // Copies the solution plans; one inside a loop runs on every trip.
  int num_prefetches = 0;
  int num_write_backs = 0;
  // Wait before instruction t starts over the whole run, indexed by t
  // (final drain excluded).
  std::vector<double> stall_by_instruction_us;
};

// InvalidArgument when the workload fails CheckWorkload, a decision names an
// unknown buffer or repeats one, or a COPY with positive demand lacks copy
// steps inside the program (a prefetch's must start before its use). Buffers
// without a decision count as DROP. Other rules are the validator's: run it
// first (EvaluateSolution does).
absl::StatusOr<SimulationResult> SimulateSolution(const Workload& workload,
                                                  const Solution& solution);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_LATENCY_SIMULATOR_H_
