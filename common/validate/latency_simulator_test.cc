#include "common/validate/latency_simulator.h"

#include "common/validate/tiny_workloads_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::validate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using tiny::AddBuffer;
using tiny::Copy;
using tiny::Drop;
using tiny::FourStepSolution;
using tiny::FourStepWorkload;
using tiny::NoCopy;
using tiny::StaticWorkload;

// FourStepSolution: L_t(S_t) = [1, 5, 1, 1].
//   t=0 starts at 0 and issues b0's prefetch (1.5 us): DMA busy to 1.5.
//   t=1 runs 1..6. At 6 b1's write-back (0.5 us) is issued: done at 6.5.
//   t=2 needs b0 (landed at 1.5): runs 6..7.
//   t=3 needs b1 written back (I(b1) ends at 2; 6.5 <= 7): runs 7..8.
// No stall: the simulated latency equals the modelled 8 us.
TEST(LatencySimulatorTest, HidesCopiesThatFitUnderTheirSupply) {
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(FourStepWorkload(), FourStepSolution());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->latency_us, 8.0);
  EXPECT_DOUBLE_EQ(result->compute_us, 8.0);
  EXPECT_DOUBLE_EQ(result->stall_us, 0.0);
  EXPECT_DOUBLE_EQ(result->dma_busy_us, 2.0);
  EXPECT_EQ(result->num_prefetches, 1);
  EXPECT_EQ(result->num_write_backs, 1);
  EXPECT_THAT(result->stall_by_instruction_us, ElementsAre(0, 0, 0, 0));
}

TEST(LatencySimulatorTest, AllDropRunsTheAllSlowProgram) {
  Solution solution;
  for (int b : {3, 4, 1, 0, 2}) *solution.add_decisions() = Drop(b);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(FourStepWorkload(), solution);
  ASSERT_TRUE(result.ok());
  EXPECT_DOUBLE_EQ(result->latency_us, 19.0);
  EXPECT_DOUBLE_EQ(result->dma_busy_us, 0.0);
}

// Three steps, supply 1, benefits 0, so every instruction takes 1 us.
Workload ThreeUnitSteps() { return StaticWorkload(3, 1000, 1.0); }

// p (operand at 2, demand 3) prefetched over step [1, 1]: issued at 1,
// lands at 4; instruction 2, ready at 2, waits 2 us. Latency 3 + 2.
TEST(LatencySimulatorTest, StallsInstructionUntilItsPrefetchLands) {
  Workload workload = ThreeUnitSteps();
  AddBuffer(&workload, {0, false, 2, 10, 0, 2, 3.0, 0.0});
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 2, 1, 1);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(workload, solution);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->stall_by_instruction_us, ElementsAre(0, 0, 2));
  EXPECT_DOUBLE_EQ(result->stall_us, 2.0);
  EXPECT_DOUBLE_EQ(result->latency_us, 5.0);
  EXPECT_DOUBLE_EQ(result->compute_us, 3.0);
}

// o (output at 0, demand 2.5, I = [0, 1]) written back from the end of
// step 0 (time 1) to 3.5; step 2, after I ends, waits from 2 to 3.5.
TEST(LatencySimulatorTest, StallsInstructionAfterAllocationUntilWriteBackEnds) {
  Workload workload = ThreeUnitSteps();
  AddBuffer(&workload, {0, true, 0, 10, 0, 2, 2.5, 0.0});
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 0, 1, 1, 1);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(workload, solution);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->stall_by_instruction_us, ElementsAre(0, 0, 1.5));
  EXPECT_DOUBLE_EQ(result->latency_us, 4.5);
}

