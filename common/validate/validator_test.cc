#include "common/validate/validator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "common/validate/tiny_workloads_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::validate {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using tiny::AddAliasedBuffer;
using tiny::AddBuffer;
using tiny::Copy;
using tiny::Drop;
using tiny::FourStepSolution;
using tiny::FourStepWorkload;
using tiny::NoCopy;
using tiny::StaticWorkload;

// The rule ids of a report's violations, in order.
std::vector<std::string> Rules(const ValidationReport& report) {
  std::vector<std::string> rules;
  for (const Violation& v : report.violations) rules.push_back(v.rule);
  return rules;
}

// Decision `b` of FourStepSolution (listed in decision order 3, 4, 1, 0, 2).
BufferDecision* DecisionOf(Solution* solution, int b) {
  for (BufferDecision& d : *solution->mutable_decisions()) {
    if (d.buffer_id() == b) return &d;
  }
  return nullptr;
}

TEST(ValidatorTest, AcceptsRuleFollowingSolutionWithHandComputedFigures) {
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), FourStepSolution());
  EXPECT_TRUE(report.ok);
  EXPECT_THAT(report.violations, IsEmpty());
  EXPECT_THAT(report.warnings, IsEmpty());
  // See FourStepSolution: latency 8, all-slow 19, all-fast 4.
  EXPECT_DOUBLE_EQ(report.return_us, 11.0);
  EXPECT_DOUBLE_EQ(report.latency_us, 8.0);
  EXPECT_DOUBLE_EQ(report.all_slow_latency_us, 19.0);
  EXPECT_DOUBLE_EQ(report.all_fast_latency_us, 4.0);
  EXPECT_DOUBLE_EQ(report.normalised_return, 11.0 / 15.0);
  EXPECT_EQ(report.actions.copy, 2);
  EXPECT_EQ(report.actions.no_copy, 2);
  EXPECT_EQ(report.actions.drop, 1);
}

TEST(ValidatorTest, AllDropHasZeroReturnAndAllSlowLatency) {
  Solution solution;
  for (int b : {3, 4, 1, 0, 2}) *solution.add_decisions() = Drop(b);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_TRUE(report.ok);
  EXPECT_DOUBLE_EQ(report.return_us, 0.0);
  EXPECT_DOUBLE_EQ(report.normalised_return, 0.0);
  EXPECT_DOUBLE_EQ(report.latency_us, 19.0);
}

TEST(ValidatorTest, ReportsWorkloadThatFailsItsChecks) {
  Workload workload = FourStepWorkload();
  workload.set_memory_size(0);
  const ValidationReport report =
      ValidateSolution(workload, FourStepSolution());
  EXPECT_FALSE(report.ok);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleWorkload));
  EXPECT_THAT(report.violations[0].message, HasSubstr("memory_size"));
}

TEST(ValidatorTest, ReportsMissingDecisionAndCountsItAsDrop) {
  Solution solution = FourStepSolution();
  solution.mutable_decisions()->RemoveLast();  // b2
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_FALSE(report.ok);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleMissingDecision));
  EXPECT_EQ(report.violations[0].buffer_id, 2);
  // b2 (benefit 3) now slow: latency 8 + 3.
  EXPECT_DOUBLE_EQ(report.latency_us, 11.0);
}

TEST(ValidatorTest, ReportsDuplicateDecision) {
  Solution solution = FourStepSolution();
  *solution.add_decisions() = Drop(4);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleDuplicateDecision));
  EXPECT_EQ(report.violations[0].buffer_id, 4);
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("decisions[1] and decisions[5]"));
}

TEST(ValidatorTest, ReportsUnknownBuffer) {
  Solution solution = FourStepSolution();
  *solution.add_decisions() = Drop(9);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleUnknownBuffer));
  EXPECT_THAT(report.violations[0].message, HasSubstr("buffer 9"));
}

