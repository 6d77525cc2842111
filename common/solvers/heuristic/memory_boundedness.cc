#include "common/solvers/heuristic/memory_boundedness.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace mmapzero::solvers {
namespace {

int32_t Find(std::vector<int32_t>& parent, int32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

double MemoryBoundedness(double benefit_us, int64_t size) {
  if (size <= 0) return 0;
  return benefit_us / std::sqrt(static_cast<double>(size));
}

std::vector<AliasSet> BuildAliasSets(const game::Program& program) {
  const int32_t num_tensors = program.num_tensors();
  std::vector<int32_t> parent(num_tensors);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<int32_t> group_tensor(program.num_alias_groups(), -1);
  for (int32_t id : program.decision_order()) {
    const game::BufferInfo& b = program.buffer(id);
    if (b.alias_group < 0) continue;
    int32_t& first = group_tensor[b.alias_group];
    if (first < 0) {
      first = b.tensor;
    } else {
      parent[Find(parent, b.tensor)] = Find(parent, first);
    }
  }
  // Sets and their tensors in order of each tensor's first decision.
  std::vector<int32_t> set_of_root(num_tensors, -1);
  std::vector<bool> seen(num_tensors, false);
  std::vector<int32_t> first_live(num_tensors, 0), last_live(num_tensors, 0);
  std::vector<AliasSet> sets;
  for (int32_t id : program.decision_order()) {
    const game::BufferInfo& b = program.buffer(id);
    const int32_t root = Find(parent, b.tensor);
    if (set_of_root[root] < 0) {
      set_of_root[root] = static_cast<int32_t>(sets.size());
      sets.emplace_back();
      first_live[set_of_root[root]] = b.live_start;
      last_live[set_of_root[root]] = b.live_end;
    }
    const int32_t s = set_of_root[root];
    AliasSet& set = sets[s];
    if (!seen[b.tensor]) {
      seen[b.tensor] = true;
      set.tensors.push_back(b.tensor);
    }
    set.benefit_us += std::max(0.0, b.benefit_us);
    set.size = std::max(set.size, b.size);
    first_live[s] = std::min(first_live[s], b.live_start);
    last_live[s] = std::max(last_live[s], b.live_end);
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    sets[s].live_steps = last_live[s] - first_live[s] + 1;
    sets[s].memory_boundedness =
        MemoryBoundedness(sets[s].benefit_us, sets[s].size);
  }
  return sets;
}

void RankAliasSets(std::vector<AliasSet>* sets) {
  std::stable_sort(sets->begin(), sets->end(),
                   [](const AliasSet& a, const AliasSet& b) {
                     return std::make_tuple(-a.memory_boundedness, -a.size,
                                            -a.live_steps, a.tensors[0]) <
                            std::make_tuple(-b.memory_boundedness, -b.size,
                                            -b.live_steps, b.tensors[0]);
                   });
}

}  // namespace mmapzero::solvers
