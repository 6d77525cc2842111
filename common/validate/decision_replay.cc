#include "common/validate/decision_replay.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/validate/copy_interval_set.h"
#include "common/validate/copy_rule.h"
#include "common/validate/occupancy_index.h"
#include "common/validate/supply_ledger.h"

namespace mmapzero::validate {
namespace {

struct StepRange {
  int first = 0;
  int last = 0;
};

std::string Show(int first, int last) {
  return absl::StrCat("[", first, ", ", last, "]");
}
std::string Show(const StepRange& range) {
  return Show(range.first, range.last);
}

// Whether offset + size (size > 0, a checked workload's) fits in int64: a
// reported offset can be anything.
bool EndFits(int64_t offset, int64_t size) {
  return offset <= std::numeric_limits<int64_t>::max() - size;
}

bool HasCopySteps(const BufferDecision& d) {
  return d.has_copy_start() || d.has_copy_end();
}
bool HasInterval(const BufferDecision& d) {
  return d.has_interval_start() || d.has_interval_end();
}

std::string StatedCopySteps(const BufferDecision& d) {
  return absl::StrCat(
      "[", d.has_copy_start() ? absl::StrCat(d.copy_start()) : "none", ", ",
      d.has_copy_end() ? absl::StrCat(d.copy_end()) : "none", "]");
}
std::string StatedInterval(const BufferDecision& d) {
  return absl::StrCat(
      "[", d.has_interval_start() ? absl::StrCat(d.interval_start()) : "none",
      ", ", d.has_interval_end() ? absl::StrCat(d.interval_end()) : "none",
      "]");
}

std::vector<double> InitialSupply(const ReferenceLatency& latency) {
  std::vector<double> supply(latency.num_steps());
  for (int t = 0; t < latency.num_steps(); ++t) supply[t] = latency.Supply(t);
  return supply;
}

// The latest fast-memory allocation of a tensor (rules §4.2): the one ending
// last; ties go to the later decision.
struct TensorAllocation {
  int last_step = 0;
  int64_t offset = 0;
  int buffer_id = -1;
};

// The decision of an alias group: its first decided member's (rules §4.4).
struct AliasDecision {
  int buffer_id = -1;
  bool fast = false;
  int64_t offset = 0;
};

class Replay {
 public:
  Replay(const Workload& workload, const ReferenceLatency& latency,
         std::vector<Violation>* violations)
      : workload_(workload),
        latency_(latency),
        num_steps_(workload.instructions_size()),
        ledger_(InitialSupply(latency)),
        intervals_(num_steps_),
        copy_steps_(workload.buffers_size()),
        violations_(violations) {
    result_.fast.assign(workload.buffers_size(), 0);
  }

  void Apply(int b, const BufferDecision* decision) {
    if (decision == nullptr) {
      ++result_.actions.drop;
      return;
    }
    switch (decision->action()) {
      case COPY:
        ++result_.actions.copy;
        result_.fast[b] = 1;
        ApplyCopy(b, *decision);
        return;
      case NO_COPY:
        ++result_.actions.no_copy;
        result_.fast[b] = 1;
        if (workload_.buffers(b).is_output()) {
          ApplyNoCopyOutput(b, *decision);
        } else {
          ApplyNoCopyOperand(b, *decision);
        }
        return;
      case DROP:
        ++result_.actions.drop;
        ApplyDrop(b, *decision);
        return;
      default:
        ++result_.actions.drop;
        Report(b, kRuleUnknownAction,
               absl::StrCat("action ", static_cast<int>(decision->action()),
                            " is none of COPY (0), NO_COPY (1), DROP (2); "
                            "counted as DROP"));
        return;
    }
  }

  ReplayResult Finish() { return std::move(result_); }

 private:
  void Report(int b, const char* rule, std::string message) {
    violations_->push_back({b, rule, std::move(message)});
  }

  void ApplyDrop(int b, const BufferDecision& d) {
    if (d.has_offset() || HasInterval(d) || HasCopySteps(d)) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("DROP holds no fast memory, but states offset ",
                          d.has_offset() ? absl::StrCat(d.offset()) : "none",
                          ", interval ", StatedInterval(d), ", copy steps ",
                          StatedCopySteps(d)));
    }
    DecideAlias(b, /*fast=*/false, 0);
  }

  // Rules §4.1. I(b) follows from the copy steps; the offset is the lowest free.
  void ApplyCopy(int b, const BufferDecision& d) {
    const int use = workload_.buffers(b).target_time();
    const double demand = latency_.Demand(b);
    std::optional<StepRange> expected;
    if (demand <= 0) {
      if (HasCopySteps(d)) {
        Report(b, kRuleIntervalShape,
               absl::StrCat("demand is 0 us, so the copy has no steps; got ",
                            StatedCopySteps(d)));
      }
      expected = StepRange{use, use};
    } else {
      expected = ApplyCopySteps(b, d, demand);
    }
    const bool interval_ok = expected && CheckInterval(b, d, *expected);
    Place(b, d, interval_ok);
  }

