#include "cli/best_start_report.h"

#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

TEST(BestStartTextTest, SaysNothingBeforeAGameStartedOnTheBest) {
  v1::JobStatus job;
  job.set_games(12);
  EXPECT_EQ(BestStartText(job), "-");
}

TEST(BestStartTextTest, GivesCountsAndTheShareOfMovesFollowed) {
  v1::JobStatus job;
  job.set_games(200);
  job.set_moves(10000);
  job.set_best_starts(150);
  job.set_followed_moves(7130);
  job.set_rejoined(120);
  job.set_unchanged(30);
  job.set_best_start_window(8);
  EXPECT_EQ(BestStartText(job),
            "150 games started on it, 71.3 % of moves followed it, 120 "
            "variations rejoined it (30 unchanged), window 8");
}

}  // namespace
}  // namespace mmapzero::cli
