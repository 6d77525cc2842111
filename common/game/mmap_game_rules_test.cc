// One hand-worked test per rule of docs/game-engine.md. Each workload is tiny and its
// expected intervals, offsets, supply and rewards are worked out in the
// comments.
#include <memory>

#include "common/game/mmap_game.h"
#include "gtest/gtest.h"

namespace mmapzero::game {
namespace {

// Builds static-feature workloads: every instruction has `supply` and no
// latency model, so rewards are the buffers' benefits.
class WorkloadBuilder {
 public:
  WorkloadBuilder(int num_steps, int64_t memory_size, double supply = 10) {
    workload_.set_name("hand-made");
    workload_.set_memory_size(memory_size);
    for (int t = 0; t < num_steps; ++t) {
      workload_.add_instructions()->set_supply_us(supply);
    }
  }
  // Adds a buffer; returns its id.
  int Add(int target_time, bool is_output, int64_t size, int tensor,
          int live_start, int live_end, double demand = 1, double benefit = 1,
          int alias = -1) {
    Buffer* b = workload_.add_buffers();
    b->set_id(workload_.buffers_size() - 1);
    b->set_target_time(target_time);
    b->set_is_output(is_output);
    b->set_size(size);
    b->set_tensor_id(tensor);
    b->mutable_live_range()->set_start(live_start);
    b->mutable_live_range()->set_end(live_end);
    b->set_demand_us(demand);
    b->set_benefit_us(benefit);
    if (alias >= 0) b->set_alias_id(alias);
    return b->id();
  }
  WorkloadBuilder& Supply(int t, double supply) {
    workload_.mutable_instructions(t)->set_supply_us(supply);
    return *this;
  }
  // Steps [first, last] form a loop of `trips` trips (rules §7).
  WorkloadBuilder& Loop(int first, int last, int64_t trips) {
    mmapzero::Loop* loop = workload_.add_loops();
    loop->set_first_step(first);
    loop->set_last_step(last);
    loop->set_trip_count(trips);
    return *this;
  }
  WorkloadBuilder& Alignment(int64_t alignment) {
    workload_.set_alignment(alignment);
    return *this;
  }
  Workload& workload() { return workload_; }
  MMapGame Game(GameOptions options = {}) const {
    auto program = Program::Create(workload_);
    EXPECT_TRUE(program.ok()) << program.status();
    return MMapGame(*program, options);
  }

 private:
  Workload workload_;
};

TEST(DecisionOrderTest, ByTimeThenOperandsBeforeOutputsThenId) {
  WorkloadBuilder w(2, 100);
  w.Add(1, false, 8, 0, 0, 1);  // 0: operand at 1
  w.Add(0, true, 8, 0, 0, 1);   // 1: output at 0
  w.Add(1, true, 8, 1, 1, 1);   // 2: output at 1
  w.Add(1, false, 8, 2, 0, 1);  // 3: operand at 1
  auto program = Program::Create(w.workload());
  ASSERT_TRUE(program.ok());
  EXPECT_EQ((*program)->decision_order(), (std::vector<int32_t>{1, 0, 3, 2}));
}

// Supply 10 per step. Operand used at u = 3 with demand 15: s = 2 gives 10,
// s = 1 gives 20 >= 15, so the copy is [1, 3) and I(b) = [1, 3]. Supply is
// taken from step 2 fully (10 -> 0) then 5 from step 1 (10 -> 5).
TEST(CopyTest, PrefetchStartsAtLatestStepCoveringDemand) {
  WorkloadBuilder w(4, 100);
  w.Add(3, false, 40, 0, 0, 3, /*demand=*/15, /*benefit=*/7);
  MMapGame game = w.Game();
  const ActionOutcome& copy = game.Outcome(Action::kCopy);
  ASSERT_TRUE(copy.legal);
  EXPECT_EQ(copy.copy.first, 1);
  EXPECT_EQ(copy.copy.last, 2);
  EXPECT_EQ(copy.interval_start, 1);
  EXPECT_EQ(copy.interval_end, 3);
  EXPECT_EQ(copy.offset, 0);
  EXPECT_DOUBLE_EQ(copy.reward, 7);
  game.ApplyAction(Action::kCopy);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(3), 10);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(2), 0);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(1), 5);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(0), 10);
  EXPECT_DOUBLE_EQ(game.Return(), 7);
}

