// The three actions of the MMapGame (docs/game-engine.md), in their index order.
#ifndef MMAPZERO_COMMON_GAME_ACTION_H_
#define MMAPZERO_COMMON_GAME_ACTION_H_

#include <cstdint>
#include <string_view>

#include "common/game/copy_ledger.h"

namespace mmapzero::game {

enum class Action : uint8_t { kCopy = 0, kNoCopy = 1, kDrop = 2 };
inline constexpr int kNumActions = 3;

inline std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kCopy:
      return "Copy";
    case Action::kNoCopy:
      return "NoCopy";
    case Action::kDrop:
      break;
  }
  return "Drop";
}

// What taking one action for the current buffer would do: the agent's view
// of an action, and what the engine applies.
struct ActionOutcome {
  bool legal = false;
  int32_t interval_start = 0;  // allocation I(b), inclusive;
  int32_t interval_end = -1;   // empty when start > end
  int64_t offset = -1;         // fast-memory offset; -1 for Drop
  CopyInterval copy;           // Copy only
  double reward = 0;           // L_t(B') - L_t(B' + {b}); 0 for Drop

  bool has_allocation() const { return interval_start <= interval_end; }
};

}  // namespace mmapzero::game

#endif  // MMAPZERO_COMMON_GAME_ACTION_H_
