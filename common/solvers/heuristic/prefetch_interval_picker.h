// When a prefetch may start and how long a tensor may stay resident, after
// XLA's CostAnalysisPrefetchIntervalPicker (memory_space_assignment/
// prefetch_interval_picker.cc). Everything is a ratio of elapsed compute
// time (elapsed_time.h) to the buffer's copy time (demand):
//  - min ratio: the latest start leaves at least min x copy time to overlap;
//  - preferred ratio: the start tried first leaves preferred x copy time;
//  - max ratio: the earliest start leaves at most max x copy time, so a
//    prefetch does not hold fast memory long before its use; the same bound
//    decides whether a tensor may stay resident across a gap between uses
//    (XLA's CanAllocateInAlternateMemoryNoCopy).
// XLA's open-source defaults are 0.8 / 1.5 / 10.
//
// Thread-safety: const methods only; share freely.
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_PREFETCH_INTERVAL_PICKER_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_PREFETCH_INTERVAL_PICKER_H_

#include <cstdint>
#include <vector>

#include "common/solvers/heuristic/elapsed_time.h"

namespace mmapzero::solvers {

struct OverlapRatios {
  double min = 0.8;
  double preferred = 1.5;
  double max = 10;
};

// The strategy the planner asks; one implementation below.
class PrefetchIntervalPicker {
 public:
  virtual ~PrefetchIntervalPicker() = default;
  // Whether a tensor with copy time `copy_us`, last used (or written) at
  // step `from`, may stay in fast memory until its next use at `to`.
  virtual bool CanKeepResident(double copy_us, int32_t from,
                               int32_t to) const = 0;
  // Prefetch start steps for a use at `use`, not before `lower`, best
  // first. At most kMaxCandidates; empty when no start is allowed.
  virtual std::vector<int32_t> PrefetchStarts(double copy_us, int32_t use,
                                              int32_t lower) const = 0;
  static constexpr int kMaxCandidates = 32;
};

class CostAnalysisPrefetchIntervalPicker : public PrefetchIntervalPicker {
 public:
  // `elapsed` must outlive the picker.
  CostAnalysisPrefetchIntervalPicker(const ElapsedTime* elapsed,
                                     OverlapRatios ratios)
      : elapsed_(elapsed), ratios_(ratios) {}

  bool CanKeepResident(double copy_us, int32_t from, int32_t to) const override;
  std::vector<int32_t> PrefetchStarts(double copy_us, int32_t use,
                                      int32_t lower) const override;

  // The three bounds of PrefetchStarts, exposed for tests.
  int32_t EarliestStart(double copy_us, int32_t use, int32_t lower) const;
  int32_t LatestStart(double copy_us, int32_t use, int32_t lower) const;
  int32_t PreferredStart(double copy_us, int32_t use, int32_t lower) const;

  const OverlapRatios& ratios() const { return ratios_; }

 private:
  const ElapsedTime* elapsed_;
  OverlapRatios ratios_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_PREFETCH_INTERVAL_PICKER_H_
