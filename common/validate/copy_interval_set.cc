#include "common/validate/copy_interval_set.h"

namespace mmapzero::validate {

std::optional<int> CopyIntervalSet::FirstSharedPair(int first, int last) const {
  for (int k = first; k < last; ++k) {
    if (pair_owner_[k] >= 0) return k;
  }
  return std::nullopt;
}

void CopyIntervalSet::Add(int first, int last, int buffer_id) {
  for (int k = first; k < last; ++k) {
    if (pair_owner_[k] < 0) pair_owner_[k] = buffer_id;
  }
}

}  // namespace mmapzero::validate
