// Uniformly random legal action: the paper's random-play baseline.
#ifndef MMAPZERO_COMMON_SOLVERS_RANDOM_POLICY_H_
#define MMAPZERO_COMMON_SOLVERS_RANDOM_POLICY_H_

#include <random>

#include "common/solvers/policy.h"

namespace mmapzero::solvers {

// One of the legal actions of a live game, uniformly, drawn from `rng`.
inline game::Action UniformLegalAction(const game::MMapGame& game,
                                       std::mt19937_64& rng) {
  const uint8_t mask = game.LegalActionMask();
  const int count = __builtin_popcount(mask);
  int pick = static_cast<int>(rng() % static_cast<uint64_t>(count));
  for (int a = 0; a < game::kNumActions; ++a) {
    if ((mask & (1u << a)) && pick-- == 0) return static_cast<game::Action>(a);
  }
  return game::Action::kDrop;  // unreachable: a live game has a legal action
}

class RandomPolicy : public Policy {
 public:
  explicit RandomPolicy(uint64_t seed) : rng_(seed) {}
  game::Action Choose(const game::MMapGame& game) override {
    return UniformLegalAction(game, rng_);
  }
  std::string name() const override { return "random"; }

 private:
  std::mt19937_64 rng_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_RANDOM_POLICY_H_
