// Greedy-by-benefit: the simple player the heuristic must beat. In the
// game's chronological order it puts a buffer in fast memory whenever that
// earns something and is legal now: a buffer with benefit_us > threshold_us
// takes NoCopy if legal, else Copy, else Drop; any other buffer is dropped
// (or, inside an alias group decided fast, given the first legal fast
// action). It never looks ahead, so early long-lived tensors can crowd out
// later, more valuable ones: the weakness a planned allocator removes.
//
// Not registered in MakePolicy; the heuristic's tests and docs use it.
#ifndef MMAPZERO_COMMON_SOLVERS_GREEDY_BENEFIT_POLICY_H_
#define MMAPZERO_COMMON_SOLVERS_GREEDY_BENEFIT_POLICY_H_

#include <string>

#include "common/solvers/policy.h"

namespace mmapzero::solvers {

class GreedyBenefitPolicy : public Policy {
 public:
  explicit GreedyBenefitPolicy(double threshold_us = 0)
      : threshold_us_(threshold_us) {}

  game::Action Choose(const game::MMapGame& game) override {
    const uint8_t mask = game.LegalActionMask();
    const auto legal = [mask](game::Action a) {
      return (mask & (1u << static_cast<int>(a))) != 0;
    };
    const double benefit =
        game.program().buffer(game.CurrentBuffer()).benefit_us;
    if (benefit > threshold_us_ || !legal(game::Action::kDrop)) {
      for (game::Action a : {game::Action::kNoCopy, game::Action::kCopy}) {
        if (legal(a)) return a;
      }
    }
    return game::Action::kDrop;
  }
  std::string name() const override { return "greedy-benefit"; }

 private:
  double threshold_us_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_GREEDY_BENEFIT_POLICY_H_
