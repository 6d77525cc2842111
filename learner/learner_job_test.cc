// One job's training loop on an in-process fake BatchSource: it trains to
// the budget, publishes and checkpoints on schedule, resumes from its
// checkpoint at the same step (as when the lease passes to a new learner),
// checkpoints on Stop, refuses configs and checkpoints that do not fit,
// stops without saving once a newer lease epoch holds its checkpoints,
// trains from a PrefetchQueue with the metrics filled in, mixes the
// offered best solutions into its batches as demonstrations, and starts
// from a given network or, for the cpu preset, the shipped one.
#include "learner/learner_job.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/base/guarded.h"
#include "common/base/small_disk_for_tests.h"
#include "common/features/config_presets.h"
#include "common/game/mmap_game.h"
#include "common/metrics/health_checks.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/parameter_client.h"
#include "common/training/default_network.h"
#include "common/training/self_play.h"
#include "common/training/training_test_support.h"
#include "common/workload/example_program_for_tests.h"
#include "gmock/gmock.h"
#include "learner/parameter_service.h"
#include "worker/prefetch_queue.h"

namespace mmapzero::learner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

MuZeroConfig SmallConfig() {
  MuZeroConfig config = features::CpuPreset();
  NetworkConfig* n = config.mutable_network();
  n->set_hidden_size(32);
  n->set_resnet_channels(8);
  n->set_mlp_hidden(32);
  n->set_value_support_size(10);
  n->set_reward_support_size(10);
  config.mutable_training()->set_batch_size(8);
  config.mutable_training()->set_seed(3);
  return config;
}

// `size` windows of K + n + 1 steps like the replay sends (observation on
// the first step only), varied by `seed`.
agent::Batch SyntheticBatch(const MuZeroConfig& config, int size,
                            uint64_t seed) {
  const model::ObservationShape shape = model::ShapeOf(config.features());
  const int steps =
      config.training().unroll_steps() + config.training().td_steps() + 1;
  agent::Batch batch;
  for (int b = 0; b < size; ++b) {
    auto t = std::make_shared<agent::Trajectory>();
    for (int s = 0; s < steps; ++s) {
      agent::TrajectoryStep step;
      const int preferred = static_cast<int>((seed + b + s) % 3);
      if (s == 0) {
        step.observation.occupancy.assign(shape.time_bins * shape.byte_bins,
                                          static_cast<uint8_t>(b * 9));
        step.observation.vector.assign(shape.vector_size, 0);
        step.observation.vector[0] = static_cast<float>(preferred);
      }
      step.action = static_cast<uint8_t>(preferred);
      step.legal_mask = 7;
      step.policy[preferred] = 1;
      step.reward = preferred == 0 ? 1.0f : 0.0f;
      step.root_value = 2;
      t->steps.push_back(step);
    }
    batch.push_back({static_cast<int64_t>(seed * 100 + b), 0, t});
  }
  return batch;
}

// Synthetic batches on demand; while closed, none (as a replay that is
// not ready).
class FakeSource final : public agent::BatchSource {
 public:
  explicit FakeSource(MuZeroConfig config, bool open = true)
      : config_(std::move(config)), gate_(Gate{open, 0}) {}
  absl::StatusOr<agent::Batch> Next(absl::Duration timeout) override {
    if (!gate_.AwaitWithTimeout([](const Gate& gate) { return gate.open; },
                                timeout)) {
      return absl::DeadlineExceededError("closed");
    }
    const uint64_t seed =
        gate_.Update([](Gate& gate) { return gate.served++; });
    return SyntheticBatch(config_, config_.training().batch_size(), seed);
  }
  void Open() {
    gate_.Update([](Gate& gate) { gate.open = true; });
  }
  void Close() {
    gate_.Update([](Gate& gate) { gate.open = false; });
  }

 private:
  struct Gate {
    bool open = true;
    uint64_t served = 0;
  };
  const MuZeroConfig config_;
  Guarded<Gate> gate_;
};

LearnerJobOptions Options(const std::string& dir, int64_t budget) {
  return {.job_id = "job-000001",
          .config = SmallConfig(),
          .steps_budget = budget,
          .checkpoint_dir = dir,
          .publish_interval = 2,
          .checkpoint_interval = 5,
          .batch_poll = absl::Milliseconds(20)};
}

