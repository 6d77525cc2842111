// The copy intervals made so far, kept as the pairs of adjacent time steps
// (k, k+1) they cover. Two intervals share at most one step (Appendix A
// eq. 6) exactly when they cover no common pair, so a new interval is legal
// when all of its pairs are still free.
#ifndef MMAPZERO_COMMON_VALIDATE_COPY_INTERVAL_SET_H_
#define MMAPZERO_COMMON_VALIDATE_COPY_INTERVAL_SET_H_

#include <optional>
#include <vector>

namespace mmapzero::validate {

class CopyIntervalSet {
 public:
  explicit CopyIntervalSet(int num_steps)
      : pair_owner_(num_steps > 1 ? num_steps - 1 : 0, -1) {}

  // Buffer whose copy interval covers steps k and k+1, or -1.
  int PairOwner(int k) const { return pair_owner_[k]; }

  // The first pair (k, k+1) in [first, last] that is already covered.
  std::optional<int> FirstSharedPair(int first, int last) const;

  // Records [first, last] as the copy interval of `buffer_id`; pairs already
  // covered keep their first owner.
  void Add(int first, int last, int buffer_id);

 private:
  std::vector<int> pair_owner_;  // pair (k, k+1) at index k
};

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_COPY_INTERVAL_SET_H_
