#include "replay/replay_tables.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "absl/time/clock.h"
#include "common/agent/snapshot_file.h"
#include "common/base/small_disk_for_tests.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/table_checkpoint.h"
#include "replay/test_trajectories.h"

namespace mmapzero::replay {
namespace {

using coordinator::TestDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

ReplayTablesOptions Options(const std::string& data_dir) {
  ReplayTablesOptions options;
  options.data_dir = data_dir;
  options.default_capacity = 10;
  options.table.limiter.min_positions = 1;
  options.table.limiter.samples_per_insert = 0;
  options.max_rate_wait = absl::ZeroDuration();
  return options;
}

v1::InsertTrajectoriesRequest Insert(const std::string& job,
                                     std::vector<int> lengths) {
  v1::InsertTrajectoriesRequest request;
  request.set_job_id(job);
  for (int n : lengths) *request.add_trajectories() = MakeProto(n);
  return request;
}

v1::SampleBatchRequest Sample(const std::string& job, int batch, int k, int n) {
  v1::SampleBatchRequest request;
  request.set_job_id(job);
  request.set_batch_size(batch);
  request.set_unroll_steps(k);
  request.set_td_steps(n);
  request.set_discount(0.997);
  request.set_seed(11);
  return request;
}

const absl::Time kDeadline = absl::InfiniteFuture();

TEST(ReplayTablesTest, WindowsHoldStepsStartToStartPlusKPlusN) {
  ReplayTables tables(Options(""));
  const auto inserted = tables.Insert(Insert("job-1", {10}));
  ASSERT_TRUE(inserted.ok()) << inserted.status();
  EXPECT_THAT(inserted->trajectory_ids(), testing::ElementsAre(1));
  EXPECT_EQ(inserted->table_size(), 1);

  const auto batch = tables.SampleBatch(Sample("job-1", 200, 2, 3), kDeadline);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->windows_size(), 200);
  std::set<int> starts;
  for (const v1::TrajectoryWindow& w : batch->windows()) {
    const int start = w.start_step();
    starts.insert(start);
    EXPECT_EQ(w.trajectory_id(), 1u);
    EXPECT_EQ(w.trajectory_length(), 10);
    EXPECT_EQ(w.window().trajectory_id(), 1u);
    EXPECT_EQ(w.window().targets_version(), 7);
    EXPECT_EQ(w.window().parameter_version(), 7);
    // K + n + 1 = 6 steps, clipped at step 9.
    ASSERT_EQ(w.window().steps_size(), std::min(6, 10 - start)) << start;
    for (int i = 0; i < w.window().steps_size(); ++i) {
      const v1::TrajectoryStep& step = w.window().steps(i);
      EXPECT_EQ(step.buffer(), start + i);
      EXPECT_EQ(step.reward(), -static_cast<float>(start + i));
      EXPECT_EQ(step.root_value(), static_cast<float>(start + i) / 10);
      EXPECT_EQ(step.policy_size(), 3);
      EXPECT_EQ(step.occupancy().size(), i == 0 ? 4u : 0u);
      EXPECT_EQ(step.vector_size(), i == 0 ? 2 : 0);
    }
    EXPECT_EQ(w.window().steps(0).vector(0), static_cast<float>(start));
  }
  EXPECT_EQ(starts.size(), 10u);  // every start drawn in 200 tries
}

TEST(ReplayTablesTest, BadRequestsNameTheFieldAndChangeNothing) {
  ReplayTables tables(Options(""));
  auto status = tables.Insert(Insert("../etc", {2})).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("job_id: must be"));

  v1::InsertTrajectoriesRequest bad = Insert("job-1", {2, 3});
  bad.mutable_trajectories(1)->mutable_steps(2)->set_action(
      static_cast<Action>(5));
  status = tables.Insert(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("trajectories[1].steps[2].action: must be 0..2"));
  bad = Insert("job-1", {2});
  bad.mutable_trajectories(0)->set_trajectory_id(4);
  EXPECT_THAT(tables.Insert(bad).status().message(),
              HasSubstr("trajectories[0].trajectory_id: must be 0"));
  EXPECT_TRUE(tables.AllStats().empty());  // no table was made