// The prefetch may not start before the tensor exists: live_range [2, 3]
// leaves only step 2 (supply 10) for demand 15.
TEST(CopyTest, PrefetchCannotStartBeforeLiveRange) {
  WorkloadBuilder w(4, 100);
  w.Add(3, false, 40, 0, 2, 3, /*demand=*/15);
  EXPECT_FALSE(w.Game().Outcome(Action::kCopy).legal);
  EXPECT_EQ(w.Game().LegalActionMask(), 1u << 2);  // Drop only
}

// After the first copy [1, 2] (edge 1-2 busy, W = 10, 5, 0, 10), a second
// operand at u = 3 with demand 5 must cover steps 2 (0 left) and 1: it would
// share steps 1 and 2 with the first copy, two steps, so it is illegal.
// The same demand at u = 2 fits in step 1 alone (5 left), sharing one step.
TEST(CopyTest, CopyIntervalsShareAtMostOneStep) {
  WorkloadBuilder w(4, 100);
  w.Add(3, false, 10, 0, 0, 3, /*demand=*/15);
  w.Add(3, false, 10, 1, 0, 3, /*demand=*/5);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kCopy);
  EXPECT_FALSE(game.Outcome(Action::kCopy).legal);

  WorkloadBuilder v(4, 100);
  v.Add(3, false, 10, 0, 0, 3, /*demand=*/15);
  v.Add(2, false, 10, 1, 0, 3, /*demand=*/5);
  MMapGame shared = v.Game();
  // Decision order: buffer 1 (t = 2) first, then buffer 0 (t = 3).
  ASSERT_EQ(shared.CurrentBuffer(), 1);
  const ActionOutcome& first = shared.Outcome(Action::kCopy);
  ASSERT_TRUE(first.legal);
  EXPECT_EQ(first.copy.first, 1);  // 5 of step 1's 10
  EXPECT_EQ(first.copy.last, 1);
  shared.ApplyAction(Action::kCopy);
  // Buffer 0 now needs steps 2 (10) and 1 (5 left): 15, sharing step 1 only.
  const ActionOutcome& second = shared.Outcome(Action::kCopy);
  ASSERT_TRUE(second.legal);
  EXPECT_EQ(second.copy.first, 1);
  EXPECT_EQ(second.copy.last, 2);
  shared.ApplyAction(Action::kCopy);
  EXPECT_DOUBLE_EQ(shared.ledger().remaining(1), 0);
  EXPECT_DOUBLE_EQ(shared.ledger().remaining(2), 0);
}

// Output written at d = 0, demand 15: e = 1 gives 10, e = 2 gives 20, so the
// write-back is (0, 2] and I(b) = [0, 2]; supply taken from step 1 fully,
// then 5 from step 2.
TEST(CopyTest, WriteBackEndsAtEarliestStepCoveringDemand) {
  WorkloadBuilder w(4, 100);
  w.Add(0, true, 40, 0, 0, 3, /*demand=*/15);
  MMapGame game = w.Game();
  const ActionOutcome& copy = game.Outcome(Action::kCopy);
  ASSERT_TRUE(copy.legal);
  EXPECT_EQ(copy.copy.first, 1);
  EXPECT_EQ(copy.copy.last, 2);
  EXPECT_EQ(copy.interval_start, 0);
  EXPECT_EQ(copy.interval_end, 2);
  game.ApplyAction(Action::kCopy);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(1), 0);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(2), 5);
}

// A write-back cannot run past the end of the program: at d = 3 of 4 steps
// there is no step after d.
TEST(CopyTest, WriteBackNeedsAStepAfterTheOutput) {
  WorkloadBuilder w(4, 100);
  w.Add(3, true, 40, 0, 3, 3, /*demand=*/1);
  EXPECT_FALSE(w.Game().Outcome(Action::kCopy).legal);
}

