// The copy interval the rules choose (rules §4.1), given the supply left and
// the copy intervals made so far:
//  - prefetch of an operand used at u: copy steps [s, u-1] with the LATEST
//    s >= `earliest` (live_range.start, and the first step of u's run: rules
//    §7) whose steps' remaining supply covers the demand and whose interval
//    shares at most one step with every earlier one;
//  - write-back of an output written at d: copy steps [d+1, e] with the
//    EARLIEST e < `end` (T, or one past the last step of d's run) meeting
//    the same two conditions.
// nullopt when no such step exists. Zero demand needs no copy interval;
// callers do not ask.
#ifndef MMAPZERO_COMMON_VALIDATE_COPY_RULE_H_
#define MMAPZERO_COMMON_VALIDATE_COPY_RULE_H_

#include <optional>

#include "common/validate/copy_interval_set.h"
#include "common/validate/supply_ledger.h"

namespace mmapzero::validate {

std::optional<int> LatestPrefetchStart(const SupplyLedger& ledger,
                                       const CopyIntervalSet& intervals,
                                       int use_time, int earliest,
                                       double demand);

std::optional<int> EarliestWriteBackEnd(const SupplyLedger& ledger,
                                        const CopyIntervalSet& intervals,
                                        int write_time, int end,
                                        double demand);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_COPY_RULE_H_