  EXPECT_EQ(
      tables.SampleBatch(Sample("job-9", 1, 1, 1), kDeadline).status().code(),
      absl::StatusCode::kNotFound);
  ASSERT_TRUE(tables.Insert(Insert("job-1", {2})).ok());
  status = tables.SampleBatch(Sample("job-1", 0, 1, 1), kDeadline).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("batch_size: must be in 1..65536"));
  EXPECT_EQ(tables.AllStats()[0].stats.sampled(), 0);
}

// Trajectories of 3 steps with 1000-byte occupancy maps: about 3.1 kB
// whole, about 1 kB as a one-step window.
absl::StatusCode ReanalyseCode(int64_t limit, int count, int* got) {
  ReplayTablesOptions options = Options("");
  options.max_message_bytes = limit;
  ReplayTables tables(options);
  v1::InsertTrajectoriesRequest request;
  request.set_job_id("job-1");
  *request.add_trajectories() = MakeProto(3, /*occupancy_size=*/1000);
  *request.add_trajectories() = MakeProto(3, /*occupancy_size=*/1000);
  EXPECT_TRUE(tables.Insert(request).ok());
  v1::SampleForReanalyseRequest reanalyse;
  reanalyse.set_job_id("job-1");
  reanalyse.set_count(count);
  const auto response = tables.SampleForReanalyse(reanalyse);
  *got = response.ok() ? response->trajectories_size() : -1;
  if (!response.ok()) {
    EXPECT_THAT(response.status().message(),
                HasSubstr("-byte message limit; ask for less"));
  }
  return response.status().code();
}

TEST(ReplayTablesTest, OversizedResponsesAreCutOrResourceExhausted) {
  int got = 0;
  EXPECT_EQ(ReanalyseCode(2000, 2, &got), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ReanalyseCode(5000, 2, &got), absl::StatusCode::kOk);
  EXPECT_EQ(got, 1);  // the second would not fit
  EXPECT_EQ(ReanalyseCode(10000, 2, &got), absl::StatusCode::kOk);
  EXPECT_EQ(got, 2);

  ReplayTablesOptions options = Options("");
  options.max_message_bytes = 2000;
  ReplayTables tables(options);
  v1::InsertTrajectoriesRequest request;
  request.set_job_id("job-1");
  *request.add_trajectories() = MakeProto(3, /*occupancy_size=*/1000);
  ASSERT_TRUE(tables.Insert(request).ok());
  EXPECT_TRUE(tables.SampleBatch(Sample("job-1", 1, 0, 0), kDeadline).ok());
  v1::GetStatsRequest get;
  get.set_job_id("job-1");
  const int64_t sampled = tables.GetStats(get)->sampled();
  const absl::Status status =
      tables.SampleBatch(Sample("job-1", 3, 0, 0), kDeadline).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("SampleBatch with batch_size 3"));
  // Refused before sampling: nothing drawn, no rate-limiter budget spent.
  EXPECT_EQ(tables.GetStats(get)->sampled(), sampled);
  // The largest batch the protocol allows is refused at once too.
  EXPECT_EQ(tables.SampleBatch(Sample("job-1", 65536, 0, 0), kDeadline)
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(ReplayTablesTest, AssignmentSizesTheTable) {
  ReplayTables tables(Options(""));
  v1::Assignment assignment;
  assignment.set_job_id("job-3");
  assignment.set_role(v1::WORKER_ROLE_REPLAY);
  assignment.mutable_config()->mutable_training()->set_replay_size(2);
  v1::Assignment actor = assignment;
  actor.set_job_id("job-4");
  actor.set_role(v1::WORKER_ROLE_ACTOR);
  tables.Assign({assignment, actor});
  ASSERT_EQ(tables.AllStats().size(), 1u);
  EXPECT_EQ(tables.AllStats()[0].stats.capacity(), 2);
  ASSERT_TRUE(tables.Insert(Insert("job-3", {1, 1, 1})).ok());
  v1::GetStatsRequest get;
  get.set_job_id("job-3");
  EXPECT_EQ(tables.GetStats(get)->trajectories(), 2);
}

TEST(ReplayTablesTest, CheckpointThenRestartGivesTheSameContents) {
  TestDir dir;
  v1::SampleForReanalyseRequest all;
  all.set_job_id("job-1");
  all.set_count(100);
  all.set_seed(3);
  v1::SampleForReanalyseResponse before;
  {
    ReplayTables tables(Options(dir.path()));
    ASSERT_TRUE(tables.Insert(Insert("job-1", {3, 5, 2})).ok());
    ASSERT_TRUE(tables.Insert(Insert("job-2", {4})).ok());
    v1::UpdateTargetsRequest update;
    update.set_job_id("job-1");
    v1::TargetUpdate* u = update.add_updates();
    u->set_trajectory_id(2);
    u->set_first_step(4);
    u->add_root_values(-8);
    for (float p : {0.0f, 0.0f, 1.0f}) u->add_policies(p);
    u->set_parameter_version(31);
    ASSERT_TRUE(tables.UpdateTargets(update).ok());
    ASSERT_TRUE(tables.SampleBatch(Sample("job-1", 5, 1, 1), kDeadline).ok());
    ASSERT_TRUE(tables.CheckpointAll().ok());
    before = *tables.SampleForReanalyse(all);
  }
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir.path()) /
                                      "replay/job-1/table.mzr"));

  ReplayTables restarted(Options(dir.path()));
  ASSERT_EQ(*restarted.LoadAll(), 2);
  const v1::SampleForReanalyseResponse after =
      *restarted.SampleForReanalyse(all);
  ASSERT_EQ(after.trajectories_size(), 3);
  EXPECT_EQ(after.SerializeAsString(), before.SerializeAsString());
  v1::GetStatsRequest get;
  get.set_job_id("job-1");
  const v1::ReplayStats stats = *restarted.GetStats(get);
  EXPECT_EQ(stats.inserted(), 3);
  EXPECT_EQ(stats.sampled(), 5);
  EXPECT_EQ(stats.reanalysed(), 1);
  EXPECT_EQ(stats.positions(), 10);
  // Ids go on from where they were.
  EXPECT_EQ(restarted.Insert(Insert("job-1", {1}))->trajectory_ids(0), 4u);
}

