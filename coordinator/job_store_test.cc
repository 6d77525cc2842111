// JobStore on a real SQLite file in a temporary folder: rows round-trip,
// survive closing and reopening, the schema enforces one learner per job,
// and a failed transaction leaves nothing behind.
#include "coordinator/job_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "common/base/small_disk_for_tests.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

JobRecord SmallJob() {
  JobRecord job;
  job.name = std::string_view("small");
  job.workload_name = std::string_view("w");
  job.num_buffers = 3;
  job.created_ms = 1000;
  job.heuristic_normalised_return = 0.25;
  job.config.set_preset("cpu");
  job.config.mutable_training()->set_batch_size(16);
  job.budget.set_wall_seconds(60);
  job.budget.set_learner_steps(100);
  return job;
}

Workload SmallWorkload() {
  Workload workload;
  workload.set_name("w");
  workload.set_memory_size(1024);
  return workload;
}

// A first best (CreateJob's); the pointer lives to the end of the call.
std::unique_ptr<BestSolution> Seed(double normalised_return) {
  auto best = std::make_unique<BestSolution>();
  BestSolution& b = *best;
  b.solution.set_workload_name("w");
  b.solution.set_normalised_return(normalised_return);
  b.solution.mutable_solver()->set_name("heuristic");
  b.found_ms = 1000;
  return best;
}

// Runs `sql` on the store file in `dir` (no store open), to leave it as a
// coordinator of an older schema version would have.
void ExecOnFile(const std::string& dir, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/coordinator.db").c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// What schema versions 11, 10, 9, 8, 7, 6 and 5 added, taken away again.
constexpr char kUndoVersion11[] =
    "ALTER TABLE job_counters DROP COLUMN best_starts; "
    "ALTER TABLE job_counters DROP COLUMN followed_moves; "
    "ALTER TABLE job_counters DROP COLUMN rejoined; "
    "ALTER TABLE job_counters DROP COLUMN unchanged; "
    "ALTER TABLE job_counters DROP COLUMN reported_best_starts; "
    "ALTER TABLE job_counters DROP COLUMN reported_followed_moves; "
    "ALTER TABLE job_counters DROP COLUMN reported_rejoined; "
    "ALTER TABLE job_counters DROP COLUMN reported_unchanged; "
    "ALTER TABLE job_counters DROP COLUMN best_start_window; ";
constexpr char kUndoVersion10[] =
    "DROP TABLE deleted_jobs; ALTER TABLE jobs DROP COLUMN "
    "checkpoint_fallback; ";
constexpr char kUndoVersion9[] = "DROP TABLE job_samples; ";
constexpr char kUndoVersion8[] =
    "ALTER TABLE jobs DROP COLUMN owner; "
    "ALTER TABLE job_counters DROP COLUMN reported_games; "
    "ALTER TABLE job_counters DROP COLUMN reported_moves; "
    "ALTER TABLE job_counters DROP COLUMN reported_simulations; "
    "ALTER TABLE job_counters DROP COLUMN reported_reanalysed; ";
constexpr char kUndoVersion7[] =
    "DROP TABLE networks; DROP TABLE job_networks; "
    "ALTER TABLE jobs DROP COLUMN initial_network; ";
constexpr char kUndoVersion6[] =
    "ALTER TABLE jobs DROP COLUMN seed_stage_normalised_return; "
    "ALTER TABLE jobs DROP COLUMN seed_stage_latency_us; "
    "ALTER TABLE jobs DROP COLUMN seed_stage_solver; ";
constexpr char kUndoVersion5[] =
    "ALTER TABLE jobs DROP COLUMN heuristic_latency_us; "
    "ALTER TABLE best_solutions DROP COLUMN simulated_latency_us; ";

// Leaves in `dir` a store with job 1 and one worker that reported
// `counters` on it, closed; returns the worker's id.
int64_t StoreWithCounters(const std::string& dir,
                          const WorkCounters& counters) {
  auto store = JobStore::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(
      (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  const int64_t worker = *(*store)->AddWorker(WorkerRecord{});
  EXPECT_TRUE((*store)->RecordCounters(1, worker, counters).ok());
  return worker;
}

TEST(JobStoreTest, CreatesDatabaseInWalMode) {
  TestDir dir;
  auto store = JobStore::Open(dir.path() + "/nested/data");
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(
      std::filesystem::exists(dir.path() + "/nested/data/coordinator.db"));

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((*store)->path().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)),
               "wal");
  sqlite3_finalize(statement);
  sqlite3_close(db);
}

TEST(JobStoreTest, JobWorkloadAndBestRoundTripAcrossReopen) {
  TestDir dir;
  int64_t id = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status();
    auto created = (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get());
    ASSERT_TRUE(created.ok()) << created.status();
    id = *created;
    EXPECT_EQ(id, 1);
  }
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  auto job = (*store)->GetJob(id);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->id, id);
  EXPECT_EQ(job->name, "small");
  EXPECT_EQ(job->state, v1::JOB_STATE_QUEUED);
  EXPECT_EQ(job->config.training().batch_size(), 16);
  EXPECT_EQ(job->budget.wall_seconds(), 60);
  EXPECT_EQ(job->budget.learner_steps(), 100);
  EXPECT_EQ(job->num_buffers, 3);
  EXPECT_EQ(job->created_ms, 1000);
  EXPECT_DOUBLE_EQ(job->heuristic_normalised_return, 0.25);

  auto workload = (*store)->GetWorkload(id);
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_EQ(workload->memory_size(), 1024);

  auto best = (*store)->GetBest(id);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->solution.solver().name(), "heuristic");
  EXPECT_DOUBLE_EQ(best->solution.normalised_return(), 0.25);
}