// Two copies over overlapping intervals: the second goes above the first.
// With alignment 16 and size 10, the second lands at 16, not 10.
TEST(OffsetTest, LowestAlignedFreeOffset) {
  WorkloadBuilder w(4, 100);
  w.Alignment(16);
  w.Add(3, false, 10, 0, 0, 3, /*demand=*/5);
  w.Add(3, false, 10, 1, 0, 3, /*demand=*/0.5);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kCopy);  // [2, 3] at 0, takes 5 of step 2
  const ActionOutcome& second = game.Outcome(Action::kCopy);
  ASSERT_TRUE(second.legal);
  EXPECT_EQ(second.interval_start, 2);
  EXPECT_EQ(second.offset, 16);
}

// A buffer that fits in no aligned slot: memory 100, alignment 16, the first
// allocation takes [0, 90): the next aligned offset 96 + 10 > 100.
TEST(OffsetTest, NoFitMakesCopyIllegal) {
  WorkloadBuilder w(2, 100);
  w.Alignment(16);
  w.Add(1, false, 90, 0, 0, 1, 0.5);
  w.Add(1, false, 10, 1, 0, 1, 0.5);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kCopy);
  EXPECT_FALSE(game.Outcome(Action::kCopy).legal);
  EXPECT_TRUE(game.Outcome(Action::kDrop).legal);
}

TEST(OffsetTest, BufferLargerThanMemoryCanOnlyBeDropped) {
  WorkloadBuilder w(2, 100);
  w.Add(1, false, 101, 0, 0, 1, 0.5);
  EXPECT_EQ(w.Game().LegalActionMask(), 1u << 2);
}

// Tensor 0 is prefetched for use at 1 (I = [0, 1] at offset 0) and read again
// at 3: NoCopy extends the allocation over (1, 3] at offset 0, no supply.
TEST(NoCopyTest, OperandExtendsLatestAllocationAtSameOffset) {
  WorkloadBuilder w(4, 100);
  w.Add(1, false, 30, 0, 0, 3, /*demand=*/5, /*benefit=*/2);
  w.Add(3, false, 30, 0, 0, 3, /*demand=*/5, /*benefit=*/4);
  MMapGame game = w.Game();
  EXPECT_FALSE(game.Outcome(Action::kNoCopy).legal);  // nothing in fast yet
  game.ApplyAction(Action::kCopy);
  const ActionOutcome& stay = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(stay.legal);
  EXPECT_EQ(stay.offset, 0);
  EXPECT_EQ(stay.interval_start, 2);
  EXPECT_EQ(stay.interval_end, 3);
  EXPECT_DOUBLE_EQ(stay.reward, 4);
  game.ApplyAction(Action::kNoCopy);
  EXPECT_DOUBLE_EQ(game.ledger().remaining(2), 10);  // no supply used
  EXPECT_DOUBLE_EQ(game.Return(), 6);
}

// The extension must be free at the same offset: another tensor placed at
// offset 0 over [2, 3] blocks it, even though offset 30 is free.
TEST(NoCopyTest, OperandExtensionBlockedAtItsOffsetIsIllegal) {
  WorkloadBuilder w(4, 100);
  w.Add(1, false, 30, 0, 0, 3, /*demand=*/5);
  w.Add(2, true, 30, 1, 2, 3, /*demand=*/5);  // NoCopy output: [2, 3]
  w.Add(3, false, 30, 0, 0, 3, /*demand=*/5);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kCopy);  // [0, 1] at 0
  const ActionOutcome& output = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(output.legal);
  EXPECT_EQ(output.offset, 0);  // free over [2, 3]
  game.ApplyAction(Action::kNoCopy);
  EXPECT_FALSE(game.Outcome(Action::kNoCopy).legal);
}

// An output kept in fast memory covers its whole live range, so a later
// operand of the same tensor extends nothing: empty extension, always legal.
TEST(NoCopyTest, OutputCoversLiveRangeAndLaterUseExtendsNothing) {
  WorkloadBuilder w(4, 100);
  w.Add(0, true, 30, 0, 0, 3, /*demand=*/5, /*benefit=*/1);
  w.Add(3, false, 30, 0, 0, 3, /*demand=*/5, /*benefit=*/2);
  MMapGame game = w.Game();
  const ActionOutcome& output = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(output.legal);
  EXPECT_EQ(output.interval_start, 0);
  EXPECT_EQ(output.interval_end, 3);
  EXPECT_EQ(output.offset, 0);
  game.ApplyAction(Action::kNoCopy);
  const ActionOutcome& use = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(use.legal);
  EXPECT_FALSE(use.has_allocation());
  EXPECT_EQ(use.offset, 0);
  game.ApplyAction(Action::kNoCopy);
  EXPECT_EQ(game.allocations().size(), 1);
  EXPECT_DOUBLE_EQ(game.Return(), 3);
  for (int t = 0; t < 4; ++t) EXPECT_DOUBLE_EQ(game.ledger().remaining(t), 10);
}