TEST(ReplayTablesTest, TableOfAnotherJobWithTheSameIdIsSetAside) {
  TestDir dir;
  v1::Assignment assignment;
  assignment.set_job_id("job-1");
  assignment.set_role(v1::WORKER_ROLE_REPLAY);
  assignment.set_job_uid("aaaa");
  v1::GetStatsRequest get;
  get.set_job_id("job-1");
  {
    ReplayTables tables(Options(dir.path()));
    tables.Assign({assignment});
    ASSERT_TRUE(tables.Insert(Insert("job-1", {3, 4})).ok());
    ASSERT_TRUE(tables.CheckpointAll().ok());
  }
  const std::string path = dir.path() + "/replay/job-1/table.mzr";
  {
    // The same job after a restart keeps its games.
    ReplayTables restarted(Options(dir.path()));
    ASSERT_EQ(*restarted.LoadAll(), 1);
    restarted.Assign({assignment});
    EXPECT_EQ(restarted.GetStats(get)->trajectories(), 2);
    EXPECT_EQ(restarted.GetStats(get)->job_uid(), "aaaa");
  }
  // A new job-1 (another uid) starts empty; the old games are kept aside.
  ReplayTables restarted(Options(dir.path()));
  ASSERT_EQ(*restarted.LoadAll(), 1);
  assignment.set_job_uid("bbbb");
  restarted.Assign({assignment});
  EXPECT_EQ(restarted.GetStats(get)->trajectories(), 0);
  EXPECT_TRUE(std::filesystem::exists(path + ".other-aaaa"));
  ASSERT_TRUE(restarted.Insert(Insert("job-1", {5})).ok());
  restarted.Assign({assignment});  // its own uid: nothing happens
  EXPECT_EQ(restarted.GetStats(get)->trajectories(), 1);
  ASSERT_TRUE(restarted.CheckpointAll().ok());
  ReplayTables again(Options(dir.path()));
  ASSERT_EQ(*again.LoadAll(), 1);
  EXPECT_EQ(again.GetStats(get)->trajectories(), 1);
  EXPECT_EQ(again.GetStats(get)->job_uid(), "bbbb");
}

v1::Assignment ReplayAssignment(const std::string& job) {
  v1::Assignment assignment;
  assignment.set_job_id(job);
  assignment.set_role(v1::WORKER_ROLE_REPLAY);
  return assignment;
}