std::string FreshDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(dir + ".old");
  std::filesystem::remove_all(dir + ".fence");
  return dir;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The first line of a checkpoint's learner.txt ("step N"; file checksums
// follow it).
std::string StepLine(const std::string& dir) {
  const std::string text = ReadFile(dir + "/learner.txt");
  return text.substr(0, text.find('\n') + 1);
}

// Batches the learner refuses (empty), always.
class RefusedSource final : public agent::BatchSource {
 public:
  absl::StatusOr<agent::Batch> Next(absl::Duration timeout) override {
    absl::SleepFor(std::min(timeout, absl::Milliseconds(5)));
    return agent::Batch();
  }
};

// /healthz (common/metrics/health_checks.h): a job whose steps refuse their
// batches fails the process's health, naming the job and why; a job that
// waits for data does not; a stopped job's check goes away.
TEST(LearnerJobTest, RefusedBatchesFailTheHealthCheckUntilTheJobStops) {
  model::SetComputeThreads(1);
  const std::string check = "learner_job_job-000001";
  worker::ParameterStore service;
  {
    auto waiting = LearnerJob::Start(
        Options(FreshDir("learner_job_waiting"), 0),
        std::make_unique<FakeSource>(SmallConfig(), /*open=*/false), &service,
        nullptr);
    ASSERT_TRUE(waiting.ok()) << waiting.status();
    absl::SleepFor(absl::Milliseconds(200));
    const metrics::HealthChecks::Report report =
        metrics::ProcessHealth().Evaluate();
    EXPECT_TRUE(report.healthy) << report.text;
    EXPECT_THAT(report.text, HasSubstr(check + " ok"));
  }
  EXPECT_THAT(metrics::ProcessHealth().Evaluate().text, Not(HasSubstr(check)));

  auto job =
      LearnerJob::Start(Options(FreshDir("learner_job_refused"), 0),
                        std::make_unique<RefusedSource>(), &service, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  metrics::HealthChecks::Report report;
  for (int i = 0; i < 200 && report.healthy; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
    report = metrics::ProcessHealth().Evaluate();
  }
  EXPECT_FALSE(report.healthy);
  EXPECT_THAT(report.text,
              HasSubstr(check + " FAILING: step refused its batch: learner: "
                                "empty batch"));
  (*job)->Stop();
  EXPECT_TRUE(metrics::ProcessHealth().Evaluate().healthy);
}

// training.training_steps ends a job without a step budget, and a budget
// that ends first wins.
TEST(LearnerJobTest, HonoursTheConfigsTrainingSteps) {
  model::SetComputeThreads(1);
  for (const auto& [budget, steps, want] :
       {std::tuple<int64_t, int64_t, int64_t>{0, 3, 3}, {2, 3, 2}}) {
    LearnerJobOptions options = Options("", budget);
    options.config.mutable_training()->set_training_steps(steps);
    auto job = LearnerJob::Start(
        options, std::make_unique<FakeSource>(SmallConfig()), nullptr, nullptr);
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
    EXPECT_EQ((*job)->progress().step, want) << budget << " " << steps;
    EXPECT_TRUE((*job)->progress().finished);
  }
}

// training.no_learning (solve --set learn=0 on the cluster): the starting
// network is published as version 0 and no step is taken, batches or not,
// until the job is stopped.
TEST(LearnerJobTest, WithoutLearningPublishesTheStartAndTakesNoStep) {
  model::SetComputeThreads(1);
  worker::ParameterStore store;
  LearnerJobOptions options = Options(FreshDir("learner_job_no_learning"), 0);
  options.config.mutable_training()->set_no_learning(true);
  auto job = LearnerJob::Start(
      options, std::make_unique<FakeSource>(SmallConfig()), &store, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::SleepFor(absl::Milliseconds(500));  // dozens of steps otherwise
  EXPECT_EQ((*job)->progress().step, 0);
  EXPECT_FALSE((*job)->progress().stopped);
  absl::StatusOr<int64_t> version = store.LatestVersion("job-000001");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 0);
  (*job)->Stop();
  EXPECT_TRUE((*job)->progress().stopped);
  EXPECT_EQ((*job)->progress().step, 0);
}

// training.initial_network (solve --set network=FILE): a warm start. The
// job publishes that network as version 0, so its actors play with it from
// their first game; a network of other sizes is refused naming the field.
TEST(LearnerJobTest, StartsFromTheInitialNetwork) {
  model::SetComputeThreads(1);
  torch::manual_seed(9);
  model::MuZeroNetwork trained = *model::CreateNetwork(
      SmallConfig().network(), model::ShapeOf(SmallConfig().features()),
      torch::kCPU);
  const std::string path = ::testing::TempDir() + "/initial_network.pt";
  ASSERT_TRUE(model::SaveCheckpoint(trained, path).ok());

  worker::ParameterStore store;
  LearnerJobOptions options = Options(FreshDir("learner_job_initial"), 0);
  options.config.mutable_training()->set_initial_network(path);
  options.config.mutable_training()->set_no_learning(true);  // keep v0
  auto job = LearnerJob::Start(
      options, std::make_unique<FakeSource>(SmallConfig()), &store, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<worker::ParameterSnapshot> published =
      store.Find("job-000001", 0);
  ASSERT_TRUE(published.ok()) << published.status();
  model::MuZeroNetwork fetched = *model::CreateNetwork(
      SmallConfig().network(), model::ShapeOf(SmallConfig().features()),
      torch::kCPU);
  ASSERT_TRUE(model::LoadNetworkParameters(*published->bytes, fetched).ok());
  const auto a = fetched->parameters();
  const auto b = trained->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
  (*job)->Stop();

  MuZeroConfig wider = SmallConfig();
  wider.mutable_network()->set_mlp_hidden(64);
  options.config = wider;
  options.config.mutable_training()->set_initial_network(path);
  options.checkpoint_dir = FreshDir("learner_job_initial_wider");
  auto refused = LearnerJob::Start(
      options, std::make_unique<FakeSource>(wider), &store, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("training.initial_network"));
  EXPECT_THAT(refused.status().message(), HasSubstr("mlp_hidden"));
}

// A job of the cpu preset with no initial_network starts from the network
// mmapzero ships, and publishes it as version 0.
TEST(LearnerJobTest, ACpuPresetJobStartsFromTheShippedNetwork) {
  model::SetComputeThreads(1);
  MuZeroConfig cpu = features::CpuPreset();
  cpu.mutable_training()->set_batch_size(8);
  cpu.mutable_training()->set_no_learning(true);  // keep v0
  worker::ParameterStore store;
  LearnerJobOptions options = Options(FreshDir("learner_job_default"), 0);
  options.config = cpu;
  auto job = LearnerJob::Start(options, std::make_unique<FakeSource>(cpu),
                               &store, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<worker::ParameterSnapshot> published =
      store.Find("job-000001", 0);
  ASSERT_TRUE(published.ok()) << published.status();
  const auto fresh = [&cpu] {
    return *model::CreateNetwork(cpu.network(), model::ShapeOf(cpu.features()),
                                 torch::kCPU);
  };
  model::MuZeroNetwork fetched = fresh();
  ASSERT_TRUE(model::LoadNetworkParameters(*published->bytes, fetched).ok());
  model::MuZeroNetwork shipped = fresh();
  ASSERT_TRUE(
      model::LoadNetworkParameters(training::DefaultNetworkBytes(), shipped)
          .ok());
  const auto a = fetched->parameters();
  const auto b = shipped->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
  (*job)->Stop();
}

TEST(LearnerJobTest, TrainsToTheBudgetAndResumesAtTheSameStep) {
  model::SetComputeThreads(1);
  const std::string dir = FreshDir("learner_job_resume");
  worker::ParameterStore service;
  {
    auto job = LearnerJob::Start(Options(dir, 7),
                                 std::make_unique<FakeSource>(SmallConfig()),
                                 &service, nullptr);
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
    const LearnerProgress progress = (*job)->progress();
    EXPECT_EQ(progress.step, 7);
    EXPECT_EQ(progress.resumed_step, 0);
    EXPECT_TRUE(progress.finished);
    EXPECT_EQ(progress.checkpoints, 2);  // at 5 and at the end (7)
    EXPECT_EQ(progress.parameter_version, 7);
    EXPECT_GT(progress.losses.at("total"), 0);
    EXPECT_EQ(*service.LatestVersion("job-000001"), 7);
  }
  EXPECT_EQ(StepLine(dir), "step 7\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/replay.bin"));

  // A new learner (the lease passed): same step, same parameters, then on
  // to the larger budget.
  worker::ParameterStore other;
  auto source = std::make_unique<FakeSource>(SmallConfig(), /*open=*/false);
  FakeSource* gate = source.get();
  auto resumed =
      LearnerJob::Start(Options(dir, 12), std::move(source), &other, nullptr);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ((*resumed)->progress().step, 7);
  EXPECT_EQ((*resumed)->progress().resumed_step, 7);
  EXPECT_EQ(*other.LatestVersion("job-000001"), 7);
  model::MuZeroNetwork saved =
      *model::LoadNetworkFromCheckpoint(dir + "/network.pt", torch::kCPU);
  EXPECT_EQ((*resumed)->progress().parameter_version, 7);
  gate->Open();
  ASSERT_TRUE((*resumed)->AwaitStopped(absl::Seconds(60)));
  EXPECT_EQ((*resumed)->progress().step, 12);
  EXPECT_TRUE((*resumed)->progress().finished);
  EXPECT_EQ(StepLine(dir), "step 12\n");
  // The snapshot at 12 is the checkpoint's network.
  model::MuZeroNetwork final_network =
      *model::LoadNetworkFromCheckpoint(dir + "/network.pt", torch::kCPU);
  EXPECT_FALSE(
      torch::equal(final_network->parameters()[0], saved->parameters()[0]));
}

// A newest checkpoint damaged: the job resumes from the previous one and
// says so; both damaged: both are set aside (not deleted) and it starts
// afresh instead of failing for good. Either way the progress carries the
// fallback, which the job's status shows.
TEST(LearnerJobTest, DamagedCheckpointsFallBackOrStartAfresh) {
  model::SetComputeThreads(1);
  const std::string dir = FreshDir("learner_job_damaged");
  std::filesystem::remove_all(dir + ".damaged-1");
  std::filesystem::remove_all(dir + ".damaged-2");
  std::filesystem::remove_all(dir + ".old.damaged-1");
  worker::ParameterStore service;
  absl::StatusOr<std::unique_ptr<LearnerMetrics>> metrics =
      LearnerMetrics::Start("");
  ASSERT_TRUE(metrics.ok());
  auto train = [&](int64_t steps) {
    auto job = LearnerJob::Start(Options(dir, steps),
                                 std::make_unique<FakeSource>(SmallConfig()),
                                 &service, metrics->get());
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  };
  train(7);  // checkpoints at 5 (now the previous one) and 7
  const auto tear = [](const std::string& file) {
    std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  };
  EXPECT_THAT((*metrics)->Text(),
              HasSubstr("mmapzero_learner_checkpoint_fallbacks_total 0"));
  tear(dir + "/network.pt");
  {
    auto job = LearnerJob::Start(Options(dir, 7),
                                 std::make_unique<FakeSource>(SmallConfig()),
                                 &service, metrics->get());
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ((*job)->progress().resumed_step, 5);
    EXPECT_THAT((*job)->progress().checkpoint_fallback,
                HasSubstr("resumed from the previous checkpoint"));
    ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  }
  // Now 7 is the newest again and 5 the previous one: tear both.
  tear(dir + "/network.pt");
  tear(dir + ".old/network.pt");
  auto job = LearnerJob::Start(Options(dir, 2),
                               std::make_unique<FakeSource>(SmallConfig()),
                               &service, metrics->get());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ((*job)->progress().resumed_step, 0);
  EXPECT_THAT((*job)->progress().checkpoint_fallback,
              HasSubstr("started afresh"));
  EXPECT_TRUE(std::filesystem::exists(dir + ".damaged-2"));
  EXPECT_TRUE(std::filesystem::exists(dir + ".old.damaged-1"));
  ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  EXPECT_EQ(StepLine(dir), "step 2\n");
  EXPECT_THAT((*metrics)->Text(),
              HasSubstr("mmapzero_learner_checkpoint_fallbacks_total 2"));
}

// What actors fetch is the network the learner trained: the last snapshot
// over a loopback ParameterService equals the final checkpoint's network.
TEST(LearnerJobTest, PublishedSnapshotIsTheTrainedNetwork) {
  model::SetComputeThreads(1);
  const std::string dir = FreshDir("learner_job_publish");
  worker::ParameterStore store;
  ParameterServiceImpl service(&store);
  absl::StatusOr<rpc::StartedServer> server =
      rpc::StartGrpcServer({.services = {&service},
                            .service_names = {"mmapzero.v1.ParameterService"}});
  ASSERT_TRUE(server.ok()) << server.status();
  auto job = LearnerJob::Start(Options(dir, 4),
                               std::make_unique<FakeSource>(SmallConfig()),
                               &store, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));

  rpc::ParameterClient client(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server->port),
                          grpc::InsecureChannelCredentials()));
  absl::StatusOr<rpc::ParameterSnapshot> snapshot = client.Fetch("job-000001");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->version, 4);
  EXPECT_EQ(snapshot->format, model::kNetworkParametersFormat);
  model::MuZeroNetwork fetched = *model::CreateNetwork(
      SmallConfig().network(), model::ShapeOf(SmallConfig().features()),
      torch::kCPU);
  ASSERT_TRUE(model::LoadNetworkParameters(snapshot->bytes, fetched).ok());
  model::MuZeroNetwork saved =
      *model::LoadNetworkFromCheckpoint(dir + "/network.pt", torch::kCPU);
  const auto a = fetched->parameters();
  const auto b = saved->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
  server->server->Shutdown();
}

