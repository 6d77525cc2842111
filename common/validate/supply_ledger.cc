#include "common/validate/supply_ledger.h"

#include <algorithm>

namespace mmapzero::validate {

double SupplyLedger::RemainingOver(int first, int last) const {
  double sum = 0.0;
  for (int t = first; t <= last; ++t) sum += remaining_[t];
  return sum;
}

void SupplyLedger::Consume(int first, int last, double demand, From from) {
  double left = demand;
  const int step = from == From::kLast ? -1 : 1;
  const int count = last - first + 1;
  int t = from == From::kLast ? last : first;
  for (int i = 0; i < count && left > 0; ++i, t += step) {
    const double take = std::min(remaining_[t], left);
    remaining_[t] -= take;
    left -= take;
  }
}

}  // namespace mmapzero::validate
