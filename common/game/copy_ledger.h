// The copy supply of a game (docs/game-engine.md): W[t], the copy time still
// available under instruction t, and the copy intervals made so far, kept
// as "busy edges": edge t is busy when some copy interval holds both step t
// and step t + 1. Two contiguous intervals share at most one step exactly
// when no edge lies in both, so the one-shared-step rule is a check of the
// new interval's edges. Every search walks only the steps of the interval it
// returns, whatever the program's length.
//
// Changes are journaled so the game can undo them in LIFO order.
#ifndef MMAPZERO_COMMON_GAME_COPY_LEDGER_H_
#define MMAPZERO_COMMON_GAME_COPY_LEDGER_H_

#include <cstdint>
#include <vector>

namespace mmapzero::game {

// A copy interval as inclusive time steps; empty when first > last.
struct CopyInterval {
  int32_t first = 0;
  int32_t last = -1;
  bool empty() const { return first > last; }
};

class CopyLedger {
 public:
  explicit CopyLedger(std::vector<double> supply);

  // Prefetch for an operand used at `use`: the latest s >= `earliest` such
  // that the supply of [s, use) covers `demand` and [s, use) shares at most
  // one step with every earlier copy; the interval [s, use - 1], or nullopt
  // (returned as found = false).
  bool FindPrefetch(int32_t use, int32_t earliest, double demand,
                    CopyInterval* interval) const;
  // Write-back for an output written at `def`: the earliest e <= `latest`
  // meeting the same conditions over (def, e]; the interval [def + 1, e].
  bool FindWriteBack(int32_t def, int32_t latest, double demand,
                     CopyInterval* interval) const;

  // Takes `demand` from the interval's steps, nearest to `toward_last`'s end
  // first (a prefetch consumes from its last step down, a write-back from its
  // first step up), and marks its edges busy. Returns the journal mark to
  // pass to Undo.
  int32_t Consume(const CopyInterval& interval, double demand, bool from_last);
  // Reverts everything consumed since `mark` (LIFO).
  void Undo(int32_t mark, const CopyInterval& interval);

  double remaining(int32_t t) const { return remaining_[t]; }
  bool edge_busy(int32_t t) const { return edge_busy_[t] > 0; }
  int32_t num_steps() const { return static_cast<int32_t>(remaining_.size()); }

 private:
  struct Change {
    int32_t step;
    double previous;
  };
  // Supply is "enough" within a relative tolerance, so that a demand equal
  // to a sum of supplies is not lost to rounding.
  static bool Covers(double have, double demand) {
    return have >= demand * (1 - 1e-12) - 1e-12;
  }

  std::vector<double> remaining_;
  std::vector<uint16_t> edge_busy_;  // copies holding steps t and t + 1
  std::vector<Change> journal_;
};

}  // namespace mmapzero::game

#endif  // MMAPZERO_COMMON_GAME_COPY_LEDGER_H_
