// A reanalyse worker against a real coordinator with in-test replay and
// learner servers (worker/test_cluster.h): it waits for the learner's first
// parameters, then samples the stored game, re-searches every step and
// sends fresh targets tagged with the parameter version, and reports its
// count to the coordinator.
#include "reanalyse/reanalyse_worker.h"

#include <memory>
#include <numeric>
#include <string>

#include "common/agent/trajectory_proto.h"
#include "common/game/program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/test_cluster.h"

namespace mmapzero::reanalyse {
namespace {

using worker::TestCluster;
using worker::WaitFor;

// One game of examples/small.json played by a fresh network.
v1::Trajectory PlayedGame(const MuZeroConfig& config) {
  absl::StatusOr<Workload> workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  EXPECT_TRUE(workload.ok()) << workload.status();
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(*workload);
  EXPECT_TRUE(program.ok()) << program.status();
  torch::manual_seed(11);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  v1::Trajectory played;
  training::SelfPlay::Options options;
  options.config = config;
  options.seed = 3;
  options.sink = [&played](const game::MMapGame&, agent::Trajectory t) {
    if (played.steps().empty()) agent::TrajectoryToProto(t, &played);
  };
  absl::StatusOr<std::unique_ptr<training::SelfPlay>> self_play =
      training::SelfPlay::Create(*program, *network, std::move(options));
  EXPECT_TRUE(self_play.ok()) << self_play.status();
  (*self_play)->PlayGames(1);
  return played;
}

std::unique_ptr<ReanalyseWorker> StartReanalyse(TestCluster& cluster) {
  absl::StatusOr<std::unique_ptr<ReanalyseWorker>> worker =
      ReanalyseWorker::Start({.coordinator = cluster.coordinator_address(),
                              .name = "test-reanalyse",
                              .trajectories_per_round = 2,
                              .parameter_poll = absl::Milliseconds(100)});
  EXPECT_TRUE(worker.ok()) << worker.status();
  return worker.ok() ? *std::move(worker) : nullptr;
}

TEST(ReanalyseWorkerIntegrationTest, RefreshesStoredTargetsWithLatestParams) {
  TestCluster cluster;
  const MuZeroConfig config = worker::TinyConfig();
  const v1::Trajectory game = PlayedGame(config);
  ASSERT_GT(game.steps_size(), 0);
  cluster.replay().Store(game);
  const std::string job = cluster.SubmitRunningJob(config);
  std::unique_ptr<ReanalyseWorker> worker = StartReanalyse(cluster);
  ASSERT_NE(worker, nullptr);
  ASSERT_TRUE(WaitFor([&] { return worker->JobIds().size() == 1; }));

  // No parameters from the learner yet: nothing to refresh targets with.
  absl::SleepFor(absl::Milliseconds(600));
  EXPECT_TRUE(cluster.replay().updates().empty());
  EXPECT_EQ(worker->JobStats(job)->rounds, 0);

  cluster.parameters().Set(5, worker::ParametersOf(config, 2));
  ASSERT_TRUE(WaitFor([&] { return worker->JobStats(job)->reanalysed >= 2; }));
  const std::vector<v1::UpdateTargetsRequest> updates =
      cluster.replay().updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates[0].job_id(), job);
  for (const v1::TargetUpdate& update : updates[0].updates()) {
    EXPECT_EQ(update.trajectory_id(), 1u);
    EXPECT_EQ(update.first_step(), 0);
    EXPECT_EQ(update.parameter_version(), 5);
    ASSERT_EQ(update.root_values_size(), game.steps_size());
    ASSERT_EQ(update.policies_size(), 3 * game.steps_size());
    for (int s = 0; s < game.steps_size(); ++s) {
      const float* p = update.policies().data() + 3 * s;
      EXPECT_NEAR(p[0] + p[1] + p[2], 1.0, 1e-4) << "step " << s;
      for (int a = 0; a < 3; ++a) {
        if ((game.steps(s).legal_mask() >> a & 1) == 0) {
          EXPECT_EQ(p[a], 0) << "step " << s << " illegal action " << a;
        }
      }
    }
  }
  EXPECT_EQ(worker->JobStats(job)->parameter_version, 5);
  ASSERT_TRUE(WaitFor([&] { return cluster.Job(job).reanalysed() >= 2; }));
  worker->Shutdown();
}

}  // namespace
}  // namespace mmapzero::reanalyse
