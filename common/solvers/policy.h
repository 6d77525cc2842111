// A policy picks one legal action for the current buffer of a game. The
// simple policies here (random, drop-all, fast-first) are the floor every
// real solver must beat, and the players behind `mmapctl play`.
//
// Thread-safety: a Policy instance is used by one thread at a time (it may
// hold a random generator); make one per thread.
#ifndef MMAPZERO_COMMON_SOLVERS_POLICY_H_
#define MMAPZERO_COMMON_SOLVERS_POLICY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/game/mmap_game.h"

namespace mmapzero::solvers {

class Policy {
 public:
  virtual ~Policy() = default;
  // A legal action for game.CurrentBuffer(); the game is not terminal.
  virtual game::Action Choose(const game::MMapGame& game) = 0;
  virtual std::string name() const = 0;
};

// Plays `game` to the end with `policy`.
void PlayOut(game::MMapGame& game, Policy& policy);

// The policy called `name` ("random", "drop-all", "fast-first"), seeded with
// `seed` where it draws random numbers. NotFound lists the known names.
absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(const std::string& name,
                                                   uint64_t seed);
std::vector<std::string> PolicyNames();

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_POLICY_H_