TEST(LearnerJobTest, StopWritesACheckpointAtTheCurrentStep) {
  model::SetComputeThreads(1);
  const std::string dir = FreshDir("learner_job_stop");
  LearnerJobOptions options = Options(dir, 0);  // no budget
  options.checkpoint_interval = 1000;
  auto job = LearnerJob::Start(
      options, std::make_unique<FakeSource>(SmallConfig()), nullptr, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  while ((*job)->progress().step < 2) absl::SleepFor(absl::Milliseconds(5));
  (*job)->Stop();
  const LearnerProgress progress = (*job)->progress();
  EXPECT_TRUE(progress.stopped);
  EXPECT_FALSE(progress.finished);
  EXPECT_EQ(progress.checkpoints, 1);
  EXPECT_EQ(StepLine(dir), absl::StrCat("step ", progress.step, "\n"));
}

// Fencing (common/base/lease_fence.h): a learner whose lease passed to
// another (here: a second job on the same folder with a higher epoch)
// stops at its next save without writing it, the successor's checkpoint
// stands, and a grant older than the checkpoints cannot start.
TEST(LearnerJobTest, ALearnerWhoseLeasePassedStopsWithoutSaving) {
  model::SetComputeThreads(1);
  const std::string dir = FreshDir("learner_job_fenced");
  LearnerJobOptions stale = Options(dir, 0);
  stale.lease_epoch = 1;
  auto stale_source = std::make_unique<FakeSource>(SmallConfig(), false);
  FakeSource* stale_gate = stale_source.get();
  auto a = LearnerJob::Start(stale, std::move(stale_source), nullptr, nullptr);
  ASSERT_TRUE(a.ok()) << a.status();

  LearnerJobOptions successor = Options(dir, 3);
  successor.lease_epoch = 2;
  auto source = std::make_unique<FakeSource>(SmallConfig(), false);
  FakeSource* gate = source.get();
  auto b = LearnerJob::Start(successor, std::move(source), nullptr, nullptr);
  ASSERT_TRUE(b.ok()) << b.status();

  // a trains on to its first save (step 5), which the fence refuses: it
  // stops by itself, saving nothing.
  stale_gate->Open();
  ASSERT_TRUE((*a)->AwaitStopped(absl::Seconds(60)));
  const LearnerProgress fenced = (*a)->progress();
  EXPECT_THAT(fenced.fenced, HasSubstr("lease epoch 2"));
  EXPECT_FALSE(fenced.finished);
  EXPECT_EQ(fenced.checkpoints, 0);
  EXPECT_TRUE(fenced.fatal_error.empty());
  EXPECT_FALSE(std::filesystem::exists(dir));

  gate->Open();
  ASSERT_TRUE((*b)->AwaitStopped(absl::Seconds(60)));
  EXPECT_TRUE((*b)->progress().fenced.empty());
  EXPECT_EQ(StepLine(dir), "step 3\n");
  EXPECT_THAT(ReadFile(dir + "/learner.txt"), HasSubstr("\nepoch 2\n"));

  // An older grant cannot start: the fence refuses it and, were the fence
  // gone, so does the epoch written in the checkpoint.
  auto late = LearnerJob::Start(
      stale, std::make_unique<FakeSource>(SmallConfig()), nullptr, nullptr);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(late.status().message(), HasSubstr("fenced"));
  std::filesystem::remove(dir + ".fence");
  late = LearnerJob::Start(stale, std::make_unique<FakeSource>(SmallConfig()),
                           nullptr, nullptr);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(late.status().message(),
              HasSubstr("written under lease epoch 2"));

  // A newer grant resumes where the successor saved.
  LearnerJobOptions next = Options(dir, 3);
  next.lease_epoch = 3;
  auto c = LearnerJob::Start(next, std::make_unique<FakeSource>(SmallConfig()),
                             nullptr, nullptr);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->progress().resumed_step, 3);
}

