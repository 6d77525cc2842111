#include "common/game/mmap_game.h"

#include <algorithm>

#include "common/base/check.h"

namespace mmapzero::game {
namespace {

std::vector<double> InitialSupply(const Program& program) {
  std::vector<double> supply(program.num_steps());
  for (int32_t t = 0; t < program.num_steps(); ++t) {
    supply[t] = program.instruction(t).supply_us;
  }
  return supply;
}

std::vector<LatencyState> InitialLatency(const Program& program) {
  std::vector<LatencyState> latency(program.num_steps());
  for (int32_t t = 0; t < program.num_steps(); ++t) {
    latency[t] = program.instruction(t).initial;
  }
  return latency;
}

}  // namespace

MMapGame::MMapGame(std::shared_ptr<const Program> program, GameOptions options)
    : program_(std::move(program)),
      options_(options),
      index_(program_->num_steps()),
      ledger_(InitialSupply(*program_)),
      latency_(InitialLatency(*program_)),
      tensor_latest_(program_->num_tensors()),
      group_state_(program_->num_alias_groups(), kUndecided),
      group_remaining_(program_->num_alias_groups()) {
  for (int32_t g = 0; g < program_->num_alias_groups(); ++g) {
    group_remaining_[g] = program_->alias_group_size(g);
  }
  path_.reserve(program_->num_buffers());
  steps_.reserve(program_->num_buffers());
  trajectory_.reserve(program_->num_buffers());
}

std::unique_ptr<MMapGame> MMapGame::Clone() const {
  return std::make_unique<MMapGame>(*this);
}

bool MMapGame::IsTerminal() const {
  return infeasible_ || depth() == program_->num_buffers();
}

int32_t MMapGame::CurrentBuffer() const {
  return IsTerminal() ? -1 : program_->decision_order()[depth()];
}

int32_t MMapGame::CurrentTime() const {
  const int32_t buffer = CurrentBuffer();
  return buffer < 0 ? program_->num_steps()
                    : program_->buffer(buffer).target_time;
}

uint8_t MMapGame::LegalActionMask() const {
  if (IsTerminal()) return 0;
  ComputeOutcomes();
  uint8_t mask = 0;
  for (int a = 0; a < kNumActions; ++a) {
    if (outcomes_[a].legal) mask |= static_cast<uint8_t>(1u << a);
  }
  return mask;
}

std::vector<Action> MMapGame::LegalActions() const {
  std::vector<Action> actions;
  const uint8_t mask = LegalActionMask();
  for (int a = 0; a < kNumActions; ++a) {
    if (mask & (1u << a)) actions.push_back(static_cast<Action>(a));
  }
  return actions;
}

const ActionOutcome& MMapGame::Outcome(Action action) const {
  ComputeOutcomes();
  return outcomes_[static_cast<int>(action)];
}

int64_t MMapGame::PlaceOffset(int32_t start, int32_t end, const BufferInfo& b,
                              int64_t required) const {
  if (required >= 0) {
    if (required + b.size > program_->memory_size()) return -1;
    return index_.IsFree(start, end, required, b.size, b.alias_group,
                         program_->alias_group_tensors(b.alias_group))
               ? required
               : -1;
  }
  return index_.LowestFit(start, end, b.size, program_->alignment(),
                          program_->memory_size());
}

ActionOutcome MMapGame::CopyOutcome(const BufferInfo& b, int64_t required) const {
  ActionOutcome outcome;
  if (b.size > program_->memory_size()) return outcome;
  if (b.is_output) {
    // Write-back (d, e]; I(b) = [d, e].
    // Inside the step's run (rules §7): a copy never crosses a loop's edge.
    const InstructionInfo& at = program_->instruction(b.target_time);
    if (!ledger_.FindWriteBack(b.target_time, at.run_end, b.demand_us,
                               &outcome.copy)) {
      return outcome;
    }
    outcome.interval_start = b.target_time;
    outcome.interval_end = std::max(b.target_time, outcome.copy.last);
  } else {
    // Prefetch [s, u); I(b) = [s, u].
    const InstructionInfo& at = program_->instruction(b.target_time);
    if (!ledger_.FindPrefetch(b.target_time,
                              std::max(b.live_start, at.run_start),
                              b.demand_us, &outcome.copy)) {
      return outcome;
    }
    outcome.interval_start = std::min(b.target_time, outcome.copy.first);
    outcome.interval_end = b.target_time;
  }
  outcome.offset = PlaceOffset(outcome.interval_start, outcome.interval_end,
                               b, required);
  outcome.legal = outcome.offset >= 0;
  return outcome;
}

ActionOutcome MMapGame::NoCopyOutcome(const BufferInfo& b,
                                      int64_t required) const {
  ActionOutcome outcome;
  if (b.size > program_->memory_size()) return outcome;
  if (b.is_output) {
    // The tensor lives in fast memory only: I(b) = live_range.
    outcome.interval_start = b.live_start;
    outcome.interval_end = b.live_end;
    outcome.offset = PlaceOffset(b.live_start, b.live_end, b, required);
    outcome.legal = outcome.offset >= 0;
    return outcome;
  }
  // The data stays where the tensor's latest allocation put it: extend
  // that allocation over (s, u] at the same offset.
  const TensorAllocation& latest = tensor_latest_[b.tensor];
  if (latest.end < 0) return outcome;
  if (required >= 0 && latest.offset != required) return outcome;
  if (latest.offset + b.size > program_->memory_size()) return outcome;
  outcome.offset = latest.offset;
  outcome.interval_start = latest.end + 1;
  outcome.interval_end = b.target_time;  // empty when latest.end >= u
  outcome.legal = !outcome.has_allocation() ||
                  index_.IsFree(outcome.interval_start, outcome.interval_end,
                                outcome.offset, b.size, b.alias_group,
                                program_->alias_group_tensors(b.alias_group));
  return outcome;
}

void MMapGame::ComputeOutcomes() const {
  if (outcomes_valid_) return;
  outcomes_valid_ = true;
  outcomes_ = {};
  const int32_t buffer = CurrentBuffer();
  if (buffer < 0) return;
  const BufferInfo& b = program_->buffer(buffer);
  const int64_t group = b.alias_group >= 0 ? group_state_[b.alias_group]
                                           : kUndecided;
  ActionOutcome& drop = outcomes_[static_cast<int>(Action::kDrop)];
  drop.legal = group < 0;  // illegal once the group is decided fast
  if (group == kSlow) return;
  const int64_t required = group >= 0 ? group : -1;
  ActionOutcome& copy = outcomes_[static_cast<int>(Action::kCopy)];
  ActionOutcome& no_copy = outcomes_[static_cast<int>(Action::kNoCopy)];
  copy = CopyOutcome(b, required);
  no_copy = NoCopyOutcome(b, required);
  if (copy.legal || no_copy.legal) {
    const LatencyState& now = latency_[b.target_time];
    const double reward =
        program_->Latency(b.target_time, now) -
        program_->Latency(b.target_time, program_->WithFast(now, buffer));
    copy.reward = no_copy.reward = reward;
  }
}

void MMapGame::ApplyMove(int32_t buffer, Action action,
                         const ActionOutcome& outcome) {
  const BufferInfo& b = program_->buffer(buffer);
  MoveRecord record{.buffer = buffer,
                    .action = action,
                    .outcome = outcome,
                    .rect_id = -1,
                    .ledger_mark = -1,
                    .previous_tensor = tensor_latest_[b.tensor],
                    .previous_group = b.alias_group >= 0
                                          ? group_state_[b.alias_group]
                                          : kUndecided,
                    .previous_latency = latency_[b.target_time],
                    .previous_backup_depth = backup_depth_,
                    .previous_open_groups = open_groups_};
  if (action != Action::kDrop) {
    if (outcome.has_allocation()) {
      record.rect_id = index_.Insert({outcome.interval_start,
                                      outcome.interval_end, outcome.offset,
                                      b.size, b.alias_group, b.tensor});
      TensorAllocation& latest = tensor_latest_[b.tensor];
      if (outcome.interval_end >= latest.end) {
        latest = {outcome.interval_end, outcome.offset};
      }
    }
    if (action == Action::kCopy) {
      record.ledger_mark =
          ledger_.Consume(outcome.copy, b.demand_us, /*from_last=*/!b.is_output);
    }
    latency_[b.target_time] =
        program_->WithFast(latency_[b.target_time], buffer);
    state_return_ += outcome.reward;
  }
  if (b.alias_group >= 0) {
    int64_t& group = group_state_[b.alias_group];
    int32_t& remaining = group_remaining_[b.alias_group];
    const bool was_open = group >= 0 && remaining > 0;
    if (group == kUndecided) {
      group = action == Action::kDrop ? kSlow : outcome.offset;
    }
    --remaining;
    const bool is_open = group >= 0 && remaining > 0;
    open_groups_ += static_cast<int32_t>(is_open) - static_cast<int32_t>(was_open);
  }
  path_.push_back(record);
  if (open_groups_ == 0) backup_depth_ = depth();
  outcomes_valid_ = false;
}

void MMapGame::UndoMove() {
  const MoveRecord record = path_.back();
  path_.pop_back();
  const BufferInfo& b = program_->buffer(record.buffer);
  if (record.action != Action::kDrop) {
    if (record.rect_id >= 0) index_.RemoveLast();
    if (record.action == Action::kCopy) {
      ledger_.Undo(record.ledger_mark, record.outcome.copy);
    }
    state_return_ -= record.outcome.reward;
  }
  tensor_latest_[b.tensor] = record.previous_tensor;
  latency_[b.target_time] = record.previous_latency;
  if (b.alias_group >= 0) {
    ++group_remaining_[b.alias_group];
    group_state_[b.alias_group] = record.previous_group;
  }
  backup_depth_ = record.previous_backup_depth;
  open_groups_ = record.previous_open_groups;
  outcomes_valid_ = false;
}

bool MMapGame::NextIsInfeasible() const {
  const int32_t buffer = CurrentBuffer();
  if (buffer < 0) return false;
  const int32_t group = program_->buffer(buffer).alias_group;
  if (group < 0 || group_state_[group] < 0) return false;  // Drop is legal
  return LegalActionMask() == 0;
}

void MMapGame::RollBackToBackup(StepRecord* step) {
  step->backed_up = true;
  step->group = program_->buffer(CurrentBuffer()).alias_group;
  step->stash_begin = static_cast<int32_t>(stash_.size());
  const double return_before = state_return_;
  while (depth() > backup_depth_) {
    stash_.push_back(path_.back().action);
    UndoMove();
  }
  std::reverse(stash_.begin() + step->stash_begin, stash_.end());
  step->penalty = state_return_ - return_before;
  // The backup precedes the group's first member, so the group is undecided.
  MMAPZERO_CHECK(group_state_[step->group] == kUndecided,
                 "Drop-backup target group must be undecided at the backup");
  group_state_[step->group] = kSlow;
  ++drop_backups_;
}

StepResult MMapGame::ApplyAction(Action action) {
  MMAPZERO_CHECK(!IsTerminal(), "ApplyAction on a terminal state");
  const ActionOutcome outcome = Outcome(action);
  MMAPZERO_CHECK(outcome.legal, "ApplyAction with an illegal action");
  const int32_t buffer = CurrentBuffer();
  ApplyMove(buffer, action, outcome);
  StepRecord step;
  if (NextIsInfeasible()) {
    if (options_.drop_backup) {
      RollBackToBackup(&step);
    } else {
      // The plain game ends here with return 0.
      step.ended_infeasible = true;
      step.penalty = -(episode_return_ + outcome.reward);
      infeasible_ = true;
    }
  }
  steps_.push_back(step);
  const StepResult result{outcome.reward, step.penalty, step.backed_up};
  trajectory_.push_back({buffer, action, result.transition_reward()});
  episode_return_ += result.transition_reward();
  outcomes_valid_ = false;
  return result;
}

void MMapGame::Undo() {
  MMAPZERO_CHECK(!steps_.empty(), "Undo with no move to undo");
  const StepRecord step = steps_.back();
  steps_.pop_back();
  episode_return_ -= trajectory_.back().reward;
  trajectory_.pop_back();
  if (step.ended_infeasible) infeasible_ = false;
  if (step.backed_up) {
    // Replay what the backup rolled back; the last of it is this move.
    group_state_[step.group] = kUndecided;
    --drop_backups_;
    const std::vector<Action> replay(stash_.begin() + step.stash_begin,
                                     stash_.end());
    stash_.resize(step.stash_begin);
    for (Action action : replay) {
      outcomes_valid_ = false;
      const ActionOutcome outcome = Outcome(action);
      MMAPZERO_CHECK(outcome.legal, "replay after Drop-backup diverged");
      ApplyMove(CurrentBuffer(), action, outcome);
    }
  }
  UndoMove();
}

double MMapGame::NormalisedReturn() const {
  const double max_return = program_->max_return_us();
  return max_return > 0 ? Return() / max_return : 0.0;
}

double MMapGame::Latency() const {
  return program_->empty_latency_us() - state_return_;
}

Solution MMapGame::ToSolution() const {
  Solution solution;
  solution.set_workload_name(program_->name());
  for (const MoveRecord& move : path_) {
    BufferDecision* decision = solution.add_decisions();
    decision->set_buffer_id(move.buffer);
    decision->set_action(static_cast<mmapzero::Action>(move.action));
    if (move.action == Action::kDrop) continue;
    decision->set_offset(move.outcome.offset);
    if (move.outcome.has_allocation()) {
      decision->set_interval_start(move.outcome.interval_start);
      decision->set_interval_end(move.outcome.interval_end);
    }
    if (move.action == Action::kCopy && !move.outcome.copy.empty()) {
      decision->set_copy_start(move.outcome.copy.first);
      decision->set_copy_end(move.outcome.copy.last);
    }
  }
  solution.set_return_us(Return());
  solution.set_normalised_return(NormalisedReturn());
  solution.set_latency_us(Latency());
  solution.set_drop_backups(drop_backups_);
  return solution;
}

std::vector<float> MMapGame::OccupancyGrid(int32_t start, int32_t end,
                                           int32_t time_bins,
                                           int32_t byte_bins) const {
  std::vector<float> grid(static_cast<size_t>(time_bins) * byte_bins, 0.0f);
  if (time_bins <= 0 || byte_bins <= 0 || start > end) return grid;
  const double steps_per_bin = static_cast<double>(end - start + 1) / time_bins;
  const double bytes_per_bin =
      static_cast<double>(program_->memory_size()) / byte_bins;
  const int32_t lo = std::max(start, 0);
  const int32_t hi = std::min(end, program_->num_steps() - 1);
  if (lo > hi) return grid;
  index_.ForEachOverlapping(lo, hi, [&](const Rect& r) {
    // Overlap of [a, b) with bin i of width w starting at `origin`.
    const double t0 = std::max(r.start, start) - start;
    const double t1 = std::min(r.end, end) + 1 - start;
    const double b0 = static_cast<double>(r.offset);
    const double b1 = static_cast<double>(r.offset + r.size);
    const int32_t ti0 = static_cast<int32_t>(t0 / steps_per_bin);
    const int32_t ti1 = std::min(time_bins - 1,
                                 static_cast<int32_t>((t1 - 1e-9) / steps_per_bin));
    const int32_t bi0 = static_cast<int32_t>(b0 / bytes_per_bin);
    const int32_t bi1 = std::min(byte_bins - 1,
                                 static_cast<int32_t>((b1 - 1e-9) / bytes_per_bin));
    for (int32_t ti = ti0; ti <= ti1; ++ti) {
      const double tc = std::min(t1, (ti + 1) * steps_per_bin) -
                        std::max(t0, ti * steps_per_bin);
      for (int32_t bi = bi0; bi <= bi1; ++bi) {
        const double bc = std::min(b1, (bi + 1) * bytes_per_bin) -
                          std::max(b0, bi * bytes_per_bin);
        grid[static_cast<size_t>(ti) * byte_bins + bi] += static_cast<float>(
            (tc / steps_per_bin) * (bc / bytes_per_bin));
      }
    }
  });
  return grid;
}

std::vector<float> MMapGame::OccupancyAt(int32_t t, int32_t byte_bins) const {
  return OccupancyGrid(t, t, 1, byte_bins);
}

std::vector<double> MMapGame::SupplyWindow(int32_t start, int32_t end) const {
  std::vector<double> window;
  for (int32_t t = start; t <= end; ++t) {
    window.push_back(t >= 0 && t < program_->num_steps() ? ledger_.remaining(t)
                                                         : 0.0);
  }
  return window;
}

}  // namespace mmapzero::game