// Any well-formed job id no longer makes a table: at most
// max_unassigned_tables before their assignment.
TEST(ReplayTablesTest, TablesOfUnassignedJobsAreBounded) {
  ReplayTablesOptions options = Options("");
  options.max_unassigned_tables = 2;
  ReplayTables tables(options);
  ASSERT_TRUE(tables.Insert(Insert("job-a", {3})).ok());
  ASSERT_TRUE(tables.Insert(Insert("job-b", {3})).ok());
  const auto refused = tables.Insert(Insert("job-c", {3}));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("job-c"));
  EXPECT_THAT(refused.status().message(), HasSubstr("not assigned"));
  v1::GetStatsRequest get;
  get.set_job_id("job-c");
  EXPECT_TRUE(absl::IsNotFound(tables.GetStats(get).status()));
  // Existing tables take more; an assigned job always gets its table, and
  // assigning job-a leaves room for one more unassigned job.
  EXPECT_TRUE(tables.Insert(Insert("job-a", {3})).ok());
  tables.Assign({ReplayAssignment("job-a"), ReplayAssignment("job-d")});
  EXPECT_TRUE(tables.Insert(Insert("job-d", {3})).ok());
  EXPECT_TRUE(tables.Insert(Insert("job-c", {3})).ok());
  EXPECT_EQ(tables.Insert(Insert("job-e", {3})).status().code(),
            absl::StatusCode::kResourceExhausted);
}

// A job out of the assignments (finished, moved) keeps its table and
// checkpoint for the retention period after it was last assigned, then
// both go; so does a table loaded at start that is never assigned again.
TEST(ReplayTablesTest, TablesOutOfTheAssignmentsAreRetiredAfterRetention) {
  TestDir dir;
  ReplayTablesOptions options = Options(dir.path());
  options.retention = absl::Hours(1);
  const absl::Time t0 = absl::Now();
  {
    ReplayTables tables(options);
    tables.Assign({ReplayAssignment("job-1"), ReplayAssignment("job-2")}, t0);
    ASSERT_TRUE(tables.Insert(Insert("job-1", {3})).ok());
    ASSERT_TRUE(tables.Insert(Insert("job-2", {4})).ok());
    ASSERT_TRUE(tables.CheckpointAll().ok());
    tables.Assign({ReplayAssignment("job-2")}, t0 + absl::Minutes(10));
    EXPECT_EQ(tables.RetireUnassigned(t0 + absl::Minutes(50)), 0);
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/replay/job-1"));
    EXPECT_EQ(tables.RetireUnassigned(t0 + absl::Minutes(61)), 1);
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/replay/job-1"));
    v1::GetStatsRequest get;
    get.set_job_id("job-1");
    EXPECT_TRUE(absl::IsNotFound(tables.GetStats(get).status()));
    get.set_job_id("job-2");
    EXPECT_EQ(tables.GetStats(get)->trajectories(), 1);  // still assigned
    EXPECT_EQ(tables.RetireUnassigned(t0 + absl::Hours(30)), 0);
    ASSERT_TRUE(tables.CheckpointAll().ok());  // nothing of job-1 comes back
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/replay/job-1"));
  }
  ReplayTables restarted(options);
  ASSERT_EQ(*restarted.LoadAll(), 1);  // job-2
  EXPECT_EQ(restarted.RetireUnassigned(absl::Now() + absl::Minutes(30)), 0);
  EXPECT_EQ(restarted.RetireUnassigned(absl::Now() + absl::Minutes(61)), 1);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/replay/job-2"));
  options.retention = absl::ZeroDuration();  // for ever
  ReplayTables kept(options);
  ASSERT_TRUE(kept.Insert(Insert("job-3", {3})).ok());
  EXPECT_EQ(kept.RetireUnassigned(absl::Now() + absl::Hours(1000)), 0);
}