// A learner paused past its lease takes no step until the lease is live
// again (the worker session's count), so it does not train beside the
// learner the job passed to before its heartbeat thread notices.
TEST(LearnerJobTest, TakesNoStepWhileTheLeaseIsNotLive) {
  model::SetComputeThreads(1);
  std::atomic<bool> live{true};
  LearnerJobOptions options = Options(FreshDir("learner_job_lease_live"), 0);
  options.lease_live = [&] { return live.load(); };
  auto job = LearnerJob::Start(
      options, std::make_unique<FakeSource>(SmallConfig()), nullptr, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  while ((*job)->progress().step < 2) absl::SleepFor(absl::Milliseconds(5));
  live = false;
  absl::SleepFor(absl::Milliseconds(200));  // a step in flight ends
  const int64_t held = (*job)->progress().step;
  absl::SleepFor(absl::Milliseconds(400));
  EXPECT_EQ((*job)->progress().step, held);
  EXPECT_FALSE((*job)->progress().stopped);
  live = true;
  while ((*job)->progress().step < held + 2) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  (*job)->Stop();
}

// A full disk: checkpoints fail with an error naming the folder while
// training goes on, the last good checkpoint stays whole (a new learner
// resumes from it), and checkpoints succeed again once there is space.
TEST(LearnerJobTest, FullDiskKeepsTrainingAndTheLastCheckpoint) {
  SmallDiskForTests disk(64 << 20);
  if (!disk.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  model::SetComputeThreads(1);
  const std::string dir = disk.path() + "/job";
  auto source = std::make_unique<FakeSource>(SmallConfig(), false);
  FakeSource* gate = source.get();
  auto job =
      LearnerJob::Start(Options(dir, 0), std::move(source), nullptr, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  gate->Open();
  while ((*job)->progress().checkpoints < 1) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  gate->Close();
  absl::SleepFor(absl::Milliseconds(300));  // the step in flight ends
  const std::string saved = StepLine(dir);
  ASSERT_EQ(saved, "step 5\n");
  disk.Fill();
  gate->Open();
  while ((*job)->progress().checkpoint_error.empty()) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_THAT((*job)->progress().checkpoint_error, HasSubstr(dir));
  while ((*job)->progress().step < 12) absl::SleepFor(absl::Milliseconds(5));
  (*job)->Stop();  // its final checkpoint fails too
  EXPECT_EQ((*job)->progress().checkpoints, 1);
  EXPECT_EQ(StepLine(dir), saved);

  // The last good checkpoint is whole: a new learner resumes from it.
  auto resumed = LearnerJob::Start(Options(dir, 0),
                                   std::make_unique<FakeSource>(SmallConfig()),
                                   nullptr, nullptr);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ((*resumed)->progress().resumed_step, 5);
  disk.Free();
  while ((*resumed)->progress().checkpoints < 1) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  (*resumed)->Stop();
  EXPECT_TRUE((*resumed)->progress().checkpoint_error.empty());
  EXPECT_EQ(StepLine(dir),
            absl::StrCat("step ", (*resumed)->progress().step, "\n"));
}

TEST(LearnerJobTest, RefusesBadConfigsAndCheckpointsOfAnotherSize) {
  LearnerJobOptions bad = Options("", 0);
  bad.config.mutable_training()->set_batch_size(0);
  auto refused = LearnerJob::Start(
      bad, std::make_unique<FakeSource>(SmallConfig()), nullptr, nullptr);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("training.batch_size"));

  const std::string dir = FreshDir("learner_job_other_size");
  {
    auto job = LearnerJob::Start(Options(dir, 1),
                                 std::make_unique<FakeSource>(SmallConfig()),
                                 nullptr, nullptr);
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  }
  LearnerJobOptions wider = Options(dir, 2);
  wider.config.mutable_network()->set_mlp_hidden(48);
  auto mismatch = LearnerJob::Start(
      wider, std::make_unique<FakeSource>(wider.config), nullptr, nullptr);
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mismatch.status().message()),
              HasSubstr("mlp_hidden is 32"));
}