TEST(ValidatorTest, ReportsFirstDecisionOutOfOrderOnce) {
  Solution solution = FourStepSolution();
  // b4 (operand at 1) must come before b1 (output at 1).
  solution.mutable_decisions()->SwapElements(1, 2);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleDecisionOrder));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("decisions[1] is buffer 1; decision order"));
  // The replay itself follows decision order, so the figures stand.
  EXPECT_DOUBLE_EQ(report.return_us, 11.0);
}

TEST(ValidatorTest, ReportsUnknownActionAsDrop) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 4)->set_action(static_cast<Action>(7));
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleUnknownAction));
}

TEST(ValidatorTest, ReportsNoCopyOutputIntervalOtherThanLiveRange) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 3)->set_interval_end(2);  // live range is [0, 1]
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleIntervalShape));
  EXPECT_EQ(report.violations[0].buffer_id, 3);
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("allocation interval [0, 2]; the action gives I(b) = "
                        "[0, 1]"));
}

TEST(ValidatorTest, ReportsDropThatHoldsAnOffset) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 4)->set_offset(0);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleIntervalShape));
  EXPECT_THAT(report.violations[0].message, HasSubstr("DROP holds no fast"));
}

TEST(ValidatorTest, ReportsPrefetchStepsNotEndingBeforeTheUse) {
  Solution solution = FourStepSolution();
  // b0 is used at 2; steps [0, 2] would overlap the use.
  *DecisionOf(&solution, 0) = Copy(0, 50, 0, 2, 0, 2);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleIntervalShape));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("must end right before the use at 2"));
}

TEST(ValidatorTest, ReportsOffsetBeyondMemory) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 0)->set_offset(70);  // 70 + 40 > 100
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleOffsetRange));
  EXPECT_THAT(report.violations[0].message, HasSubstr("bytes [70, 110)"));
}

// A reported offset can be anything: offset + size would overflow int64
// (undefined; UBSan stops there), so it is named, not computed, and the
// allocation joins no overlap check.
TEST(ValidatorTest, ReportsOffsetNearInt64MaxWithoutOverflow) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 0)
      ->set_offset(std::numeric_limits<int64_t>::max() - 10);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleOffsetRange));
  EXPECT_THAT(
      report.violations[0].message,
      HasSubstr("bytes [9223372036854775797, 9223372036854775797 + 40)"));
}

TEST(ValidatorTest, ReportsMisalignedOffset) {
  Workload workload = FourStepWorkload();
  workload.set_alignment(10);  // the rule's offsets 0, 20, 50 stay aligned
  Solution solution = FourStepSolution();
  ASSERT_TRUE(ValidateSolution(workload, solution).ok);
  DecisionOf(&solution, 0)->set_offset(55);
  const ValidationReport report = ValidateSolution(workload, solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleOffsetAlignment));
}

TEST(ValidatorTest, ReportsFreeOffsetThatIsNotTheLowest) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 0)->set_offset(60);  // free, but 50 is lower
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleOffsetNotLowest));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("lowest free aligned offset over steps [0, 2] is 50"));
}

TEST(ValidatorTest, ReportsOverlappingAllocationsOnce) {
  Solution solution = FourStepSolution();
  // b0 at [40, 80) over steps [0, 2] meets b1's [20, 50) over [1, 2].
  DecisionOf(&solution, 0)->set_offset(40);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleAllocationOverlap));
  // The sweep meets b0 (from step 0) first, then b1 (from step 1).
  EXPECT_EQ(report.violations[0].buffer_id, 1);
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("steps [1, 2] x bytes [20, 50) overlaps buffer 0's "
                        "steps [0, 2] x bytes [40, 80)"));
}

TEST(ValidatorTest, ReportsWriteBackEndingLaterThanTheRule) {
  Solution solution = FourStepSolution();
  // Steps [2, 3] are legal (supply 2 >= 0.5) but e = 2 already covers it.
  *DecisionOf(&solution, 1) = Copy(1, 20, 1, 3, 2, 3);
  // Tensor 1 now holds fast memory to step 3: b2's extension is empty.
  *DecisionOf(&solution, 2) = NoCopy(2, 20);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleCopyIntervalNotRule));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("copy steps [2, 3]; the earliest legal end is 2"));
}