TEST(JobStoreTest, ASeedingJobHasNoBestUntilOneIsPut) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  JobRecord seeding = SmallJob();
  seeding.state = v1::JOB_STATE_SEEDING;
  auto id = (*store)->CreateJob(seeding, SmallWorkload(), nullptr);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ((*store)->GetJob(*id)->state, v1::JOB_STATE_SEEDING);
  EXPECT_TRUE(absl::IsNotFound((*store)->GetBest(*id).status()));
  EXPECT_TRUE(absl::IsNotFound((*store)->GetBestReturn(*id).status()));
  BestSolution seed = *Seed(0.5);
  seed.job_id = *id;
  ASSERT_TRUE((*store)->PutBest(seed).ok());
  EXPECT_DOUBLE_EQ((*store)->GetBest(*id)->solution.normalised_return(), 0.5);
  EXPECT_DOUBLE_EQ(*(*store)->GetBestReturn(*id), 0.5);
  JobRecord seeded = *(*store)->GetJob(*id);
  seeded.state = v1::JOB_STATE_QUEUED;
  seeded.heuristic_normalised_return = 0.5;
  ASSERT_TRUE((*store)->UpdateJob(seeded).ok());
  EXPECT_EQ((*store)->GetJob(*id)->state, v1::JOB_STATE_QUEUED);
  EXPECT_DOUBLE_EQ((*store)->GetJob(*id)->heuristic_normalised_return, 0.5);
}

TEST(JobStoreTest, UpdatesStateAndLearnerReport) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  auto id = (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get());
  ASSERT_TRUE(id.ok()) << id.status();
  JobRecord job = *(*store)->GetJob(*id);
  job.state = v1::JOB_STATE_RUNNING;
  job.started_ms = 2000;
  job.learner_report.set_learner_step(42);
  (*job.learner_report.mutable_losses())["value"] = 0.5;
  ASSERT_TRUE((*store)->UpdateJob(job).ok());

  auto reread = (*store)->GetJob(*id);
  ASSERT_TRUE(reread.ok()) << reread.status();
  EXPECT_EQ(reread->state, v1::JOB_STATE_RUNNING);
  EXPECT_EQ(reread->started_ms, 2000);
  EXPECT_EQ(reread->learner_report.learner_step(), 42);
  EXPECT_DOUBLE_EQ(reread->learner_report.losses().at("value"), 0.5);

  job.id = 99;
  EXPECT_TRUE(absl::IsNotFound((*store)->UpdateJob(job)));
}

TEST(JobStoreTest, UnknownJobIsNotFoundNamingTheFile) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const absl::Status status = (*store)->GetJob(7).status();
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("coordinator.db"));
}

