// The remaining copy supply W[t] per time step (rules §4.1): starts at
// supply_t; a copy takes its demand from the steps nearest to the use, each
// step fully and the last one only in part, so a later copy may share that
// last step.
#ifndef MMAPZERO_COMMON_VALIDATE_SUPPLY_LEDGER_H_
#define MMAPZERO_COMMON_VALIDATE_SUPPLY_LEDGER_H_

#include <utility>
#include <vector>

namespace mmapzero::validate {

// Supply covers a demand up to this relative shortfall (floating-point sums
// of step supplies rarely equal a demand exactly), and this absolute one in
// us (what is left of a step after several copies took from it differs
// from the demand of a next copy in the last bits: the engine accepts up to
// 1e-12 us too).
inline constexpr double kSupplyTolerance = 1e-9;
inline constexpr double kSupplyToleranceUs = 1e-12;

inline bool CoversDemand(double available, double demand) {
  return available >= demand * (1.0 - kSupplyTolerance) - kSupplyToleranceUs;
}

class SupplyLedger {
 public:
  // Which end of a copy interval is nearest to its use.
  enum class From {
    kLast,   // prefetch of an operand: steps u-1, u-2, ...
    kFirst,  // write-back of an output: steps d+1, d+2, ...
  };

  explicit SupplyLedger(std::vector<double> supply)
      : remaining_(std::move(supply)) {}

  double Remaining(int t) const { return remaining_[t]; }
  // Sum of the remaining supply of steps [first, last].
  double RemainingOver(int first, int last) const;
  // Takes `demand` from the steps of [first, last], starting at the end
  // `from`. A shortfall leaves those steps at 0 (callers report it).
  void Consume(int first, int last, double demand, From from);

 private:
  std::vector<double> remaining_;
};

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_SUPPLY_LEDGER_H_