TEST(ValidatorTest, ReportsNoCopyOperandWithoutEarlierAllocation) {
  Solution solution = FourStepSolution();
  *DecisionOf(&solution, 4) = NoCopy(4, 50, 1, 1);  // tensor 3 never fast
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleNoCopyWithoutAllocation));
  EXPECT_EQ(report.violations[0].buffer_id, 4);
}

TEST(ValidatorTest, ReportsNoCopyOperandThatMovesItsTensor) {
  Solution solution = FourStepSolution();
  DecisionOf(&solution, 2)->set_offset(0);  // tensor 1 lies at 20
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleNoCopyOffset));
  EXPECT_THAT(report.violations[0].message, HasSubstr("at offset 20"));
}

TEST(ValidatorTest, ReportsNoCopyExtensionOtherThanFromTheLatestAllocation) {
  Solution solution = FourStepSolution();
  // Tensor 1 holds fast memory to step 2 only; the extension (2, 3] is not
  // empty.
  DecisionOf(&solution, 2)->clear_interval_start();
  DecisionOf(&solution, 2)->clear_interval_end();
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleIntervalShape));
  EXPECT_THAT(report.violations[0].message, HasSubstr("I(b) = [3, 3]"));
}

// Two operands used at 3, supply 1 per step, 100 bytes:
//   c0 tensor 0, 10 B, live [0,3], demand 1.5: rule s=1 (W[2]+W[1] = 2),
//      copy steps [1,2], I=[1,3], offset 0; leaves W[2]=0, W[1]=0.5.
//   c1 tensor 1, 10 B, live [0,3], demand 0.5: W[2]=0 and the pair (1,2)
//      is c0's, so the rules leave c1 no copy interval.
Workload TwoPrefetchWorkload() {
  Workload w = StaticWorkload(4, 100, 1.0);
  AddBuffer(&w, {0, false, 3, 10, 0, 3, 1.5, 2.0});
  AddBuffer(&w, {1, false, 3, 10, 0, 3, 0.5, 2.0});
  return w;
}

TEST(ValidatorTest, AcceptsPrefetchAtTheLatestStartCoveringDemand) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 3, 1, 2);
  *solution.add_decisions() = Drop(1);
  const ValidationReport report =
      ValidateSolution(TwoPrefetchWorkload(), solution);
  EXPECT_TRUE(report.ok) << Rules(report).size();
  // L_3 = 1 + 2 (c1 slow); all slow 1+1+1+5 = 8; latency 6; return 2.
  EXPECT_DOUBLE_EQ(report.return_us, 2.0);
}

TEST(ValidatorTest, ReportsPrefetchStartingEarlierThanTheRule) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 0, 3, 0, 2);  // rule: s = 1
  *solution.add_decisions() = Drop(1);
  const ValidationReport report =
      ValidateSolution(TwoPrefetchWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleCopyIntervalNotRule));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("the latest legal start is 1"));
}

TEST(ValidatorTest, ReportsCopyStepsSharingTwoStepsWithAnEarlierCopy) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 3, 1, 2);
  // W[1] + W[2] = 0.5 covers c1, but steps 1 and 2 are both c0's.
  *solution.add_decisions() = Copy(1, 10, 1, 3, 1, 2);
  const ValidationReport report =
      ValidateSolution(TwoPrefetchWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleCopyIntervalOverlap));
  EXPECT_EQ(report.violations[0].buffer_id, 1);
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("share steps 1 and 2 with the copy steps [1, 2] of "
                        "buffer 0"));
}

