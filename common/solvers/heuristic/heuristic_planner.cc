#include "common/solvers/heuristic/heuristic_planner.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "common/game/copy_ledger.h"
#include "common/solvers/heuristic/capacity_profile.h"
#include "common/solvers/heuristic/copy_schedule.h"
#include "common/solvers/heuristic/elapsed_time.h"
#include "common/solvers/heuristic/memory_boundedness.h"

namespace mmapzero::solvers {
namespace {

using game::Action;
using game::BufferInfo;
using game::CopyInterval;

constexpr int8_t kGroupUndecided = -1;
constexpr int8_t kGroupSlow = 0;
constexpr int8_t kGroupFast = 1;
// A max ratio that bounds nothing.
constexpr double kUnboundedRatio = 1e30;

std::vector<double> Supply(const game::Program& program) {
  std::vector<double> supply(program.num_steps());
  for (int32_t t = 0; t < program.num_steps(); ++t) {
    supply[t] = program.instruction(t).supply_us;
  }
  return supply;
}

int64_t Capacity(const game::Program& program, double fraction) {
  return static_cast<int64_t>(static_cast<double>(program.memory_size()) *
                              std::clamp(fraction, 0.0, 1.0));
}

class Planner {
 public:
  Planner(const game::Program& program, const PlannerOptions& options)
      : program_(program),
        elapsed_(ElapsedTime::FromSupply(program)),
        ranked_picker_(&elapsed_, options.ratios),
        fill_picker_(&elapsed_, {options.ratios.min, options.ratios.preferred,
                                 kUnboundedRatio}),
        picker_(&ranked_picker_),
        profile_(program.num_steps(),
                 Capacity(program, options.capacity_fraction)),
        schedule_(Supply(program)),
        position_(program.num_buffers()),
        plan_(program.num_buffers(), Action::kDrop),
        end_(program.num_buffers(), -1),
        group_state_(program.num_alias_groups(), kGroupUndecided),
        tensor_buffers_(program.num_tensors()) {
    const std::vector<int32_t>& order = program.decision_order();
    for (size_t i = 0; i < order.size(); ++i) {
      tensor_buffers_[program.buffer(order[i]).tensor].push_back(order[i]);
      position_[order[i]] = static_cast<int32_t>(i);
    }
  }

  std::optional<MemoryPlan> Run(const StopRequested& stop_requested) {
    std::vector<AliasSet> sets = BuildAliasSets(program_);
    RankAliasSets(&sets);
    for (const AliasSet& set : sets) {
      // Asked at every set: a set's copies replay the copies planned after
      // them, thousands on a large program.
      if (StopAsked(stop_requested)) return std::nullopt;
      if (!PlanSet(set, /*groups_slow=*/false)) {
        Rollback();
        PlanSet(set, /*groups_slow=*/true);
      }
      Commit();
    }
    if (!Fill(stop_requested)) return std::nullopt;
    return std::move(plan_);
  }

 private:
  struct Reservation {
    int32_t first, last;
    int64_t bytes;
  };

  int64_t Bytes(const BufferInfo& b) const {
    const int64_t align = std::max<int64_t>(1, program_.alignment());
    return (b.size + align - 1) / align * align;
  }
  bool Fits(const BufferInfo& b, int32_t first, int32_t last) const {
    return profile_.Fits(first, last, Bytes(b));
  }
  void Reserve(const BufferInfo& b, int32_t first, int32_t last) {
    if (first > last) return;
    profile_.Add(first, last, Bytes(b));
    reservations_.push_back({first, last, Bytes(b)});
  }
  // The first step a prefetch for `b` may start at: the tensor exists and
  // the copy stays inside the use's run (rules §7).
  int32_t PrefetchLower(const BufferInfo& b) const {
    return std::max(b.live_start, program_.instruction(b.target_time).run_start);
  }
  CopyRequest Request(int32_t id) const {
    const BufferInfo& b = program_.buffer(id);
    return {position_[id], b.target_time, PrefetchLower(b), b.demand_us,
            b.is_output, program_.instruction(b.target_time).run_end};
  }

  // Plans every tensor of `set`; false when an alias group decided fast
  // cannot be placed (the caller rolls back).
  bool PlanSet(const AliasSet& set, bool groups_slow) {
    for (int32_t tensor : set.tensors) {
      if (!PlanTensor(tensor, groups_slow)) return false;
    }
    return true;
  }