// A table out of the assignments is named to the coordinator with its
// uid, and dropped with its checkpoint once the coordinator says that job
// was deleted: never an assigned one, never one of another uid.
TEST(ReplayTablesTest, TablesOfDeletedJobsAreRetiredAtOnce) {
  TestDir dir;
  ReplayTables tables(Options(dir.path()));
  v1::Assignment first = ReplayAssignment("job-1");
  first.set_job_uid("aa");
  v1::Assignment second = ReplayAssignment("job-2");
  second.set_job_uid("bb");
  tables.Assign({first, second});
  ASSERT_TRUE(tables.Insert(Insert("job-1", {3})).ok());
  ASSERT_TRUE(tables.Insert(Insert("job-2", {4})).ok());
  ASSERT_TRUE(tables.CheckpointAll().ok());
  EXPECT_TRUE(tables.UnassignedJobs().empty());
  tables.Assign({second});
  const std::vector<v1::StoredJob> unassigned = tables.UnassignedJobs();
  ASSERT_EQ(unassigned.size(), 1u);
  EXPECT_EQ(unassigned[0].job_id(), "job-1");
  EXPECT_EQ(unassigned[0].job_uid(), "aa");

  auto stored = [](const std::string& id, const std::string& uid) {
    v1::StoredJob job;
    job.set_job_id(id);
    job.set_job_uid(uid);
    return job;
  };
  EXPECT_FALSE(tables.RetireDeleted(stored("job-1", "cc")));  // another job
  EXPECT_FALSE(tables.RetireDeleted(stored("job-2", "bb")));  // assigned
  EXPECT_FALSE(tables.RetireDeleted(stored("job-9", "")));    // no table
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/replay/job-1"));
  EXPECT_TRUE(tables.RetireDeleted(stored("job-1", "aa")));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/replay/job-1"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/replay/job-2"));
  EXPECT_TRUE(tables.UnassignedJobs().empty());
}

// The table of a job out of the assignments leaves memory once its
// checkpoint holds it whole, gives its share of the memory back to the
// running jobs, and comes back whole when the job is resumed, when a late
// write names it, and after a restart (which keeps none in memory).
TEST(ReplayTablesTest, TablesOfEndedJobsLeaveMemoryAndComeBackWhole) {
  TestDir dir;
  const int64_t game = TrajectoryBytes(MakeTrajectory(10));
  ReplayTablesOptions options = Options(dir.path());
  options.default_capacity = 1000;
  options.max_total_bytes = 8 * game;
  v1::Assignment ended = ReplayAssignment("job-1");
  ended.set_job_uid("aa");
  ended.mutable_config()->mutable_training()->set_replay_size(1000);
  v1::Assignment running = ReplayAssignment("job-2");
  running.mutable_config()->mutable_training()->set_replay_size(1000);
  v1::GetStatsRequest get_ended;
  get_ended.set_job_id("job-1");
  v1::GetStatsRequest get_running;
  get_running.set_job_id("job-2");
  {
    ReplayTables tables(options);
    tables.Assign({ended, running});
    ASSERT_TRUE(tables.Insert(Insert("job-1", {10, 10, 10})).ok());
    ASSERT_TRUE(tables.Insert(Insert("job-2", {10})).ok());
    ASSERT_TRUE(tables.CheckpointAll().ok());
    EXPECT_EQ(tables.parked_tables(), 0);  // both assigned
    EXPECT_EQ(tables.GetStats(get_running)->max_bytes(), 4 * game);

    tables.Assign({running});  // job-1 ends
    ASSERT_TRUE(tables.CheckpointAll().ok());
    EXPECT_EQ(tables.parked_tables(), 1);
    ASSERT_EQ(tables.AllStats().size(), 1u);
    EXPECT_EQ(tables.AllStats()[0].stats.job_id(), "job-2");
    EXPECT_EQ(tables.GetStats(get_running)->max_bytes(), 8 * game);
    ASSERT_EQ(tables.UnassignedJobs().size(), 1u);
    EXPECT_EQ(tables.UnassignedJobs()[0].job_uid(), "aa");

    tables.Assign({ended, running});  // resumed
    EXPECT_EQ(tables.parked_tables(), 0);
    EXPECT_EQ(tables.GetStats(get_ended)->trajectories(), 3);
    EXPECT_EQ(tables.GetStats(get_running)->max_bytes(), 4 * game);

    tables.Assign({running});  // ends again
    ASSERT_TRUE(tables.CheckpointAll().ok());
    EXPECT_EQ(tables.parked_tables(), 1);
    // A write in flight when the job ended brings the table back, and the
    // next checkpoint keeps it before the table leaves memory again.
    const auto late = tables.Insert(Insert("job-1", {10}));
    ASSERT_TRUE(late.ok()) << late.status();
    EXPECT_EQ(late->trajectory_ids(0), 4u);
    EXPECT_EQ(tables.parked_tables(), 0);
    ASSERT_TRUE(tables.CheckpointAll().ok());
    EXPECT_EQ(tables.parked_tables(), 1);
  }
  ReplayTables restarted(options);
  ASSERT_EQ(*restarted.LoadAll(), 2);
  EXPECT_EQ(restarted.parked_tables(), 2);
  EXPECT_TRUE(restarted.AllStats().empty());
  // Known by the start of their files alone: what the coordinator is asked
  // about deleted jobs.
  const std::vector<v1::StoredJob> found = restarted.UnassignedJobs();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].job_uid(), "aa");
  restarted.Assign({running});
  EXPECT_EQ(restarted.GetStats(get_running)->trajectories(), 1);
  EXPECT_EQ(restarted.GetStats(get_ended)->trajectories(), 4);  // on demand
  ASSERT_TRUE(restarted.CheckpointAll().ok());
  EXPECT_EQ(restarted.parked_tables(), 1);
  v1::StoredJob deleted;
  deleted.set_job_id("job-1");
  deleted.set_job_uid("aa");
  EXPECT_TRUE(restarted.RetireDeleted(deleted));  // parked, retired alike
  EXPECT_EQ(restarted.parked_tables(), 0);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/replay/job-1"));
  EXPECT_TRUE(absl::IsNotFound(restarted.GetStats(get_ended).status()));
}