TEST(ValidatorTest, ReportsCopyOverdrawingSupply) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 3, 1, 2);
  // Step 2 alone shares no pair, but c0 spent all of W[2].
  *solution.add_decisions() = Copy(1, 10, 2, 3, 2, 2);
  const ValidationReport report =
      ValidateSolution(TwoPrefetchWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleSupplyOverdrawn));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("have 0 us of supply left; the copy needs 0.5 us"));
}

TEST(ValidatorTest, AcceptsSupplyShortByLessThanTheTolerance) {
  Workload workload = TwoPrefetchWorkload();
  workload.mutable_buffers(0)->set_demand_us(2.0 * (1 + 1e-12));
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 3, 1, 2);
  *solution.add_decisions() = Drop(1);
  EXPECT_TRUE(ValidateSolution(workload, solution).ok);
}

TEST(ValidatorTest, ZeroDemandCopyHasNoStepsAndHoldsOnlyTheUse) {
  Workload workload = TwoPrefetchWorkload();
  workload.mutable_buffers(1)->set_demand_us(0.0);
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 1, 3, 1, 2);
  *solution.add_decisions() = Copy(1, 10, 3, 3, std::nullopt, std::nullopt);
  EXPECT_TRUE(ValidateSolution(workload, solution).ok);
  solution.mutable_decisions(1)->set_copy_start(2);
  solution.mutable_decisions(1)->set_copy_end(2);
  EXPECT_THAT(Rules(ValidateSolution(workload, solution)),
              ElementsAre(kRuleIntervalShape));
}

// In-place update: a0 (tensor 0 operand at 1) and a1 (tensor 1 output at 1)
// share alias group 7. Three steps, supply 1, 100 bytes.
//   a0 Copy: s=0 (W[0]=1 covers 0.5), steps [0,0], I=[0,1], offset 0.
//   a1 NoCopy output: I = live [1,2], at the group's offset 0; it shares
//      step 1 with a0 at the same bytes, which one alias group may.
Workload AliasWorkload() {
  Workload w = StaticWorkload(3, 100, 1.0);
  AddAliasedBuffer(&w, {0, false, 1, 30, 0, 1, 0.5, 2.0}, 7);
  AddAliasedBuffer(&w, {1, true, 1, 30, 1, 2, 0.5, 2.0}, 7);
  return w;
}

TEST(ValidatorTest, AcceptsAliasGroupSharingItsBytes) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 0, 1, 0, 0);
  *solution.add_decisions() = NoCopy(1, 0, 1, 2);
  EXPECT_TRUE(ValidateSolution(AliasWorkload(), solution).ok);
}

TEST(ValidatorTest, ReportsAliasMemberAtAnotherOffset) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 0, 1, 0, 0);
  *solution.add_decisions() = NoCopy(1, 40, 1, 2);  // free, but not 0
  const ValidationReport report = ValidateSolution(AliasWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleAliasGroup));
  EXPECT_THAT(report.violations[0].message,
              HasSubstr("offset 40, but alias group 7 is at offset 0"));
}

TEST(ValidatorTest, ReportsAliasMemberDroppedFromFastGroup) {
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 0, 1, 0, 0);
  *solution.add_decisions() = Drop(1);
  const ValidationReport report = ValidateSolution(AliasWorkload(), solution);
  EXPECT_THAT(Rules(report), ElementsAre(kRuleAliasGroup));
  EXPECT_EQ(report.violations[0].buffer_id, 1);
}

TEST(ValidatorTest, OverlapOfDifferentGroupsIsNotExcused) {
  Workload workload = AliasWorkload();
  workload.mutable_buffers(1)->set_alias_id(8);
  Solution solution;
  *solution.add_decisions() = Copy(0, 0, 0, 1, 0, 0);
  *solution.add_decisions() = NoCopy(1, 0, 1, 2);
  EXPECT_THAT(Rules(ValidateSolution(workload, solution)),
              ElementsAre(kRuleAllocationOverlap));
}