TEST(LearnerJobTest, TrainsFromAPrefetchQueueWithMetrics) {
  model::SetComputeThreads(1);
  absl::StatusOr<std::unique_ptr<LearnerMetrics>> metrics =
      LearnerMetrics::Start("");
  ASSERT_TRUE(metrics.ok());
  std::atomic<uint64_t> sampled{0};
  const MuZeroConfig config = SmallConfig();
  auto queue = std::make_unique<worker::PrefetchQueue>(
      [&]() -> absl::StatusOr<agent::Batch> {
        return SyntheticBatch(config, 8, sampled++);
      },
      worker::PrefetchOptions{.capacity = 2});
  worker::ParameterStore service;
  auto job = LearnerJob::Start(Options("", 6), std::move(queue), &service,
                               metrics->get());
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  EXPECT_EQ((*job)->progress().step, 6);
  EXPECT_GE(sampled.load(), 6u);
  const std::string text = (*metrics)->Text();
  EXPECT_THAT(text,
              HasSubstr("mmapzero_learner_steps_total{job=\"job-000001\"} 6"));
  EXPECT_THAT(text, HasSubstr("mmapzero_learner_batch_wait_seconds_count{job="
                              "\"job-000001\"} 6"));
  EXPECT_THAT(text, HasSubstr("mmapzero_learner_parameter_version{job="
                              "\"job-000001\"} 6"));
  EXPECT_THAT(text, HasSubstr("term=\"policy\""));
  // Stopped, the job is no longer the learner's: its series go, the
  // worker's own stay.
  (*job)->Stop();
  const std::string after = (*metrics)->Text();
  EXPECT_THAT(after, Not(HasSubstr("job-000001"))) << after;
  EXPECT_THAT(after,
              HasSubstr("mmapzero_learner_checkpoint_fallbacks_total 0"));
}

