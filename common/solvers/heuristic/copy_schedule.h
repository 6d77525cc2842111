// The copies (prefetches and write-backs) a plan intends, kept as the
// engine will make them. The engine gives each copy the latest (prefetch)
// or earliest (write-back) interval that the supply left by the copies
// decided before it allows (docs/game-engine.md), and it decides in
// chronological order; the planner picks copies in rank order. So every
// insertion replays the copies decided after the new one through a copy
// ledger with the engine's rule, and is refused when that would push an
// already planned copy outside the memory reserved for it (a prefetch
// starting earlier, a write-back ending later) or make it impossible.
// The intervals kept are then exactly those the engine will choose when the
// plan is played. Insert and Remove cost the number of copies decided after
// the one inserted.
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_COPY_SCHEDULE_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_COPY_SCHEDULE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "common/game/copy_ledger.h"

namespace mmapzero::solvers {

struct CopyRequest {
  int32_t position = 0;  // the buffer's index in decision order
  int32_t time = 0;      // use (prefetch) or definition (write-back)
  int32_t lower = 0;     // a prefetch starts no earlier (live range start,
                         // the first step of the use's run: rules §7)
  double demand_us = 0;
  bool write_back = false;
  // A write-back ends no later: the last step of its run (rules §7).
  int32_t upper = std::numeric_limits<int32_t>::max();
};

class CopySchedule {
 public:
  explicit CopySchedule(std::vector<double> supply);

  // Decides the interval the engine would give `request` among the copies
  // planned so far and asks `accept` whether to keep it; `accept` sets
  // *limit, the bound the copy must keep when later insertions replay it
  // (earliest first step of a prefetch, latest last step of a write-back).
  // False, with nothing changed, when the copy is impossible, disturbs a
  // planned copy, or is not accepted.
  using Accept =
      std::function<bool(const game::CopyInterval& interval, int32_t* limit)>;
  bool Insert(const CopyRequest& request, const Accept& accept);
  // Removes the copy planned at `position` (LIFO use is cheapest).
  void Remove(int32_t position);

  int32_t size() const { return static_cast<int32_t>(entries_.size()); }

 private:
  struct Entry {
    CopyRequest request;
    int32_t limit = 0;
    game::CopyInterval interval;
    int32_t mark = 0;
  };
  // Finds and consumes e's interval; false if impossible or outside limit.
  bool Apply(Entry* e);
  void Unapply(const Entry& e);
  // Undoes entries_[from..] and moves them to tail_.
  void UnwindFrom(size_t from);
  // Re-applies tail_[first..] after the applied entries; on failure undoes
  // what it applied and returns false.
  bool ReplayTail(size_t first);

  game::CopyLedger ledger_;
  std::vector<Entry> entries_;  // by position, all applied in that order
  // The unwound copies of the insertion or removal under way, kept between
  // calls so that one allocates nothing once it has grown: on a
  // 200,000-buffer program each insertion unwinds thousands of copies.
  std::vector<Entry> tail_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_COPY_SCHEDULE_H_