TEST(JobStoreTest, ListsJobsNewestFirst) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  }
  auto jobs = (*store)->ListJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[0].id, 3);
  EXPECT_EQ((*jobs)[2].id, 1);
}

TEST(JobStoreTest, OneLearnerLeasePerJobButManyActors) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  WorkerRecord worker;
  worker.role = v1::WORKER_ROLE_LEARNER;
  const int64_t w1 = *(*store)->AddWorker(worker);
  const int64_t w2 = *(*store)->AddWorker(worker);

  ASSERT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_LEARNER, w1, 5000}).ok());
  // Renewing one's own lease is fine; a second holder is refused.
  EXPECT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_LEARNER, w1, 6000}).ok());
  EXPECT_FALSE((*store)->PutLease({1, v1::WORKER_ROLE_LEARNER, w2, 6000}).ok());
  EXPECT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_ACTOR, w1, 6000}).ok());
  EXPECT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_ACTOR, w2, 6000}).ok());

  auto leases = (*store)->ListLeases();
  ASSERT_TRUE(leases.ok()) << leases.status();
  ASSERT_EQ(leases->size(), 3u);
  EXPECT_EQ((*leases)[2].expiry_ms, 6000);  // learner lease, renewed
}

TEST(JobStoreTest, ARenewalKeepsWhenTheLeaseWasAcquired) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  const int64_t w = *(*store)->AddWorker(WorkerRecord{});
  ASSERT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_ACTOR, w, 5000, 1000}).ok());
  ASSERT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_ACTOR, w, 9000, 4000}).ok());
  auto leases = (*store)->ListLeases();
  ASSERT_TRUE(leases.ok()) << leases.status();
  ASSERT_EQ(leases->size(), 1u);
  EXPECT_EQ((*leases)[0].expiry_ms, 9000);
  EXPECT_EQ((*leases)[0].acquired_ms, 1000);
}

TEST(JobStoreTest, LiveCapacitySumsTheRecentWorkersOfOneRole) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const auto add = [&](v1::WorkerRole role, int32_t capacity, int64_t seen) {
    WorkerRecord worker;
    worker.role = role;
    worker.capacity = capacity;
    worker.registered_ms = seen;
    worker.last_heartbeat_ms = seen;
    return *(*store)->AddWorker(worker);
  };
  EXPECT_EQ(*(*store)->LiveCapacity(v1::WORKER_ROLE_ACTOR, 0), 0);
  add(v1::WORKER_ROLE_ACTOR, 2, 1000);
  const int64_t quiet = add(v1::WORKER_ROLE_ACTOR, 1, 500);  // silent since
  add(v1::WORKER_ROLE_LEARNER, 4, 1000);
  EXPECT_EQ(*(*store)->LiveCapacity(v1::WORKER_ROLE_ACTOR, 800), 2);
  EXPECT_EQ(*(*store)->LiveCapacity(v1::WORKER_ROLE_ACTOR, 0), 3);
  ASSERT_TRUE((*store)->TouchWorker(quiet, 900).ok());
  EXPECT_EQ(*(*store)->LiveCapacity(v1::WORKER_ROLE_ACTOR, 800), 3);
  EXPECT_EQ(*(*store)->LiveCapacity(v1::WORKER_ROLE_LEARNER, 800), 4);
}

TEST(JobStoreTest, DeletesOnlyExpiredLeases) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  const int64_t w = *(*store)->AddWorker(WorkerRecord{});
  ASSERT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_LEARNER, w, 5000}).ok());
  ASSERT_TRUE((*store)->PutLease({1, v1::WORKER_ROLE_ACTOR, w, 7000}).ok());

  auto expired = (*store)->DeleteExpiredLeases(5000);
  ASSERT_TRUE(expired.ok()) << expired.status();
  ASSERT_EQ(expired->size(), 1u);
  EXPECT_EQ((*expired)[0].role, v1::WORKER_ROLE_LEARNER);
  EXPECT_EQ((*store)->ListLeases()->size(), 1u);
}

TEST(JobStoreTest, FailedTransactionLeavesNothing) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const absl::Status status = (*store)->InTransaction([&]() -> absl::Status {
    EXPECT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
    return absl::InternalError("give up");
  });
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE((*store)->ListJobs()->empty());
}

