#include "common/solvers/heuristic/prefetch_interval_picker.h"

#include <algorithm>

namespace mmapzero::solvers {

bool CostAnalysisPrefetchIntervalPicker::CanKeepResident(double copy_us,
                                                         int32_t from,
                                                         int32_t to) const {
  if (to <= from + 1) return true;
  return elapsed_->Between(from + 1, to) <= ratios_.max * copy_us;
}

int32_t CostAnalysisPrefetchIntervalPicker::EarliestStart(double copy_us,
                                                          int32_t use,
                                                          int32_t lower) const {
  return elapsed_->EarliestStartWithin(use, ratios_.max * copy_us, lower);
}

// A copy interval is [s, use), so a start is at most use - 1 (use itself
// only for a zero-time copy).
int32_t CostAnalysisPrefetchIntervalPicker::LatestStart(double copy_us,
                                                        int32_t use,
                                                        int32_t lower) const {
  if (copy_us <= 0) return use;
  const int32_t s =
      elapsed_->LatestStartCovering(use, ratios_.min * copy_us, lower);
  return std::min(s, std::max(lower, use - 1));
}

int32_t CostAnalysisPrefetchIntervalPicker::PreferredStart(
    double copy_us, int32_t use, int32_t lower) const {
  const int32_t earliest = EarliestStart(copy_us, use, lower);
  const int32_t latest = LatestStart(copy_us, use, lower);
  const int32_t s =
      elapsed_->LatestStartCovering(use, ratios_.preferred * copy_us, lower);
  return std::clamp(s, std::min(earliest, latest), latest);
}

// XLA's Begin/Next: start at the preferred time and alternate later and
// earlier candidates until both bounds are passed.
std::vector<int32_t> CostAnalysisPrefetchIntervalPicker::PrefetchStarts(
    double copy_us, int32_t use, int32_t lower) const {
  std::vector<int32_t> starts;
  const int32_t earliest = EarliestStart(copy_us, use, lower);
  const int32_t latest = LatestStart(copy_us, use, lower);
  if (earliest > latest) return starts;
  const int32_t preferred = PreferredStart(copy_us, use, lower);
  starts.push_back(preferred);
  for (int32_t step = 1; static_cast<int>(starts.size()) < kMaxCandidates;
       ++step) {
    const bool later = preferred + step <= latest;
    const bool earlier = preferred - step >= earliest;
    if (!later && !earlier) break;
    if (later) starts.push_back(preferred + step);
    if (earlier && static_cast<int>(starts.size()) < kMaxCandidates) {
      starts.push_back(preferred - step);
    }
  }
  return starts;
}

}  // namespace mmapzero::solvers
