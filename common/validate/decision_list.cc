#include "common/validate/decision_list.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::validate {

std::vector<const BufferDecision*> IndexDecisions(
    const Workload& workload, const Solution& solution,
    absl::Span<const int> decision_order, std::vector<Violation>* violations) {
  const int num_buffers = workload.buffers_size();
  std::vector<const BufferDecision*> by_buffer(num_buffers, nullptr);
  std::vector<int> position(num_buffers, -1);
  bool permutation = solution.decisions_size() == num_buffers;
  for (int i = 0; i < solution.decisions_size(); ++i) {
    const BufferDecision& decision = solution.decisions(i);
    const int b = decision.buffer_id();
    if (b < 0 || b >= num_buffers) {
      violations->push_back(
          {-1, kRuleUnknownBuffer,
           absl::StrCat("decisions[", i, "] names buffer ", b,
                        "; the workload has buffers 0..", num_buffers - 1)});
      permutation = false;
      continue;
    }
    if (by_buffer[b] != nullptr) {
      violations->push_back(
          {b, kRuleDuplicateDecision,
           absl::StrCat("decided twice, at decisions[", position[b],
                        "] and decisions[", i, "]; the first one counts")});
      permutation = false;
      continue;
    }
    by_buffer[b] = &decision;
    position[b] = i;
  }
  for (int b : decision_order) {
    if (by_buffer[b] != nullptr) continue;
    violations->push_back(
        {b, kRuleMissingDecision, "no decision; counted as DROP"});
  }
  if (!permutation) return by_buffer;
  for (int i = 0; i < num_buffers; ++i) {
    const int listed = solution.decisions(i).buffer_id();
    if (listed == decision_order[i]) continue;
    violations->push_back(
        {listed, kRuleDecisionOrder,
         absl::StrCat("decisions[", i, "] is buffer ", listed,
                      "; decision order (target_time, operands before "
                      "outputs, id) puts buffer ",
                      decision_order[i], " there")});
    break;
  }
  return by_buffer;
}

}  // namespace mmapzero::validate
