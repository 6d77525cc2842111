// The MiniMalloc instances in testdata/minimalloc (production buffer
// packing problems, see SOURCES.md there) imported as workloads, with every
// buffer forced resident: each is played with NoCopy on every buffer (the
// engine's lowest-fit allocator in start-time order), in a memory large
// enough for any order, and the validator checks the placement. The memory
// the allocator needed is compared with the instance's capacity, which a
// known packing fits, and with the peak of live bytes, below which none can.
#include "common/workload/minimalloc.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/validate/validator.h"
#include "common/workload/workload_stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

const std::string kDir = MMAPZERO_SOURCE_DIR "/testdata/minimalloc";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Plays NoCopy on every buffer where it is legal, else Drop; the solution.
Solution PlayResident(const Workload& workload) {
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  game::MMapGame game(*program);
  while (!game.IsTerminal()) {
    const bool fits =
        game.LegalActionMask() & (1u << static_cast<int>(game::Action::kNoCopy));
    game.ApplyAction(fits ? game::Action::kNoCopy : game::Action::kDrop);
  }
  return game.ToSolution();
}

int64_t HighestByte(const Solution& solution, const Workload& workload) {
  int64_t highest = 0;
  for (const BufferDecision& decision : solution.decisions()) {
    if (decision.action() == DROP) continue;
    highest = std::max(highest, decision.offset() +
                                    workload.buffers(decision.buffer_id()).size());
  }
  return highest;
}

TEST(MiniMallocTest, EveryInstancePacksValidlyWithAllBuffersResident) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() == ".csv") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths.size(), 12u);
  for (const std::filesystem::path& path : paths) {
    const std::string file = path.filename().string();
    // "A.1048576.csv": the capacity a known packing fits.
    const int64_t capacity = std::stoll(file.substr(file.find('.') + 1));
    absl::StatusOr<Workload> instance = WorkloadFromMiniMalloc(
        Read(path.string()), {.name = file, .capacity = capacity});
    ASSERT_TRUE(instance.ok()) << file << ": " << instance.status();
    const int64_t peak = ComputeWorkloadStats(*instance).peak_live_bytes;
    EXPECT_LE(peak, capacity) << file;

    // Room for any order: every buffer placed; the validator agrees.
    Workload roomy = *instance;
    int64_t total = 0;
    for (const Buffer& buffer : roomy.buffers()) total += buffer.size();
    roomy.set_memory_size(total);
    const Solution all = PlayResident(roomy);
    const validate::ValidationReport report =
        validate::ValidateSolution(roomy, all);
    ASSERT_TRUE(report.ok) << file << ": " << report.violations[0].message;
    EXPECT_DOUBLE_EQ(report.normalised_return, 1.0) << file;
    const int64_t used = HighestByte(all, roomy);
    EXPECT_GE(used, peak) << file << ": overlapping placements";

    // At the instance's own capacity: what lowest-fit in start order keeps.
    const Solution fitted = PlayResident(*instance);
    const validate::ValidationReport fitted_report =
        validate::ValidateSolution(*instance, fitted);
    ASSERT_TRUE(fitted_report.ok) << file;
    std::printf("%-16s %4d buffers  live peak %.3f  lowest-fit needs %.3f of "
                "the capacity; at the capacity it keeps %.1f%%\n",
                file.c_str(), instance->buffers_size(),
                static_cast<double>(peak) / capacity,
                static_cast<double>(used) / capacity,
                100 * fitted_report.normalised_return);
    if (used <= capacity) {
      EXPECT_DOUBLE_EQ(fitted_report.normalised_return, 1.0) << file;
    }
  }
}

TEST(MiniMallocTest, TheTinyExampleFitsItsTwelveBytes) {
  absl::StatusOr<Workload> instance = WorkloadFromMiniMalloc(
      Read(kDir + "/input.12.csv"), {.name = "input.12", .capacity = 12});
  ASSERT_TRUE(instance.ok()) << instance.status();
  EXPECT_EQ(instance->buffers_size(), 5);
  EXPECT_EQ(ComputeWorkloadStats(*instance).peak_live_bytes, 12);
  const Solution solution = PlayResident(*instance);
  const validate::ValidationReport report =
      validate::ValidateSolution(*instance, solution);
  ASSERT_TRUE(report.ok);
  EXPECT_DOUBLE_EQ(report.normalised_return, 1.0);
}

TEST(MiniMallocTest, MalformedInstancesNameTheLineAndField) {
  const auto error = [](const std::string& csv) {
    return std::string(
        WorkloadFromMiniMalloc(csv, {.name = "x", .capacity = 64})
            .status()
            .message());
  };
  EXPECT_THAT(error("id,start,end,size\n"), HasSubstr("line 1: expected the header"));
  EXPECT_THAT(error("id,lower,upper,size\na,0,5\n"),
              HasSubstr("line 2: expected 4 fields"));
  EXPECT_THAT(error("id,lower,upper,size\na,3,3,4\n"),
              HasSubstr("line 2: needs 0 <= lower < upper"));
  EXPECT_THAT(error("id,lower,upper,size\na,0,3,-4\n"),
              HasSubstr("line 2: size: must be in [1, 2^48], got -4"));
  EXPECT_THAT(error("id,lower,upper,size\na,0,3,x\n"),
              HasSubstr("line 2: size: not an integer, got 'x'"));
  EXPECT_THAT(error("id,lower,upper,size\na,0,3,4\na,1,2,4\n"),
              HasSubstr("line 3: id a appears twice"));
  EXPECT_THAT(error("id,lower,upper,size\n"), HasSubstr("no buffers"));
  EXPECT_THAT(std::string(WorkloadFromMiniMalloc("id,lower,upper,size\na,0,1,1\n",
                                                 {.name = "x", .capacity = 0})
                              .status()
                              .message()),
              HasSubstr("capacity"));
}

}  // namespace
}  // namespace mmapzero
