#include "common/bound/exact_optimum.h"

#include "common/game/mmap_game.h"

namespace mmapzero::bound {
namespace {

class Search {
 public:
  Search(const std::shared_ptr<const game::Program>& program,
         int64_t max_moves)
      // Without Drop-backup an infeasible state ends the game: every valid
      // solution is still a sequence of legal moves, and dead ends stop.
      : game_(program, game::GameOptions{.drop_backup = false}),
        max_moves_(max_moves) {}

  // False when the move budget ran out.
  bool Run() {
    if (game_.IsTerminal()) {
      if (!game_.infeasible() &&
          (!found_ || game_.Return() > best_.return_us())) {
        best_ = game_.ToSolution();
        found_ = true;
      }
      return true;
    }
    const uint8_t legal = game_.LegalActionMask();
    for (int a = 0; a < 3; ++a) {
      if ((legal & (1u << a)) == 0) continue;
      if (++moves_ > max_moves_) return false;
      game_.ApplyAction(static_cast<game::Action>(a));
      const bool finished = Run();
      game_.Undo();
      if (!finished) return false;
    }
    return true;
  }

  bool found() const { return found_; }
  const Solution& best() const { return best_; }
  int64_t moves() const { return moves_; }

 private:
  game::MMapGame game_;
  const int64_t max_moves_;
  int64_t moves_ = 0;
  bool found_ = false;
  Solution best_;
};

}  // namespace

std::optional<ExactOptimum> FindExactOptimum(
    const std::shared_ptr<const game::Program>& program, int64_t max_moves) {
  Search search(program, max_moves);
  if (!search.Run() || !search.found()) return std::nullopt;
  return ExactOptimum{.best = search.best(), .moves = search.moves()};
}

}  // namespace mmapzero::bound