TEST(ValidatorTest, WarnsWhenStatedFiguresDisagreeButStaysValid) {
  Solution solution = FourStepSolution();
  solution.set_return_us(11.0);
  solution.set_latency_us(8.0);
  solution.set_normalised_return(11.0 / 15.0);
  EXPECT_THAT(ValidateSolution(FourStepWorkload(), solution).warnings,
              IsEmpty());
  solution.set_return_us(12.0);
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_TRUE(report.ok);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0].rule, kRuleReportedFigures);
  EXPECT_THAT(report.warnings[0].message, HasSubstr("return_us = 12"));
}

TEST(ValidatorTest, WarnsWhenSolutionNamesAnotherWorkload) {
  Solution solution = FourStepSolution();
  solution.set_workload_name("other");
  const ValidationReport report =
      ValidateSolution(FourStepWorkload(), solution);
  EXPECT_TRUE(report.ok);
  EXPECT_THAT(report.warnings,
              ElementsAre(Field(&Violation::rule, kRuleWorkloadName)));
}

// 20,000 steps, one output per step, 16 B, live [t, t+9], kept in fast
// memory of 160 B: at step t the outputs of t-9..t-1 hold every 16-byte
// slot but (t mod 10), which output t-10 gave up, so the rule puts output t
// at 16 * (t mod 10), and memory is full throughout.
TEST(ValidatorTest, ValidatesTwentyThousandBuffersQuickly) {
  constexpr int kSteps = 20000;
  Workload workload = StaticWorkload(kSteps, 160, 1.0);
  Solution solution;
  for (int t = 0; t < kSteps; ++t) {
    const int last = std::min(t + 9, kSteps - 1);
    AddBuffer(&workload, {t, true, t, 16, t, last, 0.1, 1.0});
    *solution.add_decisions() = NoCopy(t, 16 * (t % 10), t, last);
  }
  const auto start = std::chrono::steady_clock::now();
  const ValidationReport report = ValidateSolution(workload, solution);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_TRUE(report.ok) << report.violations.size();
  EXPECT_DOUBLE_EQ(report.return_us, kSteps * 1.0);
  EXPECT_LT(seconds, 1.0);
  // One output moved onto the slot output 4991 still holds is caught (the
  // outputs after it then deviate from the rule's lowest offset too).
  solution.mutable_decisions(5000)->set_offset(16 * 1);
  const ValidationReport broken = ValidateSolution(workload, solution);
  EXPECT_THAT(broken.violations,
              Contains(AllOf(Field(&Violation::buffer_id, 5000),
                             Field(&Violation::rule, kRuleAllocationOverlap))));
}

// Rules §7 on FourStepWorkload with steps [1, 2] a loop of 3 trips: b0's
// prefetch over [0, 1] for its use at 2 starts outside the loop, which the
// validator names; the figures count the loop's steps 3 times.
TEST(ValidatorTest, ReportsACopyThatCrossesALoopBoundary) {
  Workload workload = FourStepWorkload();
  Loop* loop = workload.add_loops();
  loop->set_first_step(1);
  loop->set_last_step(2);
  loop->set_trip_count(3);
  const ValidationReport report = ValidateSolution(workload, FourStepSolution());
  EXPECT_FALSE(report.ok);
  bool named = false;
  for (const Violation& violation : report.violations) {
    named |= violation.buffer_id == 0 &&
             violation.message.find("copy steps [0, 1] leave the steps [1, 2]") !=
                 std::string::npos &&
             violation.message.find("never crosses a loop's boundary") !=
                 std::string::npos;
  }
  EXPECT_TRUE(named) << FormatViolation(report.violations.front());
  // All-slow [2, 7, 6, 4] with steps 1 and 2 three times: 2 + 21 + 18 + 4.
  EXPECT_DOUBLE_EQ(report.all_slow_latency_us, 45.0);
  EXPECT_DOUBLE_EQ(report.all_fast_latency_us, 1 + 3 + 3 + 1);
}

}  // namespace
}  // namespace mmapzero::validate
