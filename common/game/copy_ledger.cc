#include "common/game/copy_ledger.h"

#include <algorithm>

namespace mmapzero::game {

CopyLedger::CopyLedger(std::vector<double> supply)
    : remaining_(std::move(supply)), edge_busy_(remaining_.size(), 0) {}

bool CopyLedger::FindPrefetch(int32_t use, int32_t earliest, double demand,
                              CopyInterval* interval) const {
  if (demand <= 0) {
    *interval = {use, use - 1};
    return true;
  }
  double have = 0;
  for (int32_t s = use - 1; s >= std::max(earliest, 0); --s) {
    // Growing the interval down to s adds edge s (steps s and s + 1).
    if (s + 1 <= use - 1 && edge_busy_[s] > 0) return false;
    have += remaining_[s];
    if (Covers(have, demand)) {
      *interval = {s, use - 1};
      return true;
    }
  }
  return false;
}

bool CopyLedger::FindWriteBack(int32_t def, int32_t latest, double demand,
                               CopyInterval* interval) const {
  if (demand <= 0) {
    *interval = {def + 1, def};
    return true;
  }
  double have = 0;
  const int32_t last = std::min(latest, num_steps() - 1);
  for (int32_t e = def + 1; e <= last; ++e) {
    if (e - 1 >= def + 1 && edge_busy_[e - 1] > 0) return false;
    have += remaining_[e];
    if (Covers(have, demand)) {
      *interval = {def + 1, e};
      return true;
    }
  }
  return false;
}

int32_t CopyLedger::Consume(const CopyInterval& interval, double demand,
                            bool from_last) {
  const int32_t mark = static_cast<int32_t>(journal_.size());
  if (interval.empty()) return mark;
  double left = demand;
  const int32_t count = interval.last - interval.first + 1;
  for (int32_t i = 0; i < count && left > 0; ++i) {
    const int32_t t = from_last ? interval.last - i : interval.first + i;
    const double take = std::min(left, remaining_[t]);
    if (take <= 0) continue;
    journal_.push_back({t, remaining_[t]});
    remaining_[t] = std::max(0.0, remaining_[t] - take);
    left -= take;
  }
  for (int32_t t = interval.first; t < interval.last; ++t) ++edge_busy_[t];
  return mark;
}

void CopyLedger::Undo(int32_t mark, const CopyInterval& interval) {
  if (interval.empty()) return;
  for (int32_t t = interval.first; t < interval.last; ++t) --edge_busy_[t];
  while (static_cast<int32_t>(journal_.size()) > mark) {
    remaining_[journal_.back().step] = journal_.back().previous;
    journal_.pop_back();
  }
}

}  // namespace mmapzero::game