TEST(DropTest, DropAllocatesNothingAndEarnsNothing) {
  WorkloadBuilder w(2, 100);
  w.Add(1, false, 30, 0, 0, 1, 1, /*benefit=*/5);
  MMapGame game = w.Game();
  const StepResult step = game.ApplyAction(Action::kDrop);
  EXPECT_DOUBLE_EQ(step.reward, 0);
  EXPECT_EQ(game.allocations().size(), 0);
  EXPECT_TRUE(game.IsTerminal());
  EXPECT_DOUBLE_EQ(game.Return(), 0);
}

// Group 7 = {buffer 1 at t = 0, buffer 2 at t = 3}. Deciding buffer 1 fast at
// offset 40 (the lowest fit above the 40-byte tensor 5) forces buffer 2 to
// 40 and forbids its Drop; deciding it slow forbids Copy and NoCopy.
TEST(AliasTest, FirstMemberDecidesTheGroup) {
  WorkloadBuilder w(4, 100);
  w.Add(0, true, 40, 5, 0, 3, 0.5);                      // tensor 5 at [0, 3]
  w.Add(0, true, 20, 0, 0, 0, 0.5, 1, /*alias=*/7);
  w.Add(3, false, 20, 1, 0, 3, 0.5, 1, /*alias=*/7);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kNoCopy);                      // [0, 3] at 0
  game.ApplyAction(Action::kCopy);                        // I = [0, 1] at 40
  ASSERT_EQ(game.allocations().rect(1).offset, 40);
  EXPECT_FALSE(game.Outcome(Action::kDrop).legal);
  const ActionOutcome& copy = game.Outcome(Action::kCopy);
  ASSERT_TRUE(copy.legal);
  EXPECT_EQ(copy.interval_start, 2);
  EXPECT_EQ(copy.offset, 40);  // the group's offset

  MMapGame slow = w.Game();
  slow.ApplyAction(Action::kNoCopy);
  slow.ApplyAction(Action::kDrop);
  EXPECT_EQ(slow.LegalActionMask(), 1u << 2);
}

// NoCopy keeps data where it is, so an operand whose tensor sits at offset 0
// cannot join an alias group already placed at 40.
TEST(AliasTest, NoCopyOperandMustSitAtTheGroupOffset) {
  WorkloadBuilder w(4, 100);
  w.Add(0, true, 40, 0, 0, 3, 0.5);                   // tensor 0 kept at 0
  w.Add(1, true, 40, 1, 1, 1, 0.5, 1, /*alias=*/2);   // group 2 at 40
  w.Add(2, false, 40, 0, 0, 3, 0.5, 1, /*alias=*/2);  // tensor 0 again
  MMapGame game = w.Game();
  game.ApplyAction(Action::kNoCopy);
  game.ApplyAction(Action::kNoCopy);
  ASSERT_EQ(game.allocations().rect(1).offset, 40);
  EXPECT_FALSE(game.Outcome(Action::kNoCopy).legal);
}

// An in-place update: the optimizer at t = 1 reads weight w (tensor 0) and
// writes w' (tensor 1) into the same bytes, alias group 4. The operand is
// prefetched to I = [0, 1] at offset 0; the output, kept fast over its live
// range [1, 2], must sit at offset 0 and overlaps the operand at t = 1: the
// same memory, so it is legal.
TEST(AliasTest, InPlaceUpdateSharesItsBytesWithinTheGroup) {
  WorkloadBuilder w(3, 100);
  w.Add(1, false, 40, 0, 0, 1, 5, 1, /*alias=*/4);
  w.Add(1, true, 40, 1, 1, 2, 5, 1, /*alias=*/4);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kCopy);
  const ActionOutcome& keep = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(keep.legal);
  EXPECT_EQ(keep.offset, 0);
  EXPECT_EQ(keep.interval_start, 1);
  game.ApplyAction(Action::kNoCopy);
  EXPECT_EQ(game.drop_backups(), 0);
  EXPECT_DOUBLE_EQ(game.Return(), 2);
}

