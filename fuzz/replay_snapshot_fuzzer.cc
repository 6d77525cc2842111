// Fuzzes the two replay snapshot readers, what a service loads after a
// crash: the replay server's table checkpoint (LoadTable, "MZRT", and
// ReadTableStats, the start of one that a server reads at start) and the
// learner checkpoint's replay buffer (ReplayBuffer::Restore, "MZRB"). Any
// file loads or gives an error, never a crash; a buffer that restored
// samples. With MMAPZERO_FUZZ_SEED_DIR set it writes one real file of each
// format there as the seed corpus (scripts/fuzz) and exits.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "common/agent/replay_buffer.h"
#include "fuzz/fuzz_util.h"
#include "replay/table_checkpoint.h"

namespace {

using namespace mmapzero;

agent::Trajectory SeedTrajectory(int length) {
  agent::Trajectory trajectory;
  for (int i = 0; i < length; ++i) {
    agent::TrajectoryStep step;
    step.observation.occupancy = {1, 2, 3};
    step.observation.vector = {0.5f, 1.5f};
    step.buffer = i;
    step.action = static_cast<uint8_t>(i % 3);
    step.legal_mask = 7;
    step.reward = 0.5f * i;
    step.fast_move = i == 1;
    step.policy = {0.25f, 0.25f, 0.5f};
    trajectory.steps.push_back(step);
  }
  trajectory.episode_return = length;
  trajectory.context_steps = length > 3 ? 1 : 0;
  trajectory.demonstration = length == 3;
  return trajectory;
}

bool WriteSeeds(const std::string& dir) {
  agent::ReplayBuffer buffer(/*capacity=*/4, /*seed=*/1);
  replay::TableSnapshot table;
  table.stats.set_capacity(4);
  for (int t = 0; t < 3; ++t) {
    buffer.Insert(SeedTrajectory(3 + t));
    table.entries.push_back(
        {static_cast<uint64_t>(t), t,
         std::make_shared<const agent::Trajectory>(SeedTrajectory(3 + t))});
  }
  return buffer.Save(dir + "/learner_replay.seed").ok() &&
         replay::SaveTable(dir + "/replay_table.seed", "job-1", table).ok();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::WriteSeedsIfAsked(&WriteSeeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      "/tmp/mmapzero_replay_snapshot_fuzzer." + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data),
              static_cast<std::streamsize>(size));
  }
  agent::ReplayBuffer buffer(/*capacity=*/64, /*seed=*/1);
  if (buffer.Restore(path).ok() && buffer.total_steps() > 0) {
    fuzz::Require(!buffer.Sample(4).empty());
  }
  const auto table = replay::LoadTable(path);
  const auto stats = replay::ReadTableStats(path);  // what a start reads
  // Where both read a file, they name the same job.
  if (table.ok() && stats.ok()) {
    fuzz::Require(stats->job_uid() == table->stats.job_uid());
  }
  return 0;
}