TEST(JobStoreTest, SumsCountersOverWorkers) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  const int64_t w1 = *(*store)->AddWorker(WorkerRecord{});
  const int64_t w2 = *(*store)->AddWorker(WorkerRecord{});
  ASSERT_TRUE((*store)->RecordCounters(1, w1, {5, 50, 500, 0}).ok());
  ASSERT_TRUE((*store)->RecordCounters(1, w1, {6, 60, 600, 0}).ok());  // later
  ASSERT_TRUE((*store)->RecordCounters(1, w2, {1, 10, 100, 2}).ok());
  auto sum = (*store)->SumCounters(1);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->games, 7);
  EXPECT_EQ(sum->moves, 70);
  EXPECT_EQ(sum->simulations, 700);
  EXPECT_EQ(sum->reanalysed, 2);
}

// Best-start counts add up over workers like games; the window is each
// worker's latest report, and the job's the largest of those.
TEST(JobStoreTest, SumsBestStartCountsAndKeepsTheWidestWindow) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  const int64_t w1 = *(*store)->AddWorker(WorkerRecord{});
  const int64_t w2 = *(*store)->AddWorker(WorkerRecord{});
  const auto counters = [](int64_t starts, int64_t followed, int64_t rejoined,
                           int64_t unchanged, int64_t window) {
    return WorkCounters{.games = starts + 1,
                        .best_starts = starts,
                        .followed_moves = followed,
                        .rejoined = rejoined,
                        .unchanged = unchanged,
                        .best_start_window = window};
  };
  ASSERT_TRUE((*store)->RecordCounters(1, w1, counters(10, 400, 6, 2, 32)).ok());
  // Later, after a new best: the window is back at 4.
  ASSERT_TRUE((*store)->RecordCounters(1, w1, counters(12, 500, 7, 3, 4)).ok());
  ASSERT_TRUE((*store)->RecordCounters(1, w2, counters(5, 90, 1, 1, 8)).ok());
  auto sum = (*store)->SumCounters(1);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->games, 13 + 6);
  EXPECT_EQ(sum->best_starts, 17);
  EXPECT_EQ(sum->followed_moves, 590);
  EXPECT_EQ(sum->rejoined, 8);
  EXPECT_EQ(sum->unchanged, 4);
  EXPECT_EQ(sum->best_start_window, 8);
  // A worker that counts again from 0 adds its new counts.
  ASSERT_TRUE((*store)->RecordCounters(1, w2, counters(2, 10, 1, 0, 4)).ok());
  EXPECT_EQ((*store)->SumCounters(1)->best_starts, 19);
  EXPECT_EQ((*store)->SumCounters(1)->best_start_window, 4);
  // A job nobody reported on: all 0.
  ASSERT_TRUE((*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  EXPECT_EQ((*store)->SumCounters(2)->best_start_window, 0);
}

// Version 11 adds the best-start counters; a version-10 file keeps its
// workers' counts, its rows start the new ones at 0, and the next report
// adds only what grew.
TEST(JobStoreTest, UpgradesAVersionTenFileKeepingItsCounters) {
  TestDir dir;
  const int64_t worker = StoreWithCounters(dir.path(), {40, 400, 4000, 0});
  ExecOnFile(dir.path(), absl::StrCat(kUndoVersion11,
                                      "UPDATE schema_version SET version = 10"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->SumCounters(1)->games, 40);
  EXPECT_EQ((*store)->SumCounters(1)->best_starts, 0);
  ASSERT_TRUE((*store)
                  ->RecordCounters(1, worker,
                                   WorkCounters{.games = 45,
                                                .moves = 450,
                                                .simulations = 4500,
                                                .best_starts = 30,
                                                .best_start_window = 16})
                  .ok());
  const absl::StatusOr<WorkCounters> sum = (*store)->SumCounters(1);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->games, 45);
  EXPECT_EQ(sum->best_starts, 30);
  EXPECT_EQ(sum->best_start_window, 16);
}

// A worker that takes a job again counts from 0: its smaller report adds
// to the totals, which never go down, also across reopening.
TEST(JobStoreTest, CountersNeverGoDownWhenAWorkerCountsAgain) {
  TestDir dir;
  const int64_t worker = StoreWithCounters(dir.path(), {2090, 20, 200, 4});
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->RecordCounters(1, worker, {300, 3, 30, 1}).ok());
  EXPECT_EQ((*store)->SumCounters(1)->games, 2390);
  ASSERT_TRUE((*store)->RecordCounters(1, worker, {1336, 13, 130, 1}).ok());
  const absl::StatusOr<WorkCounters> sum = (*store)->SumCounters(1);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->games, 2090 + 1336);
  EXPECT_EQ(sum->moves, 20 + 13);
  EXPECT_EQ(sum->simulations, 200 + 130);
  EXPECT_EQ(sum->reanalysed, 4 + 1);
}