// In place after NoCopy: tensor 0 is kept fast over its live range [0, 1]
// at offset 0; at t = 1 an in-place op reads it (group 5, NoCopy: an empty
// extension, the data stays at 0) and writes tensor 1 into the same bytes.
// Tensor 1's allocation [1, 2] meets tensor 0's at step 1, but tensor 0 has
// a buffer in the group, so those are the group's bytes: legal, no backup.
TEST(AliasTest, InPlaceUpdateMayReuseTheBytesOfAnOperandKeptInPlace) {
  WorkloadBuilder w(3, 100);
  w.Add(0, true, 40, 0, 0, 1, 5, 1);
  w.Add(1, false, 40, 0, 0, 1, 5, 1, /*alias=*/5);
  w.Add(1, true, 40, 1, 1, 2, 5, 1, /*alias=*/5);
  MMapGame game = w.Game();
  game.ApplyAction(Action::kNoCopy);
  const ActionOutcome& read = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(read.legal);
  EXPECT_FALSE(read.has_allocation());
  game.ApplyAction(Action::kNoCopy);
  const ActionOutcome& write = game.Outcome(Action::kNoCopy);
  ASSERT_TRUE(write.legal);
  EXPECT_EQ(write.offset, 0);
  game.ApplyAction(Action::kNoCopy);
  EXPECT_EQ(game.drop_backups(), 0);
  EXPECT_DOUBLE_EQ(game.Return(), 3);
}

// Group 1 = {b0 output at 0, b2 operand at 2}. b0 kept fast at offset 0
// (I = [0, 0]) opens the group; b1, a 60-byte output kept fast over [1, 2],
// takes offset 0 too; then b2 can only go to offset 0 over [1, 2] or [2, 2],
// which b1 holds: no legal action. The backup is the start (the group opened
// at the first move), so both moves are rolled back, the group is marked
// slow, and the penalty is -(3 + 5). Play continues: b0 Drop, b1 NoCopy
// (+5), b2 Drop. Episode: 3, 5 - 8, 0, 5, 0 = 5.
class DropBackupTest : public ::testing::Test {
 protected:
  DropBackupTest() : w_(3, 100) {
    w_.Add(0, true, 60, 0, 0, 0, 1, /*benefit=*/3, /*alias=*/1);
    w_.Add(1, true, 60, 1, 1, 2, 1, /*benefit=*/5);
    w_.Add(2, false, 60, 2, 0, 2, 1, /*benefit=*/2, /*alias=*/1);
  }
  WorkloadBuilder w_;
};

TEST_F(DropBackupTest, InfeasibleStateRollsBackAndMarksGroupSlow) {
  MMapGame game = w_.Game();
  EXPECT_DOUBLE_EQ(game.ApplyAction(Action::kNoCopy).reward, 3);
  const StepResult step = game.ApplyAction(Action::kNoCopy);
  EXPECT_TRUE(step.backed_up);
  EXPECT_DOUBLE_EQ(step.reward, 5);
  EXPECT_DOUBLE_EQ(step.backup_penalty, -8);
  EXPECT_DOUBLE_EQ(step.transition_reward(), -3);
  EXPECT_EQ(game.depth(), 0);
  EXPECT_EQ(game.CurrentBuffer(), 0);
  EXPECT_EQ(game.LegalActionMask(), 1u << 2);  // the group is slow now
  EXPECT_DOUBLE_EQ(game.Return(), 0);
  game.ApplyAction(Action::kDrop);
  game.ApplyAction(Action::kNoCopy);
  game.ApplyAction(Action::kDrop);
  EXPECT_TRUE(game.IsTerminal());
  EXPECT_DOUBLE_EQ(game.Return(), 5);
  EXPECT_EQ(game.drop_backups(), 1);
  ASSERT_EQ(game.trajectory().size(), 5u);
  EXPECT_DOUBLE_EQ(game.trajectory()[1].reward, -3);
  const Solution solution = game.ToSolution();
  ASSERT_EQ(solution.decisions_size(), 3);
  EXPECT_EQ(solution.decisions(0).action(), mmapzero::DROP);
  EXPECT_EQ(solution.decisions(1).action(), mmapzero::NO_COPY);
  EXPECT_DOUBLE_EQ(solution.return_us(), 5);
}