  bool PlanTensor(int32_t tensor, bool groups_slow) {
    const std::vector<int32_t>& ids = tensor_buffers_[tensor];
    // Positive benefit of the operands after each position.
    std::vector<double> later(ids.size() + 1, 0.0);
    for (size_t i = ids.size(); i-- > 0;) {
      const BufferInfo& b = program_.buffer(ids[i]);
      later[i] = later[i + 1] + (b.is_output ? 0 : std::max(0.0, b.benefit_us));
    }
    int32_t resident_end = -1;  // last step of the tensor's fast allocation
    for (size_t i = 0; i < ids.size(); ++i) {
      const BufferInfo& b = program_.buffer(ids[i]);
      int8_t forced = kGroupUndecided;
      if (b.alias_group >= 0) {
        forced = groups_slow ? kGroupSlow : group_state_[b.alias_group];
      }
      const std::optional<Action> action =
          b.is_output
              ? PlanOutput(ids[i], forced, later[i + 1], &resident_end)
              : PlanOperand(ids[i], forced, later[i + 1], &resident_end);
      if (!action.has_value()) return false;
      if (b.alias_group >= 0 &&
          group_state_[b.alias_group] == kGroupUndecided) {
        group_state_[b.alias_group] =
            *action == Action::kDrop ? kGroupSlow : kGroupFast;
        touched_groups_.push_back(b.alias_group);
      }
      plan_[ids[i]] = *action;
      end_[ids[i]] = resident_end;
      planned_.push_back(ids[i]);
    }
    return true;
  }

  std::optional<Action> PlanOutput(int32_t id, int8_t forced,
                                   double later_benefit,
                                   int32_t* resident_end) {
    const BufferInfo& b = program_.buffer(id);
    if (forced == kGroupSlow) return Action::kDrop;
    const bool must = forced == kGroupFast;
    if (!must && b.benefit_us <= 0 && later_benefit <= 0) return Action::kDrop;
    const int32_t d = b.target_time;
    // A group member decided fast already holds these bytes at step d.
    const int32_t first = must ? std::min(d + 1, b.live_end) : d;
    if (picker_->CanKeepResident(b.demand_us, d, b.live_end) &&
        Fits(b, first, b.live_end)) {
      Reserve(b, first, b.live_end);
      *resident_end = b.live_end;
      return Action::kNoCopy;
    }
    int32_t end = d;
    const bool written_back = schedule_.Insert(
        Request(id), [&](const CopyInterval& interval, int32_t* limit) {
          end = interval.empty() ? d : interval.last;
          *limit = end;
          return Fits(b, first, end);
        });
    if (written_back) {
      copies_.push_back(position_[id]);
      Reserve(b, first, end);
      *resident_end = end;
      return Action::kCopy;
    }
    if (must) {
      if (!Fits(b, first, b.live_end)) return std::nullopt;
      Reserve(b, first, b.live_end);
      *resident_end = b.live_end;
      return Action::kNoCopy;
    }
    return Action::kDrop;
  }

  std::optional<Action> PlanOperand(int32_t id, int8_t forced,
                                    double later_benefit,
                                    int32_t* resident_end) {
    const BufferInfo& b = program_.buffer(id);
    if (forced == kGroupSlow) return Action::kDrop;
    const bool must = forced == kGroupFast;
    const int32_t u = b.target_time;
    const std::optional<Action> none =
        must ? std::nullopt : std::optional<Action>(Action::kDrop);
    if (*resident_end >= u) {
      // Resident at u: an empty extension. Alias groups share their
      // members' tensors' bytes, so it may start an in-place update.
      return Action::kNoCopy;
    }
    if (!must && b.benefit_us <= 0 && later_benefit <= 0) return none;
    // Keep it resident across the gap.
    if (*resident_end >= 0 && !filling_ &&
        (must || picker_->CanKeepResident(b.demand_us, *resident_end, u)) &&
        Fits(b, *resident_end + 1, u)) {
      Reserve(b, *resident_end + 1, u);
      *resident_end = u;
      return Action::kNoCopy;
    }
    if (!must && b.benefit_us <= 0) return none;
    // Prefetch: the engine takes the latest copy start its supply allows;
    // the reservation starts at the picker's first candidate that fits
    // (never after the engine's start).
    const int32_t lower = PrefetchLower(b);
    const int32_t earliest =
        std::max(lower, picker_->EarliestStart(b.demand_us, u, lower));
    const std::vector<int32_t> starts =
        picker_->PrefetchStarts(b.demand_us, u, lower);
    int32_t reserved = u;
    const bool prefetched = schedule_.Insert(
        Request(id), [&](const CopyInterval& interval, int32_t* limit) {
          const int32_t copy_start = interval.empty() ? u : interval.first;
          if (copy_start < earliest) return false;
          int32_t failed = std::numeric_limits<int32_t>::min();
          for (int32_t start : starts) {
            start = std::max(std::min(start, copy_start), lower);
            if (start <= failed) continue;  // a longer one cannot fit either
            if (Fits(b, start, u)) {
              reserved = *limit = start;
              return true;
            }
            failed = start;
          }
          return false;
        });
    if (!prefetched) return none;
    copies_.push_back(position_[id]);
    Reserve(b, reserved, u);
    *resident_end = u;
    return Action::kCopy;
  }