// Version 8 keeps each job's owner and each worker's last report beside
// its totals; a version-7 file's jobs belong to an admin (owner "") and its
// rows take their totals as that report, so the next report adds only what
// it grew.
// Version 9 adds the dashboard's history; a version 8 file keeps its jobs
// and starts with none.
TEST(JobStoreTest, UpgradesAVersionNineFileThatHasDeletedNoJob) {
  TestDir dir;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(
        (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
  }
  ExecOnFile(dir.path(), absl::StrCat(kUndoVersion11, kUndoVersion10,
                                      "UPDATE schema_version SET version = 9"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const JobRecord job = *(*store)->GetJob(1);
  v1::StoredJob stored;
  stored.set_job_id("job-000001");
  stored.set_job_uid(job.uid);
  EXPECT_TRUE((*store)->DeletedAmong({stored})->empty());
  ASSERT_TRUE((*store)->DeleteJob(1, /*now_ms=*/5).ok());
  EXPECT_EQ((*store)->DeletedAmong({stored})->size(), 1u);
}

// A deleted job is named back by its id and uid only: not a job that still
// exists, not the same id with another uid (another database's job), not
// a malformed id.
TEST(JobStoreTest, DeletedAmongNamesOnlyJobsDeletedHere) {
  TestDir dir;
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  for (const std::string uid : {"0123abcd", "4567ef01"}) {
    JobRecord job = SmallJob();
    job.uid = uid;
    ASSERT_TRUE((*store)->CreateJob(job, SmallWorkload(), Seed(0).get()).ok());
  }
  auto stored = [&](const std::string& id, const std::string& uid) {
    v1::StoredJob job;
    job.set_job_id(id);
    job.set_job_uid(uid);
    return job;
  };
  const std::string uid1 = (*store)->GetJob(1)->uid;
  const std::string uid2 = (*store)->GetJob(2)->uid;
  ASSERT_FALSE(uid1.empty());
  ASSERT_TRUE((*store)->DeleteJob(1, /*now_ms=*/5).ok());
  auto deleted = (*store)->DeletedAmong(
      {stored("job-000001", uid1), stored("job-000001", uid2),
       stored("job-000002", uid2), stored("../x", ""),
       stored("job-000003", "")});
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  ASSERT_EQ(deleted->size(), 1u);
  EXPECT_EQ((*deleted)[0].job_id(), "job-000001");
  EXPECT_EQ((*deleted)[0].job_uid(), uid1);
  // One query answers for every job asked about: a match after a miss
  // and a miss after a match both come out right.
  ASSERT_TRUE((*store)->DeleteJob(2, /*now_ms=*/6).ok());
  deleted = (*store)->DeletedAmong({stored("job-000001", uid2),
                                    stored("job-000002", uid2),
                                    stored("job-000002", uid1)});
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  ASSERT_EQ(deleted->size(), 1u);
  EXPECT_EQ((*deleted)[0].job_id(), "job-000002");
}

TEST(JobStoreTest, UpgradesAVersionEightFileWithAnEmptyHistory) {
  TestDir dir;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(
        (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0).get()).ok());
    ASSERT_TRUE((*store)->AddJobSample(1, {.unix_ms = 5, .games = 7}).ok());
  }
  ExecOnFile(dir.path(), absl::StrCat(kUndoVersion11, kUndoVersion10, kUndoVersion9,
                                      "UPDATE schema_version SET version = 8"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->GetJob(1).ok());
  EXPECT_TRUE((*store)->ListJobSamples()->empty());
  ASSERT_TRUE((*store)->AddJobSample(1, {.unix_ms = 6, .games = 8}).ok());
  const auto samples = (*store)->ListJobSamples();
  ASSERT_EQ(samples->at(1).size(), 1u);
  EXPECT_EQ(samples->at(1)[0].games, 8);
}

TEST(JobStoreTest, UpgradesAVersionSevenFileKeepingItsCounters) {
  TestDir dir;
  int64_t worker = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status();
    JobRecord job = SmallJob();
    job.owner = "CN=alice,OU=client";
    ASSERT_TRUE((*store)->CreateJob(job, SmallWorkload(), Seed(0).get()).ok());
    EXPECT_EQ((*store)->GetJob(1)->owner, "CN=alice,OU=client");
    worker = *(*store)->AddWorker(WorkerRecord{});
    ASSERT_TRUE((*store)->RecordCounters(1, worker, {40, 400, 4000, 4}).ok());
  }
  ExecOnFile(dir.path(),
             absl::StrCat(kUndoVersion11, kUndoVersion10, kUndoVersion9, kUndoVersion8,
                          "UPDATE schema_version SET version = 7"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetJob(1)->owner, "");
  EXPECT_EQ((*store)->SumCounters(1)->games, 40);
  ASSERT_TRUE((*store)->RecordCounters(1, worker, {45, 450, 4500, 5}).ok());
  EXPECT_EQ((*store)->SumCounters(1)->games, 45);
  EXPECT_EQ((*store)->SumCounters(1)->reanalysed, 5);
}

// Version 5 keeps simulated latencies: the heuristic seed's with the job,
// the best's beside its solution; a version-4 file gains both columns,
// its rows at 0 (not simulated) and its bests intact.
TEST(JobStoreTest, KeepsLatenciesAndUpgradesAVersionFourFile) {
  TestDir dir;
  int64_t id = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    JobRecord job = SmallJob();
    job.heuristic_latency_us = 812.5;
    std::unique_ptr<BestSolution> best = Seed(0.5);
    best->solution.set_simulated_latency_us(640.25);
    auto created = (*store)->CreateJob(job, SmallWorkload(), best.get());
    ASSERT_TRUE(created.ok()) << created.status();
    id = *created;
    EXPECT_EQ((*store)->GetJob(id)->heuristic_latency_us, 812.5);
    EXPECT_EQ((*store)->GetBest(id)->solution.simulated_latency_us(), 640.25);
    job = *(*store)->GetJob(id);
    job.heuristic_latency_us = 800;
    ASSERT_TRUE((*store)->UpdateJob(job).ok());
    EXPECT_EQ((*store)->GetJob(id)->heuristic_latency_us, 800);
  }
  ExecOnFile(dir.path(),
             absl::StrCat(kUndoVersion11, kUndoVersion10, kUndoVersion9, kUndoVersion8,
                          kUndoVersion7, kUndoVersion6, kUndoVersion5,
                          "UPDATE schema_version SET version = 4"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetJob(id)->heuristic_latency_us, 0);
  const auto best = (*store)->GetBest(id);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->solution.normalised_return(), 0.5);
  // The solution itself kept its figure.
  EXPECT_EQ(best->solution.simulated_latency_us(), 640.25);
}

// Version 6 keeps a submitted start's figures (a seed stage's best) with
// the job, also after a better best replaced it; a version-5 file gains
// the columns, its jobs at 0 and "" (no seed stage) and otherwise intact.
TEST(JobStoreTest, KeepsTheSeedStageAndUpgradesAVersionFiveFile) {
  TestDir dir;
  int64_t id = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    JobRecord job = SmallJob();
    job.seed_stage_normalised_return = 0.625;
    job.seed_stage_latency_us = 700.5;
    job.seed_stage_solver = "brkga";
    auto created = (*store)->CreateJob(job, SmallWorkload(), Seed(0.625).get());
    ASSERT_TRUE(created.ok()) << created.status();
    id = *created;
  }
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    const absl::StatusOr<JobRecord> job = (*store)->GetJob(id);
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->seed_stage_normalised_return, 0.625);
    EXPECT_EQ(job->seed_stage_latency_us, 700.5);
    EXPECT_EQ(job->seed_stage_solver, "brkga");
  }
  ExecOnFile(
      dir.path(),
      absl::StrCat(kUndoVersion11, kUndoVersion10, kUndoVersion9, kUndoVersion8, kUndoVersion7,
                   kUndoVersion6, "UPDATE schema_version SET version = 5"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const absl::StatusOr<JobRecord> job = (*store)->GetJob(id);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->seed_stage_normalised_return, 0);
  EXPECT_EQ(job->seed_stage_latency_us, 0);
  EXPECT_EQ(job->seed_stage_solver, "");
  EXPECT_EQ(job->name, SmallJob().name);
  EXPECT_EQ(*(*store)->GetBestReturn(id), 0.625);
}