TEST_F(DropBackupTest, WithoutBackupTheGameEndsWithReturnZero) {
  MMapGame game = w_.Game(GameOptions{.drop_backup = false});
  game.ApplyAction(Action::kNoCopy);
  const StepResult step = game.ApplyAction(Action::kNoCopy);
  EXPECT_FALSE(step.backed_up);
  EXPECT_TRUE(game.infeasible());
  EXPECT_TRUE(game.IsTerminal());
  EXPECT_DOUBLE_EQ(game.Return(), 0);
  game.Undo();
  EXPECT_FALSE(game.IsTerminal());
  EXPECT_DOUBLE_EQ(game.Return(), 3);
}

TEST_F(DropBackupTest, UndoOfBackupRestoresThePreviousState) {
  MMapGame game = w_.Game();
  game.ApplyAction(Action::kNoCopy);
  const Solution before = game.ToSolution();
  game.ApplyAction(Action::kNoCopy);  // backs up
  game.Undo();
  EXPECT_EQ(game.depth(), 1);
  EXPECT_EQ(game.drop_backups(), 0);
  EXPECT_DOUBLE_EQ(game.Return(), 3);
  EXPECT_EQ(game.ToSolution().SerializeAsString(), before.SerializeAsString());
  // The group is fast again: the same move backs up again.
  EXPECT_TRUE(game.ApplyAction(Action::kNoCopy).backed_up);
}

// Roofline: compute 1 us; two 1000-byte operands; slow 1 GB/s (1 us each),
// fast 10 GB/s (0.1 us each). L({}) = max(1, 2) = 2, L({a}) = max(1, 1.1) =
// 1.1, L({a, b}) = max(1, 0.2) = 1. Rewards 0.9 then 0.1 (dynamic), though
// each buffer's static benefit is 0.9. Supply = L(all) = 1; demand = 1000 B
// at 2 GB/s = 0.5 us. Normalised return of both fast = 1.
// Roofline hardware: slow 1 GB/s, fast 10 GB/s, copy 2 GB/s; one
// instruction per entry of `compute_us`, and two 1000-byte buffers (tensors
// 0 and 1) used at the last instruction, outputs or operands.
Workload RooflineWorkload(std::vector<double> compute_us, bool outputs) {
  Workload workload;
  workload.set_memory_size(1 << 20);
  HardwareProfile* hw = workload.mutable_hardware();
  hw->set_slow_bandwidth_gbps(1);
  hw->set_fast_bandwidth_gbps(10);
  hw->set_copy_bandwidth_gbps(2);
  for (double compute : compute_us) {
    workload.add_instructions()->mutable_roofline()->set_compute_us(compute);
  }
  const int last = static_cast<int>(compute_us.size()) - 1;
  for (int i = 0; i < 2; ++i) {
    Buffer* b = workload.add_buffers();
    b->set_id(i);
    b->set_size(1000);
    b->set_target_time(last);
    b->set_tensor_id(i);
    b->set_is_output(outputs);
    b->mutable_live_range()->set_start(outputs ? last : 0);
    b->mutable_live_range()->set_end(last);
  }
  return workload;
}

TEST(RewardTest, RooflineRewardsAreDynamic) {
  auto program = Program::Create(RooflineWorkload({0.5, 1}, /*outputs=*/false));
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_DOUBLE_EQ((*program)->buffer(0).benefit_us, 0.9);
  EXPECT_DOUBLE_EQ((*program)->buffer(0).demand_us, 0.5);
  EXPECT_DOUBLE_EQ((*program)->instruction(1).supply_us, 1);
  EXPECT_DOUBLE_EQ((*program)->instruction(1).empty_latency_us, 2);
  EXPECT_DOUBLE_EQ((*program)->max_return_us(), 1);  // t = 0 has no buffers
  MMapGame game(*program);
  EXPECT_NEAR(game.ApplyAction(Action::kCopy).reward, 0.9, 1e-12);
  // Step 0's supply 0.5 covered the first copy; the second finds none left.
  EXPECT_FALSE(game.Outcome(Action::kCopy).legal);
  game.Undo();
  EXPECT_NEAR(game.ApplyAction(Action::kDrop).reward, 0, 1e-12);
  EXPECT_NEAR(game.ApplyAction(Action::kCopy).reward, 0.9, 1e-12);
  game.Undo();
  game.Undo();
  game.ApplyAction(Action::kCopy);
  game.Undo();
  EXPECT_DOUBLE_EQ(game.Latency(), 2.5);
}