  // MSA's later passes: in the game's chronological order, every buffer
  // still planned Drop (outside alias groups) is planned again against the
  // space and copy supply the ranked pass left, with no max ratio (a
  // prefetch may start as early as the supply needs, an output may stay
  // for its whole live range) and no residency across gaps. Planned copies
  // stay protected by the copy schedule. False when stopped.
  bool Fill(const StopRequested& stop_requested) {
    std::vector<int32_t> index_in_tensor(program_.num_buffers());
    for (const std::vector<int32_t>& ids : tensor_buffers_) {
      for (size_t i = 0; i < ids.size(); ++i) index_in_tensor[ids[i]] = i;
    }
    picker_ = &fill_picker_;
    filling_ = true;
    std::vector<int32_t> resident(program_.num_tensors(), -1);
    const std::vector<int32_t>& order = program_.decision_order();
    for (size_t i = 0; i < order.size(); ++i) {
      if (StopAskedAt(i, stop_requested)) return false;
      const int32_t id = order[i];
      const BufferInfo& b = program_.buffer(id);
      if (plan_[id] == Action::kDrop && b.alias_group < 0) {
        FillBuffer(id, index_in_tensor[id], resident[b.tensor]);
      }
      if (plan_[id] != Action::kDrop) {
        resident[b.tensor] = std::max(resident[b.tensor], end_[id]);
      }
    }
    Commit();
    return true;
  }

  void FillBuffer(int32_t id, size_t index, int32_t resident_end) {
    const BufferInfo& b = program_.buffer(id);
    const std::vector<int32_t>& ids = tensor_buffers_[b.tensor];
    double later = 0;
    for (size_t j = index + 1; j < ids.size(); ++j) {
      const BufferInfo& next = program_.buffer(ids[j]);
      if (!next.is_output) later += std::max(0.0, next.benefit_us);
      // A later NoCopy keeps the tensor resident across this use.
      if (!b.is_output && plan_[ids[j]] == Action::kNoCopy && !next.is_output &&
          resident_end >= 0) {
        plan_[id] = Action::kNoCopy;
        end_[id] = b.target_time;
        return;
      }
      if (plan_[ids[j]] != Action::kDrop) break;
    }
    const std::optional<Action> action =
        b.is_output ? PlanOutput(id, kGroupUndecided, later, &resident_end)
                    : PlanOperand(id, kGroupUndecided, later, &resident_end);
    plan_[id] = action.value_or(Action::kDrop);
    end_[id] = resident_end;
  }

  void Rollback() {
    for (size_t i = copies_.size(); i-- > 0;) schedule_.Remove(copies_[i]);
    for (const Reservation& r : reservations_) {
      profile_.Add(r.first, r.last, -r.bytes);
    }
    for (int32_t id : planned_) plan_[id] = Action::kDrop;
    for (int32_t group : touched_groups_) group_state_[group] = kGroupUndecided;
    Commit();
  }

  void Commit() {
    copies_.clear();
    reservations_.clear();
    planned_.clear();
    touched_groups_.clear();
  }

  const game::Program& program_;
  ElapsedTime elapsed_;
  CostAnalysisPrefetchIntervalPicker ranked_picker_;
  // The fill pass keeps tensors resident and starts prefetches as early as
  // the space allows: no max ratio.
  CostAnalysisPrefetchIntervalPicker fill_picker_;
  const CostAnalysisPrefetchIntervalPicker* picker_;
  // The fill pass extends no residency across a gap: the engine fixes the
  // offset of such an extension late, when the gap's own allocations,
  // decided earlier, may already hold those bytes.
  bool filling_ = false;
  CapacityProfile profile_;
  CopySchedule schedule_;
  std::vector<int32_t> position_;  // index of each buffer in decision order
  MemoryPlan plan_;
  // Last step each buffer planned fast keeps its tensor in fast memory.
  std::vector<int32_t> end_;
  std::vector<int8_t> group_state_;
  std::vector<std::vector<int32_t>> tensor_buffers_;
  // What the alias set being planned changed, for Rollback.
  std::vector<int32_t> copies_;  // positions
  std::vector<Reservation> reservations_;
  std::vector<int32_t> planned_;
  std::vector<int32_t> touched_groups_;
};

}  // namespace

std::optional<MemoryPlan> PlanMemorySpace(
    const game::Program& program, const PlannerOptions& options,
    const StopRequested& stop_requested) {
  return Planner(program, options).Run(stop_requested);
}

}  // namespace mmapzero::solvers
