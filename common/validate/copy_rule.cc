#include "common/validate/copy_rule.h"

namespace mmapzero::validate {

// Growing the interval one step at a time away from the use: once a pair is
// taken by an earlier interval every longer interval contains it too, so the
// search stops there.
std::optional<int> LatestPrefetchStart(const SupplyLedger& ledger,
                                       const CopyIntervalSet& intervals,
                                       int use_time, int earliest,
                                       double demand) {
  double available = 0.0;
  for (int s = use_time - 1; s >= earliest && s >= 0; --s) {
    if (s < use_time - 1 && intervals.PairOwner(s) >= 0) break;
    available += ledger.Remaining(s);
    if (CoversDemand(available, demand)) return s;
  }
  return std::nullopt;
}

std::optional<int> EarliestWriteBackEnd(const SupplyLedger& ledger,
                                        const CopyIntervalSet& intervals,
                                        int write_time, int end,
                                        double demand) {
  double available = 0.0;
  for (int e = write_time + 1; e < end; ++e) {
    if (e > write_time + 1 && intervals.PairOwner(e - 1) >= 0) break;
    available += ledger.Remaining(e);
    if (CoversDemand(available, demand)) return e;
  }
  return std::nullopt;
}

}  // namespace mmapzero::validate