// Both rewards on a roofline with supply for both copies: 0.9 + 0.1.
TEST(RewardTest, NormalisedReturnIsOneWhenEverythingIsFast) {
  auto program = Program::Create(RooflineWorkload({1}, /*outputs=*/true));
  ASSERT_TRUE(program.ok()) << program.status();
  MMapGame game(*program);
  EXPECT_NEAR(game.ApplyAction(Action::kNoCopy).reward, 0.9, 1e-12);
  EXPECT_NEAR(game.ApplyAction(Action::kNoCopy).reward, 0.1, 1e-12);
  EXPECT_NEAR(game.NormalisedReturn(), 1.0, 1e-12);
  EXPECT_NEAR(game.Latency(), 1.0, 1e-12);
}

// Measured table over buffers {0, 1}: latency 10 / 6 / 7 / 2 for masks 0..3;
// buffer 2 is unlisted with static benefit 1.5. Rewards: b0 = 10 - 6 = 4,
// b1 = 6 - 2 = 4, b2 = 1.5.
TEST(RewardTest, MeasuredTableAndStaticBenefitForUnlistedBuffers) {
  WorkloadBuilder w(1, 1000);
  w.Add(0, true, 10, 0, 0, 0, 0, /*benefit=*/0);
  w.Add(0, true, 10, 1, 0, 0, 0, /*benefit=*/0);
  w.Add(0, true, 10, 2, 0, 0, 0, /*benefit=*/1.5);
  w.workload().mutable_buffers(0)->clear_benefit_us();
  w.workload().mutable_buffers(1)->clear_benefit_us();
  MeasuredLatency* table = w.workload().mutable_instructions(0)->mutable_measured();
  table->add_buffer_ids(0);
  table->add_buffer_ids(1);
  for (double latency : {10.0, 6.0, 7.0, 2.0}) table->add_latency_us(latency);
  MMapGame game = w.Game();
  EXPECT_DOUBLE_EQ(game.program().buffer(1).benefit_us, 3);  // static: 10 - 7
  EXPECT_DOUBLE_EQ(game.ApplyAction(Action::kNoCopy).reward, 4);
  EXPECT_DOUBLE_EQ(game.ApplyAction(Action::kNoCopy).reward, 4);
  EXPECT_DOUBLE_EQ(game.ApplyAction(Action::kNoCopy).reward, 1.5);
  // Normaliser: L({}) = 10 (+1.5 static) - L(all) = 2 - ... = 11.5 - 0.5.
  EXPECT_DOUBLE_EQ(game.program().max_return_us(), 9.5);
  EXPECT_DOUBLE_EQ(game.NormalisedReturn(), 1.0);
}

TEST(ObservationTest, OccupancyGridDownSamplesTimeAndBytes) {
  WorkloadBuilder w(4, 100);
  w.Add(0, true, 50, 0, 0, 1);  // NoCopy: [0, 1] x [0, 50)
  MMapGame game = w.Game();
  game.ApplyAction(Action::kNoCopy);
  // Window [0, 3] as 2 time bins x 2 byte bins: the rect fills cell (0, 0).
  EXPECT_EQ(game.OccupancyGrid(0, 3, 2, 2),
            (std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f}));
  // 4 byte bins at t = 1: the lower half is full.
  EXPECT_EQ(game.OccupancyAt(1, 4), (std::vector<float>{1, 1, 0, 0}));
  EXPECT_EQ(game.OccupancyAt(2, 4), (std::vector<float>{0, 0, 0, 0}));
  // 1 time bin over [0, 3]: half of the time, half of the bytes.
  EXPECT_EQ(game.OccupancyGrid(0, 3, 1, 1), (std::vector<float>{0.25f}));
  EXPECT_EQ(game.SupplyWindow(-1, 1), (std::vector<double>{0, 10, 10}));
}