// Writes race with the job leaving and rejoining the assignments and with
// checkpoints that park its table: no write is lost (every insert that
// succeeded is counted in the table that comes back).
TEST(ReplayTablesTest, ParkingNeverLosesAWriteInFlight) {
  TestDir dir;
  ReplayTablesOptions options = Options(dir.path());
  options.default_capacity = 100000;
  ReplayTables tables(options);
  v1::Assignment job = ReplayAssignment("job-1");
  job.mutable_config()->mutable_training()->set_replay_size(100000);
  tables.Assign({job});
  constexpr int kWrites = 200;
  std::atomic<bool> done{false};
  int64_t inserted = 0;
  std::thread writer([&] {
    for (int i = 0; i < kWrites; ++i) {
      if (tables.Insert(Insert("job-1", {3})).ok()) ++inserted;
      // Now and then a longer pause, in which a checkpoint finds the table
      // whole and parks it; the next write brings it back.
      absl::SleepFor(i % 20 == 19 ? absl::Milliseconds(20)
                                  : absl::Microseconds(200));
    }
    done = true;
  });
  int rounds = 0;
  int parked = 0;  // rounds that parked the table while the writer wrote
  while (!done) {
    tables.Assign({});
    EXPECT_TRUE(tables.CheckpointAll().ok());  // the writer is joined below
    parked += tables.parked_tables();
    tables.Assign({job});
    ++rounds;
  }
  writer.join();
  tables.Assign({});
  ASSERT_TRUE(tables.CheckpointAll().ok());
  EXPECT_EQ(tables.parked_tables(), 1);
  v1::GetStatsRequest get;
  get.set_job_id("job-1");
  EXPECT_EQ(inserted, kWrites);
  EXPECT_EQ(tables.GetStats(get)->inserted(), kWrites);  // loaded back
  RecordProperty("rounds", rounds);
  RecordProperty("parked_while_writing", parked);
}

// All tables share max_total_bytes: a second table halves the first's
// limit, and its oldest games go.
TEST(ReplayTablesTest, TablesShareTheTotalMemory) {
  const int64_t game = TrajectoryBytes(MakeTrajectory(10));
  ReplayTablesOptions options = Options("");
  options.default_capacity = 1000;
  options.max_total_bytes = 8 * game;
  ReplayTables tables(options);
  ASSERT_TRUE(
      tables.Insert(Insert("job-1", {10, 10, 10, 10, 10, 10, 10})).ok());
  v1::GetStatsRequest get;
  get.set_job_id("job-1");
  EXPECT_EQ(tables.GetStats(get)->trajectories(), 7);
  EXPECT_EQ(tables.GetStats(get)->max_bytes(), 8 * game);
  ASSERT_TRUE(tables.Insert(Insert("job-2", {10})).ok());
  EXPECT_EQ(tables.GetStats(get)->max_bytes(), 4 * game);
  EXPECT_EQ(tables.GetStats(get)->trajectories(), 4);
  int64_t total = 0;
  for (const JobReplayStats& job : tables.AllStats())
    total += job.stats.bytes();
  EXPECT_LE(total, options.max_total_bytes);
}

