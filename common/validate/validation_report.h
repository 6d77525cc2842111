// What the validator finds: the rules a solution breaks, each named by a
// stable rule id (for scripts and tests) and a message with the values
// involved, plus the figures recomputed from the workload alone.
#ifndef MMAPZERO_COMMON_VALIDATE_VALIDATION_REPORT_H_
#define MMAPZERO_COMMON_VALIDATE_VALIDATION_REPORT_H_

#include <string>
#include <vector>

namespace mmapzero::validate {

// Rule ids. Each names one of the game's rules (rules §3-§5) or of the
// solution format (proto/solution.proto and the project's decisions on it).
inline constexpr char kRuleWorkload[] = "workload";  // workload fails checks
inline constexpr char kRuleUnknownBuffer[] = "unknown_buffer";
inline constexpr char kRuleDuplicateDecision[] = "duplicate_decision";
inline constexpr char kRuleMissingDecision[] = "missing_decision";
inline constexpr char kRuleDecisionOrder[] = "decision_order";
inline constexpr char kRuleUnknownAction[] = "unknown_action";
// Offset, allocation interval or copy interval inconsistent with the action
// (e.g. a prefetch whose copy interval does not end just before the use).
inline constexpr char kRuleIntervalShape[] = "interval_shape";
inline constexpr char kRuleOffsetRange[] = "offset_range";
inline constexpr char kRuleOffsetAlignment[] = "offset_alignment";
// Offset free and legal, but not the lowest free aligned one (rules §4.1).
inline constexpr char kRuleOffsetNotLowest[] = "offset_not_lowest";
inline constexpr char kRuleAllocationOverlap[] = "allocation_overlap";
inline constexpr char kRuleCopyIntervalOverlap[] = "copy_interval_overlap";
inline constexpr char kRuleSupplyOverdrawn[] = "supply_overdrawn";
// Copy interval legal, but not the latest start / earliest end (rules §4.1).
inline constexpr char kRuleCopyIntervalNotRule[] = "copy_interval_not_rule";
inline constexpr char kRuleAliasGroup[] = "alias_group";
inline constexpr char kRuleNoCopyWithoutAllocation[] =
    "nocopy_without_allocation";
// NoCopy operand not at the offset of its tensor's latest allocation.
inline constexpr char kRuleNoCopyOffset[] = "nocopy_offset";
// Warnings only (never fail validation).
inline constexpr char kRuleReportedFigures[] = "reported_figures";
inline constexpr char kRuleWorkloadName[] = "workload_name";

struct Violation {
  int buffer_id = -1;  // -1: about the solution as a whole
  std::string rule;    // one of the kRule* ids
  std::string message;
};

struct ActionCounts {
  int copy = 0;
  int no_copy = 0;
  int drop = 0;
};

struct ValidationReport {
  bool ok = false;                    // true iff `violations` is empty
  std::vector<Violation> violations;  // in decision order, then final checks
  // Findings that do not make a solution invalid: the solution's stated
  // return/latency disagree with the recomputation by more than 1e-6
  // relative (the recomputation is authoritative), or it names another
  // workload.
  std::vector<Violation> warnings;
  ActionCounts actions;
  // Recomputed from the workload alone (rules §4.6 and §6), even when invalid.
  double return_us = 0.0;            // sum_t L_t({}) - L_t(S_t)
  double normalised_return = 0.0;    // return / sum_t L_t({}) - L_t(all)
  double latency_us = 0.0;           // sum_t L_t(S_t)
  double all_slow_latency_us = 0.0;  // sum_t L_t({})
  double all_fast_latency_us = 0.0;  // sum_t L_t(all)
};

// "[rule] buffer 7: message" (no buffer part when buffer_id is -1).
std::string FormatViolation(const Violation& violation);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_VALIDATION_REPORT_H_