// Version 7 keeps the network registry, jobs' networks and what each job
// was asked to start from; a version-6 file gains them, empty.
TEST(JobStoreTest, KeepsNetworksAndUpgradesAVersionSixFile) {
  TestDir dir;
  int64_t id = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    JobRecord job = SmallJob();
    job.initial_network = "family-net";
    auto created = (*store)->CreateJob(job, SmallWorkload(), Seed(0.5).get());
    ASSERT_TRUE(created.ok()) << created.status();
    id = *created;
    v1::NetworkInfo info;
    info.set_name("family-net");
    info.set_learner_steps(1200);
    ASSERT_TRUE((*store)->PutNetwork(info, "network bytes").ok());
    EXPECT_EQ((*store)->PutNetwork(info, "other").code(),
              absl::StatusCode::kAlreadyExists);
    JobNetwork latest;
    latest.job_id = id;
    latest.sha256 = "abc";
    latest.learner_step = 40;
    latest.bytes = "job network";
    ASSERT_TRUE((*store)->PutJobNetwork(latest).ok());
    latest.learner_step = 80;  // replaces the one before
    ASSERT_TRUE((*store)->PutJobNetwork(latest).ok());
  }
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->GetJob(id)->initial_network, "family-net");
    EXPECT_EQ((*store)->GetNetworkInfo("family-net")->learner_steps(), 1200);
    EXPECT_EQ(*(*store)->GetNetworkBytes("family-net"), "network bytes");
    EXPECT_EQ((*store)->ListNetworks()->size(), 1u);
    const absl::StatusOr<JobNetwork> kept =
        (*store)->GetJobNetwork(id, JobNetworkKind::kLatest, true);
    ASSERT_TRUE(kept.ok()) << kept.status();
    EXPECT_EQ(kept->learner_step, 80);
    EXPECT_EQ(kept->bytes, "job network");
    EXPECT_EQ((*store)
                  ->GetJobNetwork(id, JobNetworkKind::kStart, false)
                  .status()
                  .code(),
              absl::StatusCode::kNotFound);
    EXPECT_TRUE(*(*store)->DeleteNetwork("family-net"));
    EXPECT_FALSE(*(*store)->DeleteNetwork("family-net"));
  }
  ExecOnFile(dir.path(), absl::StrCat(kUndoVersion11, kUndoVersion10, kUndoVersion9,
                                      kUndoVersion8, kUndoVersion7,
                                      "UPDATE schema_version SET version = 6"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetJob(id)->initial_network, "");
  EXPECT_TRUE((*store)->ListNetworks()->empty());
  EXPECT_EQ(*(*store)->GetBestReturn(id), 0.5);
}