// A full disk: the checkpoint fails with an error naming its file, the
// table serves on, the last good checkpoint stays whole (a restart loads
// it), and the next checkpoint succeeds once there is space.
TEST(ReplayTablesTest, FullDiskKeepsTheLastCheckpointAndRecovers) {
  SmallDiskForTests disk(2 << 20);
  if (!disk.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  const ReplayTablesOptions options = Options(disk.path());
  ReplayTables tables(options);
  v1::InsertTrajectoriesRequest games;
  games.set_job_id("job-1");
  for (int i = 0; i < 2; ++i) *games.add_trajectories() = MakeProto(20, 4096);
  ASSERT_TRUE(tables.Insert(games).ok());
  ASSERT_TRUE(tables.CheckpointAll().ok());
  disk.Fill();
  ASSERT_TRUE(tables.Insert(games).ok());  // 4 games now
  const absl::Status full = tables.CheckpointAll();
  ASSERT_FALSE(full.ok());
  EXPECT_THAT(full.message(), HasSubstr(tables.TablePath("job-1")));
  EXPECT_THAT(full.message(), HasSubstr("No space left on device"));
  v1::GetStatsRequest get;
  get.set_job_id("job-1");
  EXPECT_EQ(tables.GetStats(get)->trajectories(), 4);  // serves on
  {
    ReplayTables restarted(options);
    ASSERT_EQ(*restarted.LoadAll(), 1);
    EXPECT_EQ(restarted.GetStats(get)->trajectories(), 2);
  }
  disk.Free();
  ASSERT_TRUE(tables.CheckpointAll().ok());
  ReplayTables recovered(options);
  ASSERT_EQ(*recovered.LoadAll(), 1);
  EXPECT_EQ(recovered.GetStats(get)->trajectories(), 4);
}

// Flips one bit in the middle of the file at `path`.
void FlipABit(const std::string& path) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  const std::streamoff middle =
      static_cast<std::streamoff>(std::filesystem::file_size(path) / 2);
  file.seekg(middle);
  char byte = 0;
  file.get(byte);
  file.seekp(middle);
  file.put(static_cast<char>(byte ^ 0x10));
}