// Both prefetches are issued as step 0 starts; q (used at 1, decided first)
// goes first: 0..1; p (used at 2, 1.5 us) queues behind it: 1..2.5.
// Step 1 starts at 1 on time; step 2 waits from 2 to 2.5.
TEST(LatencySimulatorTest, ServesCopiesOneAtATimeInOrderOfIssue) {
  Workload workload = ThreeUnitSteps();
  AddBuffer(&workload, {0, false, 2, 10, 0, 2, 1.5, 0.0});  // p
  AddBuffer(&workload, {1, false, 1, 10, 0, 1, 1.0, 0.0});  // q
  Solution solution;
  *solution.add_decisions() = Copy(1, 0, 0, 1, 0, 0);
  *solution.add_decisions() = Copy(0, 10, 0, 2, 0, 1);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(workload, solution);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->stall_by_instruction_us, ElementsAre(0, 0, 0.5));
  EXPECT_DOUBLE_EQ(result->latency_us, 3.5);
  EXPECT_DOUBLE_EQ(result->dma_busy_us, 2.5);
}

// o (output at 1, demand 3) written back over the last step: issued at 2,
// done at 5; the program ends at 3 and drains until 5.
TEST(LatencySimulatorTest, WaitsForWriteBacksEndingWithTheProgram) {
  Workload workload = ThreeUnitSteps();
  AddBuffer(&workload, {0, true, 1, 10, 1, 2, 3.0, 0.0});
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 2, 2, 2);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(workload, solution);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_DOUBLE_EQ(result->final_drain_us, 2.0);
  EXPECT_DOUBLE_EQ(result->stall_us, 2.0);
  EXPECT_DOUBLE_EQ(result->latency_us, 5.0);
  EXPECT_THAT(result->stall_by_instruction_us, ElementsAre(0, 0, 0));
}

TEST(LatencySimulatorTest, IssuesNoCopyForZeroDemandOrNoCopy) {
  Workload workload = ThreeUnitSteps();
  AddBuffer(&workload, {0, false, 1, 10, 0, 2, 0.0, 0.0});
  AddBuffer(&workload, {0, false, 2, 10, 0, 2, 5.0, 0.0});
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 1, std::nullopt, std::nullopt);
  *solution.add_decisions() = NoCopy(1, 0, 2, 2);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(workload, solution);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->num_prefetches, 0);
  EXPECT_DOUBLE_EQ(result->latency_us, 3.0);
}

TEST(LatencySimulatorTest, RejectsUnknownBuffer) {
  Solution solution = FourStepSolution();
  *solution.add_decisions() = Drop(42);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(FourStepWorkload(), solution);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("unknown buffer 42"));
}

TEST(LatencySimulatorTest, RejectsCopyWithoutCopySteps) {
  Solution solution = FourStepSolution();
  solution.mutable_decisions(3)->clear_copy_start();  // b0
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(FourStepWorkload(), solution);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("buffer 0: COPY needs"));
}

// Rules §7: steps [1, 2] are a loop of 5 trips; every step takes 1 us. p
// (operand at 2, demand 3) is prefetched inside the loop over step [1, 1]:
// issued at the start of 1, it lands 2 us after step 2 could start, on
// every trip. Latency 1 + 5 x (1 + 2 + 1) = 21 us; the DMA engine is busy
// 5 x 3 us; the unrolled program would stall 5 times.
TEST(LatencySimulatorTest, StallsInsideALoopOnEveryTrip) {
  Workload workload = ThreeUnitSteps();
  Loop* loop = workload.add_loops();
  loop->set_first_step(1);
  loop->set_last_step(2);
  loop->set_trip_count(5);
  AddBuffer(&workload, {0, false, 2, 10, 0, 2, 3.0, 0.0});
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 2, 1, 1);
  const absl::StatusOr<SimulationResult> result =
      SimulateSolution(workload, solution);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->stall_by_instruction_us, ElementsAre(0, 0, 10));
  EXPECT_DOUBLE_EQ(result->compute_us, 11.0);
  EXPECT_DOUBLE_EQ(result->stall_us, 10.0);
  EXPECT_DOUBLE_EQ(result->latency_us, 21.0);
  EXPECT_DOUBLE_EQ(result->dma_busy_us, 15.0);
  EXPECT_EQ(result->num_prefetches, 1);
}

}  // namespace
}  // namespace mmapzero::validate