TEST(JobStoreTest, UpgradesAVersionOneFileKeepingItsJobs) {
  TestDir dir;
  int64_t id = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    auto created = (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get());
    ASSERT_TRUE(created.ok());
    id = *created;
    const int64_t worker = *(*store)->AddWorker(WorkerRecord{});
    ASSERT_TRUE(
        (*store)->PutLease({id, v1::WORKER_ROLE_ACTOR, worker, 5000, 1000}).ok());
  }
  ExecOnFile(dir.path(),
             absl::StrCat(kUndoVersion11, kUndoVersion10, kUndoVersion9, kUndoVersion8,
                          kUndoVersion7, kUndoVersion6, kUndoVersion5,
                          "DROP TABLE submit_keys; "
                          "ALTER TABLE jobs DROP COLUMN uid; "
                          "ALTER TABLE jobs DROP COLUMN learner_epoch; "
                          "ALTER TABLE leases DROP COLUMN acquired_ms; "
                          "UPDATE schema_version SET version = 1"));
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetJob(id)->uid, "");  // a job from before uids
  EXPECT_EQ((*store)->GetJob(id)->learner_epoch, 0);
  EXPECT_EQ((*store)->GetJob(id)->heuristic_latency_us, 0);  // unknown
  EXPECT_EQ(*(*store)->GetBestReturn(id), 0.25);
  EXPECT_EQ(*(*store)->NextLearnerEpoch(id), 1);
  const auto leases = (*store)->ListLeases();  // kept, acquired "at 0"
  ASSERT_TRUE(leases.ok()) << leases.status();
  ASSERT_EQ(leases->size(), 1u);
  EXPECT_EQ((*leases)[0].expiry_ms, 5000);
  EXPECT_EQ((*leases)[0].acquired_ms, 0);
  SubmitKey key;
  key.key = "k";
  key.fingerprint = 0xdeadbeef;
  auto keyed =
      (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get(), &key);
  ASSERT_TRUE(keyed.ok()) << keyed.status();
  auto found = (*store)->FindSubmitKey("k");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->job_id, *keyed);
  EXPECT_EQ((*found)->fingerprint, 0xdeadbeefu);
  // A key is stored once: a second job under it fails as a whole.
  EXPECT_FALSE(
      (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get(), &key).ok());
  auto jobs = (*store)->ListJobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 2u);
  EXPECT_FALSE((*(*store)->FindSubmitKey("other")).has_value());
}