// The game that plays the first legal action of `preference`.
constexpr std::array<game::Action, 3> kFastFirst = {
    game::Action::kNoCopy, game::Action::kCopy, game::Action::kDrop};
constexpr std::array<game::Action, 3> kSlowFirst = {
    game::Action::kDrop, game::Action::kCopy, game::Action::kNoCopy};

// Demonstrations: an offered solution is replayed before the next step
// when it beats every earlier offer; from then on the last
// round(demonstration_fraction * batch) positions of each batch are its.
TEST(LearnerJobTest, MixesTheOfferedBestsIntoItsBatchesAsDemonstrations) {
  model::SetComputeThreads(1);
  const std::shared_ptr<const game::Program> program = SmallExampleProgram();
  ASSERT_NE(program, nullptr);
  LearnerJobOptions options = Options("", /*budget=*/6);
  options.program = program;
  options.config.mutable_training()->set_demonstration_interval_steps(0);
  ASSERT_DOUBLE_EQ(options.config.training().demonstration_fraction(), 0.25);
  auto source = std::make_unique<FakeSource>(SmallConfig(), /*open=*/false);
  FakeSource* gate = source.get();
  auto job = LearnerJob::Start(options, std::move(source), nullptr, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  const auto progress = [&] { return (*job)->progress(); };
  const auto eventually = [](const std::function<bool()>& done) {
    for (int i = 0; i < 1000 && !done(); ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    return done();
  };

  Solution good = training::PlayedByPreference(program, kFastFirst);
  Solution worse = training::PlayedByPreference(program, kSlowFirst);
  ASSERT_GT(good.normalised_return(), worse.normalised_return());
  (*job)->OfferDemonstration(good);
  ASSERT_TRUE(
      eventually([&] { return progress().demonstrations.replayed == 1; }));
  EXPECT_DOUBLE_EQ(progress().demonstrations.best_offered,
                   good.normalised_return());
  (*job)->OfferDemonstration(worse);  // not better: ignored
  EXPECT_DOUBLE_EQ(progress().demonstrations.best_offered,
                   good.normalised_return());
  // A better claim that does not replay (a buffer without a decision) is
  // refused, and training goes on with what the job holds.
  Solution broken = good;
  broken.mutable_decisions()->RemoveLast();
  broken.set_normalised_return(good.normalised_return() + 0.1);
  (*job)->OfferDemonstration(broken);
  ASSERT_TRUE(
      eventually([&] { return !progress().demonstrations.error.empty(); }));
  EXPECT_THAT(progress().demonstrations.error, HasSubstr("has no decision"));

  gate->Open();
  ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  const LearnerProgress done = progress();
  EXPECT_EQ(done.step, 6);
  EXPECT_EQ(done.skipped_batches, 0);
  EXPECT_EQ(done.demonstrations.replayed, 1);
  EXPECT_EQ(done.demonstrations.mixed_positions,
            6 * 2);  // round(0.25 * 8) a batch
  EXPECT_DOUBLE_EQ(done.demonstrations.best_offered,
                   broken.normalised_return());
}

// One replay per training.demonstration_interval_steps learner steps: the
// first offer at once, a later one waits while the learner has not moved
// on (its return is noted at once, so it is not sent again).
TEST(LearnerJobTest, ReplaysAtMostOneDemonstrationPerInterval) {
  model::SetComputeThreads(1);
  const std::shared_ptr<const game::Program> program = SmallExampleProgram();
  ASSERT_NE(program, nullptr);
  LearnerJobOptions options = Options("", /*budget=*/0);
  options.program = program;
  options.config.mutable_training()->set_demonstration_interval_steps(1000);
  auto job = LearnerJob::Start(
      options, std::make_unique<FakeSource>(SmallConfig(), /*open=*/false),
      nullptr, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  const Solution worse = training::PlayedByPreference(program, kSlowFirst);
  const Solution good = training::PlayedByPreference(program, kFastFirst);
  (*job)->OfferDemonstration(worse);
  for (int i = 0; i < 1000 && (*job)->progress().demonstrations.replayed == 0;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ((*job)->progress().demonstrations.replayed, 1);
  (*job)->OfferDemonstration(good);
  absl::SleepFor(absl::Milliseconds(300));  // many rounds of the loop
  EXPECT_EQ((*job)->progress().demonstrations.replayed, 1);
  EXPECT_DOUBLE_EQ((*job)->progress().demonstrations.best_offered,
                   good.normalised_return());
}

// Without a program (or with demonstration_fraction 0) offers only note
// their return: nothing is replayed or mixed in.
TEST(LearnerJobTest, WithoutAProgramOffersOnlyNoteTheirReturn) {
  model::SetComputeThreads(1);
  const std::shared_ptr<const game::Program> program = SmallExampleProgram();
  ASSERT_NE(program, nullptr);
  auto job = LearnerJob::Start(Options("", /*budget=*/3),
                               std::make_unique<FakeSource>(SmallConfig()),
                               nullptr, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  const Solution good = training::PlayedByPreference(program, kFastFirst);
  (*job)->OfferDemonstration(good);
  ASSERT_TRUE((*job)->AwaitStopped(absl::Seconds(60)));
  EXPECT_EQ((*job)->progress().demonstrations.replayed, 0);
  EXPECT_EQ((*job)->progress().demonstrations.mixed_positions, 0);
  EXPECT_DOUBLE_EQ((*job)->progress().demonstrations.best_offered,
                   good.normalised_return());
}

}  // namespace
}  // namespace mmapzero::learner
