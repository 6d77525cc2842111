#include "common/solvers/heuristic/copy_schedule.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace mmapzero::solvers {

CopySchedule::CopySchedule(std::vector<double> supply)
    : ledger_(std::move(supply)) {}

bool CopySchedule::Apply(Entry* e) {
  const CopyRequest& r = e->request;
  game::CopyInterval interval;
  if (r.write_back) {
    if (!ledger_.FindWriteBack(r.time, r.upper, r.demand_us, &interval)) {
      return false;
    }
    if (!interval.empty() && interval.last > e->limit) return false;
  } else {
    if (!ledger_.FindPrefetch(r.time, r.lower, r.demand_us, &interval)) {
      return false;
    }
    if (!interval.empty() && interval.first < e->limit) return false;
  }
  e->interval = interval;
  e->mark = ledger_.Consume(interval, r.demand_us, !r.write_back);
  return true;
}

void CopySchedule::Unapply(const Entry& e) { ledger_.Undo(e.mark, e.interval); }

void CopySchedule::UnwindFrom(size_t from) {
  tail_.assign(entries_.begin() + static_cast<ptrdiff_t>(from), entries_.end());
  for (size_t i = entries_.size(); i-- > from;) Unapply(entries_[i]);
  entries_.resize(from);
}

bool CopySchedule::ReplayTail(size_t first) {
  const size_t base = entries_.size();
  for (size_t j = first; j < tail_.size(); ++j) {
    Entry& e = tail_[j];
    if (!Apply(&e)) {
      for (size_t i = entries_.size(); i-- > base;) Unapply(entries_[i]);
      entries_.resize(base);
      return false;
    }
    entries_.push_back(e);
  }
  return true;
}

bool CopySchedule::Insert(const CopyRequest& request, const Accept& accept) {
  const auto it = std::lower_bound(
      entries_.begin(), entries_.end(), request.position,
      [](const Entry& e, int32_t p) { return e.request.position < p; });
  const size_t at = static_cast<size_t>(it - entries_.begin());
  UnwindFrom(at);
  Entry entry{request, 0, {}, 0};
  // No bound yet: find the engine's interval, then ask.
  entry.limit = request.write_back ? ledger_.num_steps() : -1;
  bool ok = Apply(&entry);
  if (ok) {
    Unapply(entry);
    ok = accept(entry.interval, &entry.limit) && Apply(&entry);
  }
  if (ok) {
    entries_.push_back(entry);
    if (!ReplayTail(0)) {
      Unapply(entries_.back());
      entries_.pop_back();
      ok = false;
    }
  }
  if (!ok) {
    const bool restored = ReplayTail(0);
    (void)restored;  // the copies fitted in this order before
  }
  return ok;
}

void CopySchedule::Remove(int32_t position) {
  const auto it = std::lower_bound(
      entries_.begin(), entries_.end(), position,
      [](const Entry& e, int32_t p) { return e.request.position < p; });
  if (it == entries_.end() || it->request.position != position) return;
  const size_t at = static_cast<size_t>(it - entries_.begin());
  UnwindFrom(at);
  // With one copy fewer the others only get more supply, so they keep
  // their bounds; a replay that fails would be a broken invariant.
  const bool replayed = ReplayTail(1);
  (void)replayed;
}

}  // namespace mmapzero::solvers