// Rules §7. Steps 0..5, supply 10 each; steps [2, 3] are a loop of 4 trips.
// An operand at 3 with demand 15 needs two steps of supply, but its copy
// must stay inside the loop ([2, 3): 10 us): no prefetch. Without the loop
// it starts at 1.
TEST(LoopTest, PrefetchStaysInsideItsLoop) {
  WorkloadBuilder looped(6, 100);
  looped.Add(3, false, 40, 0, 0, 3, /*demand=*/15, /*benefit=*/7);
  looped.Loop(2, 3, 4);
  EXPECT_FALSE(looped.Game().Outcome(Action::kCopy).legal);
  WorkloadBuilder straight(6, 100);
  straight.Add(3, false, 40, 0, 0, 3, 15, 7);
  const MMapGame straight_game = straight.Game();
  const ActionOutcome& copy = straight_game.Outcome(Action::kCopy);
  ASSERT_TRUE(copy.legal);
  EXPECT_EQ(copy.copy.first, 1);
}

// An operand at 5, after the loop [2, 3]: its copy may not run under the
// loop either, so only step 4 supplies it (demand 10 fits, 15 does not).
TEST(LoopTest, PrefetchAfterALoopDoesNotStartInsideIt) {
  WorkloadBuilder fits(6, 100);
  fits.Add(5, false, 40, 0, 0, 5, /*demand=*/10, 1);
  fits.Loop(2, 3, 4);
  const MMapGame fits_game = fits.Game();
  const ActionOutcome& copy = fits_game.Outcome(Action::kCopy);
  ASSERT_TRUE(copy.legal);
  EXPECT_EQ(copy.copy.first, 4);
  EXPECT_EQ(copy.interval_start, 4);
  WorkloadBuilder short_of_supply(6, 100);
  short_of_supply.Add(5, false, 40, 0, 0, 5, 15, 1);
  short_of_supply.Loop(2, 3, 4);
  EXPECT_FALSE(short_of_supply.Game().Outcome(Action::kCopy).legal);
}

// An output written at 2 inside the loop [2, 3] is written back over step
// 3 at the latest (demand 10: e = 3); demand 15 would need step 4, outside.
TEST(LoopTest, WriteBackEndsInsideItsLoop) {
  WorkloadBuilder fits(6, 100);
  fits.Add(2, true, 40, 0, 2, 5, /*demand=*/10, 1);
  fits.Loop(2, 3, 4);
  const MMapGame fits_game = fits.Game();
  const ActionOutcome& copy = fits_game.Outcome(Action::kCopy);
  ASSERT_TRUE(copy.legal);
  EXPECT_EQ(copy.copy.last, 3);
  WorkloadBuilder too_long(6, 100);
  too_long.Add(2, true, 40, 0, 2, 5, 15, 1);
  too_long.Loop(2, 3, 4);
  EXPECT_FALSE(too_long.Game().Outcome(Action::kCopy).legal);
}

// A buffer inside a loop of 4 trips saves its benefit on every trip: reward
// 4 x 3; the all-slow latency counts the loop's steps 4 times:
// supply 10 + benefit 3 at step 1 (4 trips) and 10 at steps 0 and 2.
TEST(LoopTest, RewardAndLatencyCountEveryTrip) {
  WorkloadBuilder w(3, 100);
  w.Add(1, false, 8, 0, 0, 1, /*demand=*/0, /*benefit=*/3);
  w.Add(0, true, 8, 0, 0, 1, 0, 0);
  w.Loop(1, 1, 4);
  MMapGame game = w.Game();
  EXPECT_DOUBLE_EQ(game.program().empty_latency_us(), 10 + 4 * 13 + 10);
  EXPECT_DOUBLE_EQ(game.program().full_latency_us(), 10 + 4 * 10 + 10);
  game.ApplyAction(Action::kNoCopy);  // the output, at 0: lives in fast memory
  EXPECT_DOUBLE_EQ(game.Outcome(Action::kNoCopy).reward, 12);
  game.ApplyAction(Action::kNoCopy);
  EXPECT_DOUBLE_EQ(game.Return(), 12);
  EXPECT_DOUBLE_EQ(game.NormalisedReturn(), 1.0);
  EXPECT_DOUBLE_EQ(game.Latency(), 60);
}

}  // namespace
}  // namespace mmapzero::game