  // Checks and applies the copy steps of a COPY with positive demand.
  // Returns I(b) when the steps have the shape the action requires.
  std::optional<StepRange> ApplyCopySteps(int b, const BufferDecision& d,
                                          double demand) {
    const std::optional<StepRange> steps = CopyStepsInProgram(b, d, demand);
    if (!steps.has_value()) return std::nullopt;
    const bool shape_ok = CheckCopyShape(b, *steps);
    ChargeCopy(b, *steps, demand, /*check_rule=*/shape_ok);
    if (!shape_ok) return std::nullopt;
    const int use = workload_.buffers(b).target_time();
    return workload_.buffers(b).is_output() ? StepRange{use, steps->last}
                                            : StepRange{steps->first, use};
  }

  // The stated copy steps when both ends are given and lie in the program.
  std::optional<StepRange> CopyStepsInProgram(int b, const BufferDecision& d,
                                              double demand) {
    if (!d.has_copy_start() || !d.has_copy_end()) {
      Report(
          b, kRuleIntervalShape,
          absl::StrFormat("COPY with demand %.6g us needs copy steps; got %s",
                          demand, StatedCopySteps(d)));
      return std::nullopt;
    }
    const StepRange steps{d.copy_start(), d.copy_end()};
    if (steps.first < 0 || steps.last >= num_steps_ ||
        steps.first > steps.last) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("copy steps ", Show(steps),
                          " are not an interval inside the program [0, ",
                          num_steps_ - 1, "]"));
      return std::nullopt;
    }
    return steps;
  }

  // A write-back's steps start right after the write; a prefetch's end right
  // before the use and start no earlier than the tensor exists.
  bool CheckCopyShape(int b, const StepRange& steps) {
    const Buffer& buffer = workload_.buffers(b);
    const int use = buffer.target_time();
    bool shape_ok = true;
    if (buffer.is_output() && steps.first != use + 1) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("write-back copy steps ", Show(steps),
                          " must start right after the write at ", use));
      shape_ok = false;
    }
    if (!buffer.is_output() && steps.last != use - 1) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("prefetch copy steps ", Show(steps),
                          " must end right before the use at ", use));
      shape_ok = false;
    }
    const LoopNest& loops = latency_.loops();
    if (steps.first < loops.RunStart(use) || steps.last > loops.RunEnd(use)) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("copy steps ", Show(steps), " leave the steps ",
                          Show(loops.RunStart(use), loops.RunEnd(use)),
                          " that share step ", use,
                          "'s loops: a copy never crosses a loop's boundary "
                          "(rules §7)"));
      shape_ok = false;
    }
    const LiveRange& live = buffer.live_range();
    if (!buffer.is_output() && steps.first < live.start()) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("prefetch copy steps ", Show(steps),
                          " start before the tensor exists (live_range ",
                          Show(live.start(), live.end()), ")"));
      shape_ok = false;
    }
    return shape_ok;
  }

  // Checks the steps against earlier copy steps (eq. 6) and the supply left
  // (eq. 5), then, when they are legal and `check_rule`, against the steps
  // the rules choose; takes the demand from the ledger either way.
  void ChargeCopy(int b, const StepRange& steps, double demand,
                  bool check_rule) {
    const Buffer& buffer = workload_.buffers(b);
    const bool output = buffer.is_output();
    // A copy stays inside its step's run (rules §7).
    const int use = buffer.target_time();
    const LoopNest& loops = latency_.loops();
    const std::optional<int> rule =
        output ? EarliestWriteBackEnd(ledger_, intervals_, use,
                                      loops.RunEnd(use) + 1, demand)
               : LatestPrefetchStart(
                     ledger_, intervals_, use,
                     std::max(buffer.live_range().start(), loops.RunStart(use)),
                     demand);
    bool legal = true;
    if (const std::optional<int> k =
            intervals_.FirstSharedPair(steps.first, steps.last)) {
      const int owner = intervals_.PairOwner(*k);
      Report(b, kRuleCopyIntervalOverlap,
             absl::StrCat("copy steps ", Show(steps), " share steps ", *k,
                          " and ", *k + 1, " with the copy steps ",
                          Show(copy_steps_[owner]), " of buffer ", owner));
      legal = false;
    }
    const double available = ledger_.RemainingOver(steps.first, steps.last);
    if (!CoversDemand(available, demand)) {
      Report(b, kRuleSupplyOverdrawn,
             absl::StrFormat("copy steps %s have %.6g us of supply left; the "
                             "copy needs %.6g us",
                             Show(steps), available, demand));
      legal = false;
    }
    const int chosen = output ? steps.last : steps.first;
    if (check_rule && legal && rule != chosen) {
      Report(b, kRuleCopyIntervalNotRule,
             absl::StrCat("copy steps ", Show(steps),
                          output ? "; the earliest legal end is "
                                 : "; the latest legal start is ",
                          rule.has_value() ? absl::StrCat(*rule) : "none"));
    }
    ledger_.Consume(
        steps.first, steps.last, demand,
        output ? SupplyLedger::From::kFirst : SupplyLedger::From::kLast);
    intervals_.Add(steps.first, steps.last, b);
    copy_steps_[b] = steps;
  }

  // Rules §4.2: an output kept in fast memory holds its whole live range.
  void ApplyNoCopyOutput(int b, const BufferDecision& d) {
    RejectCopySteps(b, d);
    const LiveRange& live = workload_.buffers(b).live_range();
    Place(b, d, CheckInterval(b, d, {live.start(), live.end()}));
  }

  // Rules §4.2: an operand kept in fast memory extends its tensor's latest
  // allocation over (s, u] at the same offset.
  void ApplyNoCopyOperand(int b, const BufferDecision& d) {
    RejectCopySteps(b, d);
    const Buffer& buffer = workload_.buffers(b);
    const int use = buffer.target_time();
    auto it = latest_.find(buffer.tensor_id());
    if (it == latest_.end()) {
      Report(b, kRuleNoCopyWithoutAllocation,
             absl::StrCat("NO_COPY operand of tensor ", buffer.tensor_id(),
                          ", but no earlier buffer of that tensor holds fast "
                          "memory"));
      if (d.has_offset()) DecideAlias(b, /*fast=*/true, d.offset());
      return;
    }
    const TensorAllocation latest = it->second;
    if (!d.has_offset()) {
      Report(b, kRuleIntervalShape,
             absl::StrCat("NO_COPY operand needs the offset ", latest.offset,
                          " of its tensor's latest allocation; got none"));
    } else if (d.offset() != latest.offset) {
      Report(b, kRuleNoCopyOffset,
             absl::StrCat("offset ", d.offset(), ", but tensor ",
                          buffer.tensor_id(),
                          " stays where its latest "
                          "allocation (buffer ",
                          latest.buffer_id, ", to step ", latest.last_step,
                          ") put it, at offset ", latest.offset));
    }
    if (latest.last_step >= use) {
      if (HasInterval(d)) {
        Report(b, kRuleIntervalShape,
               absl::StrCat("tensor ", buffer.tensor_id(),
                            " holds fast memory to step ", latest.last_step,
                            " >= the use at ", use,
                            ", so the extension is empty; got interval ",
                            StatedInterval(d)));
      }
    } else {
      CheckInterval(b, d, {latest.last_step + 1, use});
    }
    if (!d.has_offset()) return;
    DecideAlias(b, /*fast=*/true, d.offset());
    Record(b, d);
  }

  void RejectCopySteps(int b, const BufferDecision& d) {
    if (!HasCopySteps(d)) return;
    Report(b, kRuleIntervalShape,
           absl::StrCat("NO_COPY makes no copy, but states copy steps ",
                        StatedCopySteps(d)));
  }

  // True when the stated allocation interval is `expected`.
  bool CheckInterval(int b, const BufferDecision& d,
                     const StepRange& expected) {
    if (d.has_interval_start() && d.has_interval_end() &&
        d.interval_start() == expected.first &&
        d.interval_end() == expected.last) {
      return true;
    }
    Report(b, kRuleIntervalShape,
           absl::StrCat("allocation interval ", StatedInterval(d),
                        "; the action gives I(b) = ", Show(expected)));
    return false;
  }

  // Offset of a COPY or NoCopy output: in range, aligned, the alias group's
  // if it has one, else the lowest free aligned offset over I(b).
  void Place(int b, const BufferDecision& d, bool interval_ok) {
    const Buffer& buffer = workload_.buffers(b);
    if (!d.has_offset()) {
      Report(b, kRuleIntervalShape,
             "a buffer in fast memory needs an offset; got none");
      return;
    }
    const int64_t offset = d.offset();
    const int64_t size = buffer.size();
    bool legal = true;
    if (offset < 0 || offset > workload_.memory_size() - size) {
      Report(b, kRuleOffsetRange,
             absl::StrCat("bytes [", offset, ", ",
                          EndFits(offset, size)
                              ? absl::StrCat(offset + size)
                              : absl::StrCat(offset, " + ", size),
                          ") are not inside the fast memory [0, ",
                          workload_.memory_size(), ")"));
      legal = false;
    }
    const int64_t alignment = workload_.alignment();
    if (alignment > 1 && offset % alignment != 0) {
      Report(b, kRuleOffsetAlignment,
             absl::StrCat("offset ", offset, " is not a multiple of alignment ",
                          alignment));
      legal = false;
    }
    const bool group_decided =
        buffer.has_alias_id() && alias_.contains(buffer.alias_id());
    if (legal && interval_ok && !group_decided) {
      const StepRange steps{d.interval_start(), d.interval_end()};
      if (occupancy_.IsFree(steps.first, steps.last, offset, size)) {
        const std::optional<int64_t> lowest = occupancy_.LowestFreeOffset(
            steps.first, steps.last, size, alignment, workload_.memory_size());
        if (lowest != offset) {
          Report(
              b, kRuleOffsetNotLowest,
              absl::StrCat(
                  "offset ", offset,
                  "; the lowest free aligned offset over steps ", Show(steps),
                  " is ", lowest.has_value() ? absl::StrCat(*lowest) : "none"));
        }
      }
    }
    DecideAlias(b, /*fast=*/true, offset);
    Record(b, d);
  }

  // Rules §4.4: the first decided member decides the group.
  void DecideAlias(int b, bool fast, int64_t offset) {
    const Buffer& buffer = workload_.buffers(b);
    if (!buffer.has_alias_id()) return;
    const int group_id = buffer.alias_id();
    auto [it, inserted] =
        alias_.try_emplace(group_id, AliasDecision{b, fast, offset});
    if (inserted) return;
    const AliasDecision& group = it->second;
    if (group.fast && !fast) {
      Report(b, kRuleAliasGroup,
             absl::StrCat("dropped, but alias group ", group_id,
                          " is in fast memory at offset ", group.offset,
                          " (decided by buffer ", group.buffer_id, ")"));
    } else if (!group.fast && fast) {
      Report(b, kRuleAliasGroup,
             absl::StrCat("in fast memory, but alias group ", group_id,
                          " is in slow memory (buffer ", group.buffer_id,
                          " was dropped)"));
    } else if (fast && group.offset != offset) {
      Report(b, kRuleAliasGroup,
             absl::StrCat("offset ", offset, ", but alias group ", group_id,
                          " is at offset ", group.offset,
                          " (decided by buffer ", group.buffer_id, ")"));
    }
  }

  // Keeps the stated allocation when its interval lies inside the program,
  // and makes it its tensor's latest when it ends no earlier.
  void Record(int b, const BufferDecision& d) {
    if (!d.has_offset() || !d.has_interval_start() || !d.has_interval_end()) {
      return;
    }
    const Buffer& buffer = workload_.buffers(b);
    // Overlaps are computed on offset + size; an offset that far out is
    // reported already (offset_range or no_copy_offset) and holds nothing.
    if (!EndFits(d.offset(), buffer.size())) return;
    const int first = d.interval_start();
    const int last = d.interval_end();
    if (first < 0 || last >= num_steps_ || first > last) return;
    const Allocation allocation{b,
                                first,
                                last,
                                d.offset(),
                                buffer.size(),
                                buffer.has_alias_id() ? buffer.alias_id() : -1,
                                buffer.tensor_id()};
    occupancy_.Add(allocation);
    result_.allocations.push_back(allocation);
    auto [it, inserted] = latest_.try_emplace(
        buffer.tensor_id(), TensorAllocation{last, d.offset(), b});
    if (!inserted && last >= it->second.last_step) {
      it->second = TensorAllocation{last, d.offset(), b};
    }
  }

  const Workload& workload_;
  const ReferenceLatency& latency_;
  const int num_steps_;
  SupplyLedger ledger_;
  CopyIntervalSet intervals_;
  std::vector<StepRange> copy_steps_;  // by buffer, for messages
  OccupancyIndex occupancy_;
  absl::flat_hash_map<int, TensorAllocation> latest_;  // by tensor id
  absl::flat_hash_map<int, AliasDecision> alias_;      // by alias id
  std::vector<Violation>* violations_;
  ReplayResult result_;
};

}  // namespace

ReplayResult ReplayDecisions(
    const Workload& workload, const ReferenceLatency& latency,
    absl::Span<const int> decision_order,
    absl::Span<const BufferDecision* const> decision_of,
    std::vector<Violation>* violations) {
  Replay replay(workload, latency, violations);
  for (int b : decision_order) replay.Apply(b, decision_of[b]);
  return replay.Finish();
}

}  // namespace mmapzero::validate