TEST(JobStoreTest, LearnerEpochRisesAndSurvivesReopening) {
  TestDir dir;
  int64_t id = 0;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    id = *(*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get());
    EXPECT_EQ((*store)->GetJob(id)->learner_epoch, 0);
    EXPECT_EQ(*(*store)->NextLearnerEpoch(id), 1);
    EXPECT_EQ(*(*store)->NextLearnerEpoch(id), 2);
    // UpdateJob writes what changes after creation, never the epoch back.
    JobRecord job = *(*store)->GetJob(id);
    job.learner_epoch = 0;
    job.state = v1::JOB_STATE_RUNNING;
    ASSERT_TRUE((*store)->UpdateJob(job).ok());
  }
  auto store = JobStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->GetJob(id)->learner_epoch, 2);
  EXPECT_EQ(*(*store)->NextLearnerEpoch(id), 3);
}

// A full disk: a write fails with an error naming the database and rolls
// back whole; what was committed stays readable; writes succeed again once
// there is space, and the file opens as before.
TEST(JobStoreTest, FullDiskFailsWritesCleanlyAndRecovers) {
  SmallDiskForTests disk(4 << 20);
  if (!disk.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  auto store = JobStore::Open(disk.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const int64_t first =
      *(*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get());
  disk.Fill();
  absl::Status failed;
  for (int i = 0; i < 50 && failed.ok(); ++i) {  // until the WAL cannot grow
    failed = (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get())
                 .status();
  }
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.message()), HasSubstr("coordinator.db"));
  EXPECT_THAT(std::string(failed.message()), HasSubstr("full"));
  const auto jobs_when_full = (*store)->ListJobs();
  ASSERT_TRUE(jobs_when_full.ok()) << jobs_when_full.status();
  EXPECT_EQ((*store)->GetJob(first)->id, first);
  disk.Free();
  const auto again =
      (*store)->CreateJob(SmallJob(), SmallWorkload(), Seed(0.25).get());
  ASSERT_TRUE(again.ok()) << again.status();
  const size_t count = jobs_when_full->size() + 1;
  store->reset();
  auto reopened = JobStore::Open(disk.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->ListJobs()->size(), count);
  EXPECT_TRUE((*reopened)->GetBest(*again).ok());
}

TEST(JobStoreTest, RefusesAnotherSchemaVersion) {
  TestDir dir;
  { ASSERT_TRUE(JobStore::Open(dir.path()).ok()); }
  ExecOnFile(dir.path(), "UPDATE schema_version SET version = 99");
  const absl::Status status = JobStore::Open(dir.path()).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("schema version 99"));
}

}  // namespace
}  // namespace mmapzero::coordinator
