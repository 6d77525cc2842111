// The order in which the heuristic places tensors, after XLA's
// CostAnalysis::GetMemoryBoundedness (memory_space_assignment/
// cost_analysis.cc): the fast-memory benefit of a tensor's uses under the
// roofline (here each buffer's benefit, L_t({}) - L_t({b})), divided by the
// square root of its size, so that small memory-bound tensors come first
// and a large tensor must earn its space. Ties: larger first, then longer
// lived (XLA's size and interval order), then lowest tensor index.
//
// The unit placed is an alias set: tensors joined by alias groups share
// their bytes (an in-place update), so they are planned together and placed
// all or nothing.
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_MEMORY_BOUNDEDNESS_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_MEMORY_BOUNDEDNESS_H_

#include <cstdint>
#include <vector>

#include "common/game/program.h"

namespace mmapzero::solvers {

struct AliasSet {
  std::vector<int32_t> tensors;  // dense tensor indices, by first decision
  double benefit_us = 0;         // sum of its buffers' benefits
  int64_t size = 0;              // bytes of its largest tensor
  int32_t live_steps = 0;        // first live step to last, inclusive
  double memory_boundedness = 0;
};

// Benefit per square root of a byte; 0 for an empty tensor.
double MemoryBoundedness(double benefit_us, int64_t size);

// Every tensor in exactly one set (a tensor without alias groups alone).
std::vector<AliasSet> BuildAliasSets(const game::Program& program);

// Sorts most memory-bound first, with the ties above.
void RankAliasSets(std::vector<AliasSet>* sets);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_MEMORY_BOUNDEDNESS_H_