// A damaged checkpoint (a bit flipped inside a trajectory, which the
// records alone would read without complaint, or a file cut short) is
// caught by its checksum, counted, set aside without replacing an earlier
// one, and the checkpoint before it is loaded; with both damaged the job
// has no table until it gets a new one. Other jobs load as ever.
TEST(ReplayTablesTest, DamagedCheckpointFallsBackToThePreviousOne) {
  TestDir dir;
  const std::string path = dir.path() + "/replay/job-2/table.mzr";
  auto checkpoint_twice = [&] {
    ReplayTables tables(Options(dir.path()));
    ASSERT_TRUE(tables.LoadAll().ok());
    ASSERT_TRUE(tables.Insert(Insert("job-1", {3})).ok());
    ASSERT_TRUE(tables.Insert(Insert("job-2", {3})).ok());
    ASSERT_TRUE(tables.CheckpointAll().ok());  // job-2: 1 game (the old)
    ASSERT_TRUE(tables.Insert(Insert("job-2", {4})).ok());
    ASSERT_TRUE(tables.CheckpointAll().ok());  // job-2: 2 games (the newest)
  };
  checkpoint_twice();
  ASSERT_TRUE(std::filesystem::exists(PreviousTablePath(path)));
  v1::GetStatsRequest job2;
  job2.set_job_id("job-2");

  FlipABit(path);
  const absl::StatusOr<TableSnapshot> flipped = LoadTable(path);
  EXPECT_EQ(flipped.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(flipped.status().message(), HasSubstr("checksum"));
  {
    ReplayTables restarted(Options(dir.path()));
    ASSERT_EQ(*restarted.LoadAll(), 2);
    EXPECT_EQ(restarted.damaged_checkpoints(), 0);           // none loaded yet
    EXPECT_EQ(restarted.GetStats(job2)->trajectories(), 1);  // the old one
    EXPECT_EQ(restarted.damaged_checkpoints(), 1);
    EXPECT_TRUE(std::filesystem::exists(path + ".damaged-1"));
    // What the job's status will say (JobCounters.checkpoint_fallback).
    EXPECT_THAT(restarted.CheckpointFallback("job-2"),
                AllOf(HasSubstr("damaged"), HasSubstr("checksum"),
                      HasSubstr("loaded the previous one")));
    EXPECT_EQ(restarted.CheckpointFallback("job-1"), "");
    // The old one is the newest now, and is kept as old by the next save.
    ASSERT_TRUE(restarted.Insert(Insert("job-2", {2})).ok());
    ASSERT_TRUE(restarted.CheckpointAll().ok());
    EXPECT_EQ(LoadTable(PreviousTablePath(path))->entries.size(), 1u);
  }

  // Cut short, then both damaged: both set aside, no table.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  EXPECT_THAT(LoadTable(path).status().message(), HasSubstr("end mark"));
  FlipABit(PreviousTablePath(path));
  ReplayTables restarted(Options(dir.path()));
  ASSERT_EQ(*restarted.LoadAll(), 2);
  EXPECT_EQ(restarted.GetStats(job2)->trajectories(), 0);  // starts empty
  EXPECT_EQ(restarted.damaged_checkpoints(), 2);
  EXPECT_THAT(restarted.CheckpointFallback("job-2"),
              HasSubstr("the table starts empty"));
  EXPECT_TRUE(std::filesystem::exists(path + ".damaged-1"));
  EXPECT_TRUE(std::filesystem::exists(path + ".damaged-2"));
  EXPECT_TRUE(std::filesystem::exists(PreviousTablePath(path) + ".damaged-1"));
}

// The start of a checkpoint names its job without reading the rest, and
// damage past the start is left for the load to find.
TEST(ReplayTablesTest, ReadTableStatsReadsOnlyTheStart) {
  TestDir dir;
  const std::string path = dir.path() + "/table.mzr";
  EXPECT_TRUE(absl::IsNotFound(ReadTableStats(path).status()));
  TableSnapshot snapshot;
  snapshot.stats.set_job_uid("cafe");
  snapshot.stats.set_trajectories(2);
  for (int n : {40, 50}) {
    StoredTrajectory stored;
    stored.id = static_cast<uint64_t>(n);
    stored.trajectory =
        std::make_shared<const agent::Trajectory>(MakeTrajectory(n));
    snapshot.entries.push_back(stored);
  }
  ASSERT_TRUE(SaveTable(path, "job-7", snapshot).ok());
  FlipABit(path);  // inside a trajectory
  EXPECT_EQ(LoadTable(path).status().code(), absl::StatusCode::kDataLoss);
  const absl::StatusOr<v1::ReplayStats> stats = ReadTableStats(path);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->job_id(), "job-7");
  EXPECT_EQ(stats->job_uid(), "cafe");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "MZRT\x02";
  const absl::Status cut = ReadTableStats(path).status();
  EXPECT_EQ(cut.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(cut.message(), HasSubstr(path));
}

// Checkpoints of the format before checksums still load.
TEST(ReplayTablesTest, AVersionOneCheckpointStillLoads) {
  TestDir dir;
  const std::string path = dir.path() + "/table.mzr";
  agent::SnapshotWriter out({.magic = "MZRT",
                             .version = 1,
                             .name = "replay checkpoint",
                             .kind = "replay table"});
  v1::ReplayStats stats;
  stats.set_job_id("job-1");
  stats.set_capacity(10);
  out.PutMessage(stats);
  out.Put<uint64_t>(1);
  v1::Trajectory game = MakeProto(3);
  game.set_trajectory_id(1);
  out.PutMessage(game);
  ASSERT_TRUE(out.WriteTo(path).ok());
  const absl::StatusOr<TableSnapshot> loaded = LoadTable(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->entries.size(), 1u);
  EXPECT_EQ(loaded->stats.capacity(), 10);
}

}  // namespace
}  // namespace mmapzero::replay
