// The MMapGame (docs/game-engine.md): one buffer decided per move, in
// decision order, by Copy, NoCopy or Drop. Everything that plays the game —
// baselines, search, the agent, replays — goes through this interface.
//
// Branching for search is cheap both ways: Undo() reverts a move in time
// proportional to what the move changed (Drop-backup moves replay what they
// rolled back), and Clone() copies the state. Per-move cost depends on the
// allocations near the move, never on the program's length or the memory
// size (see allocation_index.h and copy_ledger.h).
//
// Not thread-safe: one game per thread; clones share only the immutable
// Program.
#ifndef MMAPZERO_COMMON_GAME_MMAP_GAME_H_
#define MMAPZERO_COMMON_GAME_MMAP_GAME_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/game/action.h"
#include "common/game/allocation_index.h"
#include "common/game/copy_ledger.h"
#include "common/game/program.h"
#include "proto/solution.pb.h"

namespace mmapzero::game {

struct GameOptions {
  // Paper 4.3.2: on an infeasible state return to the latest state with no
  // open alias group, mark the offending group slow and go on. Without it
  // the game ends at an infeasible state with return 0.
  bool drop_backup = true;
};

// What one ApplyAction did.
struct StepResult {
  double reward = 0;          // the action's own reward
  double backup_penalty = 0;  // minus the return given back by Drop-backup
  bool backed_up = false;     // this move led to an infeasible state
  double transition_reward() const { return reward + backup_penalty; }
};

// One transition of the episode, as the agent sees it.
struct Transition {
  int32_t buffer;
  Action action;
  double reward;  // including any Drop-backup penalty
};

class MMapGame {
 public:
  explicit MMapGame(std::shared_ptr<const Program> program,
                    GameOptions options = {});
  MMapGame(const MMapGame&) = default;
  MMapGame& operator=(const MMapGame&) = default;
  std::unique_ptr<MMapGame> Clone() const;

  const Program& program() const { return *program_; }
  const std::shared_ptr<const Program>& shared_program() const { return program_; }

  // Every buffer decided, or (without Drop-backup) an infeasible state.
  bool IsTerminal() const;
  bool infeasible() const { return infeasible_; }
  // Buffers decided in the current state, i.e. the position in decision order.
  int32_t depth() const { return static_cast<int32_t>(path_.size()); }
  // The buffer to decide now; -1 when terminal.
  int32_t CurrentBuffer() const;
  // Logical time of the current buffer (its target_time); T when terminal.
  int32_t CurrentTime() const;

  // Bit a set when Action(a) is legal for the current buffer.
  uint8_t LegalActionMask() const;
  std::vector<Action> LegalActions() const;
  // Legality, interval, offset and reward of an action for the current
  // buffer. Valid until the next ApplyAction/Undo.
  const ActionOutcome& Outcome(Action action) const;

  // Plays a legal action (CHECK-fails on an illegal one: callers consult
  // the mask).
  StepResult ApplyAction(Action action);
  // Reverts the last ApplyAction. CHECK-fails when there is none.
  void Undo();

  // The episode's return so far: the sum of transition rewards (0 for a
  // game that ended infeasible without Drop-backup).
  double Return() const { return episode_return_; }
  // Return / (sum_t L_t({}) - L_t(all)), in [0, 1] for a complete game.
  double NormalisedReturn() const;
  // Modelled latency of the current state, sum_t L_t(S_t), us.
  double Latency() const;
  int32_t drop_backups() const { return drop_backups_; }
  const std::vector<Transition>& trajectory() const { return trajectory_; }
  // What the move that brought the game to depth + 1 did (its offset,
  // intervals, copy and reward), 0 <= depth < depth(): with trajectory(),
  // what a replay of the game's actions would see, without replaying it.
  const ActionOutcome& PlayedOutcome(int32_t depth) const {
    return path_[depth].outcome;
  }

  // The decisions of the current state as a Solution (the final decisions
  // after any Drop-backup), with return, normalised return and latency.
  Solution ToSolution() const;

  // --- Observation (what the agent sees) ---
  // Fraction of each cell occupied, row-major [time_bin][byte_bin], for the
  // window [start, end] of logical time down-sampled to time_bins x
  // byte_bins over the whole fast memory.
  std::vector<float> OccupancyGrid(int32_t start, int32_t end,
                                   int32_t time_bins, int32_t byte_bins) const;
  // OccupancyGrid of a single time step.
  std::vector<float> OccupancyAt(int32_t t, int32_t byte_bins) const;
  // Copy supply left at steps [start, end]; 0 outside the program.
  std::vector<double> SupplyWindow(int32_t start, int32_t end) const;
  const AllocationIndex& allocations() const { return index_; }
  const CopyLedger& ledger() const { return ledger_; }

 private:
  static constexpr int64_t kUndecided = -2;
  static constexpr int64_t kSlow = -1;

  struct TensorAllocation {
    int32_t end = -1;  // last time step; -1 = never in fast memory
    int64_t offset = -1;
  };
  // Everything a move changed, so that UndoMove can restore it.
  struct MoveRecord {
    int32_t buffer;
    Action action;
    ActionOutcome outcome;
    int32_t rect_id;
    int32_t ledger_mark;
    TensorAllocation previous_tensor;
    int64_t previous_group;
    LatencyState previous_latency;
    int32_t previous_backup_depth;
    int32_t previous_open_groups;
  };
  // One ApplyAction: the move, plus what Drop-backup did after it.
  struct StepRecord {
    bool backed_up = false;
    bool ended_infeasible = false;
    double penalty = 0;
    int32_t stash_begin = 0;  // actions rolled back, in stash_
    int32_t group = -1;       // the alias group marked slow
  };

  void ComputeOutcomes() const;
  ActionOutcome CopyOutcome(const BufferInfo& b, int64_t required) const;
  ActionOutcome NoCopyOutcome(const BufferInfo& b, int64_t required) const;
  // Offset for an allocation over [start, end]: the group's offset if it
  // is free there, else the lowest fit; -1 if none.
  int64_t PlaceOffset(int32_t start, int32_t end, const BufferInfo& b,
                      int64_t required) const;
  void ApplyMove(int32_t buffer, Action action, const ActionOutcome& outcome);
  void UndoMove();
  // The next buffer is in a group decided fast and cannot be placed.
  bool NextIsInfeasible() const;
  void RollBackToBackup(StepRecord* step);

  std::shared_ptr<const Program> program_;
  GameOptions options_;
  AllocationIndex index_;
  CopyLedger ledger_;
  std::vector<LatencyState> latency_;
  std::vector<TensorAllocation> tensor_latest_;
  std::vector<int64_t> group_state_;  // kUndecided, kSlow or the offset
  std::vector<int32_t> group_remaining_;
  int32_t open_groups_ = 0;     // decided fast with members still to come
  int32_t backup_depth_ = 0;    // latest depth with no open group
  std::vector<MoveRecord> path_;
  std::vector<StepRecord> steps_;
  std::vector<Transition> trajectory_;
  std::vector<Action> stash_;
  double state_return_ = 0;    // sum of rewards of the moves in path_
  double episode_return_ = 0;  // sum of transition rewards
  int32_t drop_backups_ = 0;
  bool infeasible_ = false;

  mutable std::array<ActionOutcome, kNumActions> outcomes_;
  mutable bool outcomes_valid_ = false;
};

}  // namespace mmapzero::game

#endif  // MMAPZERO_COMMON_GAME_MMAP_GAME_H_
