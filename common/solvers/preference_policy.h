// Deterministic policies that take the first legal action of a fixed
// preference order: "drop-all" (everything in slow memory, the baseline of
// every speed-up) and "fast-first" (NoCopy, then Copy, then Drop: as much
// in fast memory as fits, greedily).
#ifndef MMAPZERO_COMMON_SOLVERS_PREFERENCE_POLICY_H_
#define MMAPZERO_COMMON_SOLVERS_PREFERENCE_POLICY_H_

#include <array>
#include <string>

#include "common/solvers/policy.h"

namespace mmapzero::solvers {

class PreferencePolicy : public Policy {
 public:
  PreferencePolicy(std::string name, std::array<game::Action, 3> order)
      : name_(std::move(name)), order_(order) {}
  game::Action Choose(const game::MMapGame& game) override {
    const uint8_t mask = game.LegalActionMask();
    for (game::Action action : order_) {
      if (mask & (1u << static_cast<int>(action))) return action;
    }
    return game::Action::kDrop;  // unreachable: a live game has a legal action
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  std::array<game::Action, 3> order_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_PREFERENCE_POLICY_H_
