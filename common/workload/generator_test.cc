#include "common/workload/generator.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "common/workload/workload_check.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

GeneratorOptions Options(ModelFamily family, ProgramMode mode, int buffers,
                         uint64_t seed = 7) {
  GeneratorOptions options;
  options.family = family;
  options.mode = mode;
  options.target_buffers = buffers;
  options.seed = seed;
  return options;
}

Workload GenerateOrDie(const GeneratorOptions& options) {
  absl::StatusOr<Workload> workload = GenerateWorkload(options);
  EXPECT_TRUE(workload.ok()) << workload.status();
  return workload.ok() ? *std::move(workload) : Workload();
}

// Peak over steps of the bytes of the tensors live at that step, each
// tensor counted once.
int64_t PeakLiveBytes(const Workload& workload) {
  std::map<int, const Buffer*> tensors;
  for (const Buffer& buffer : workload.buffers()) {
    tensors.emplace(buffer.tensor_id(), &buffer);
  }
  std::vector<int64_t> delta(workload.instructions_size() + 1, 0);
  for (const auto& [id, buffer] : tensors) {
    delta[buffer->live_range().start()] += buffer->size();
    delta[buffer->live_range().end() + 1] -= buffer->size();
  }
  int64_t live = 0;
  int64_t peak = 0;
  for (int t = 0; t < workload.instructions_size(); ++t) {
    live += delta[t];
    peak = std::max(peak, live);
  }
  return peak;
}

std::map<int, std::vector<const Buffer*>> AliasGroups(
    const Workload& workload) {
  std::map<int, std::vector<const Buffer*>> groups;
  for (const Buffer& buffer : workload.buffers()) {
    if (buffer.has_alias_id()) groups[buffer.alias_id()].push_back(&buffer);
  }
  return groups;
}

constexpr ModelFamily kFamilies[] = {ModelFamily::kMlp, ModelFamily::kCnn,
                                     ModelFamily::kTransformer,
                                     ModelFamily::kLstm};
constexpr ProgramMode kModes[] = {ProgramMode::kTraining,
                                  ProgramMode::kInference};

TEST(GeneratorTest, SameSeedGivesIdenticalWorkload) {
  for (ModelFamily family : kFamilies) {
    const GeneratorOptions options =
        Options(family, ProgramMode::kTraining, 500, 42);
    EXPECT_TRUE(MessageDifferencer::Equals(GenerateOrDie(options),
                                           GenerateOrDie(options)))
        << ModelFamilyName(family);
  }
}

TEST(GeneratorTest, DifferentSeedsGiveDifferentWorkloads) {
  for (ModelFamily family : kFamilies) {
    const Workload a =
        GenerateOrDie(Options(family, ProgramMode::kTraining, 500, 1));
    const Workload b =
        GenerateOrDie(Options(family, ProgramMode::kTraining, 500, 2));
    Workload a_buffers;
    Workload b_buffers;
    *a_buffers.mutable_buffers() = a.buffers();
    *b_buffers.mutable_buffers() = b.buffers();
    EXPECT_FALSE(MessageDifferencer::Equals(a_buffers, b_buffers))
        << ModelFamilyName(family);
  }
}

class FamilyModeSizeTest : public ::testing::TestWithParam<
                               std::tuple<ModelFamily, ProgramMode, int>> {};

TEST_P(FamilyModeSizeTest, PassesCheckAndLandsNearTarget) {
  const auto [family, mode, target] = GetParam();
  const Workload workload = GenerateOrDie(Options(family, mode, target));
  EXPECT_TRUE(CheckWorkload(workload).ok()) << CheckWorkload(workload);
  EXPECT_LE(std::abs(workload.buffers_size() - target), target / 10)
      << workload.buffers_size() << " buffers for a target of " << target;
}

TEST_P(FamilyModeSizeTest, PeakLiveBytesExceedFastMemory) {
  const auto [family, mode, target] = GetParam();
  const Workload workload = GenerateOrDie(Options(family, mode, target));
  const double pressure = static_cast<double>(PeakLiveBytes(workload)) /
                          static_cast<double>(workload.memory_size());
  EXPECT_GT(pressure, 1.5);
  EXPECT_LT(pressure, 10.5);
  for (const Buffer& buffer : workload.buffers()) {
    ASSERT_LE(buffer.size(), workload.memory_size()) << buffer.tensor_name();
  }
}

TEST_P(FamilyModeSizeTest, LatencyIsRooflineAndStaticFeaturesAreLeftOut) {
  const auto [family, mode, target] = GetParam();
  const Workload workload = GenerateOrDie(Options(family, mode, target));
  for (const Instruction& instruction : workload.instructions()) {
    ASSERT_TRUE(instruction.has_roofline()) << instruction.name();
    EXPECT_GT(instruction.roofline().flops(), 0) << instruction.name();
    EXPECT_FALSE(instruction.has_supply_us());
  }
  for (const Buffer& buffer : workload.buffers()) {
    ASSERT_FALSE(buffer.has_demand_us());
    ASSERT_FALSE(buffer.has_benefit_us());
  }
}

// Every tensor has at most one producing buffer, every buffer of a tensor
// has the same size and live range, and the range starts at the producer
// (at 0 for tensors that exist from the start, which are only read) and
// ends at the last use or the last step.
TEST_P(FamilyModeSizeTest, TensorsHaveOneProducerAndLiveFromItToLastUse) {
  const auto [family, mode, target] = GetParam();
  const Workload workload = GenerateOrDie(Options(family, mode, target));
  const int last_step = workload.instructions_size() - 1;
  std::map<int, std::vector<const Buffer*>> uses;
  for (const Buffer& buffer : workload.buffers()) {
    uses[buffer.tensor_id()].push_back(&buffer);
  }
  for (const auto& [id, buffers] : uses) {
    int producers = 0;
    int start = 0;
    int last_use = 0;
    for (const Buffer* buffer : buffers) {
      ASSERT_EQ(buffer->size(), buffers[0]->size());
      ASSERT_EQ(buffer->live_range().start(), buffers[0]->live_range().start());
      ASSERT_EQ(buffer->live_range().end(), buffers[0]->live_range().end());
      if (buffer->is_output()) {
        ++producers;
        start = buffer->target_time();
      }
      last_use = std::max(last_use, buffer->target_time());
    }
    ASSERT_LE(producers, 1) << buffers[0]->tensor_name();
    EXPECT_EQ(buffers[0]->live_range().start(), start)
        << buffers[0]->tensor_name();
    const int end = buffers[0]->live_range().end();
    EXPECT_TRUE(end == last_use || end == last_step)
        << buffers[0]->tensor_name() << " ends at " << end;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFamilies, FamilyModeSizeTest,
    ::testing::Combine(::testing::ValuesIn(kFamilies),
                       ::testing::ValuesIn(kModes),
                       ::testing::Values(100, 1000, 20000)),
    [](const auto& test_info) {
      return ModelFamilyName(std::get<0>(test_info.param)) + "_" +
             ProgramModeName(std::get<1>(test_info.param)) + "_" +
             std::to_string(std::get<2>(test_info.param));
    });

TEST(GeneratorTest, TrainingHasInPlaceOptimizerAliasGroups) {
  for (ModelFamily family : kFamilies) {
    const Workload workload =
        GenerateOrDie(Options(family, ProgramMode::kTraining, 1000));
    const auto groups = AliasGroups(workload);
    EXPECT_FALSE(groups.empty()) << ModelFamilyName(family);
    for (const auto& [id, members] : groups) {
      ASSERT_GE(members.size(), 2u);
    }
    int updates = 0;
    for (int t = 0; t < workload.instructions_size(); ++t) {
      if (!absl::EndsWith(workload.instructions(t).opcode(), "-update")) {
        continue;
      }
      ++updates;
      // Each updated weight or state aliases the operand it replaces.
      for (const Buffer& buffer : workload.buffers()) {
        if (buffer.target_time() != t || !buffer.is_output()) continue;
        ASSERT_TRUE(buffer.has_alias_id()) << buffer.tensor_name();
        const auto& members = groups.at(buffer.alias_id());
        EXPECT_TRUE(std::any_of(members.begin(), members.end(),
                                [&](const Buffer* b) {
                                  return !b->is_output() &&
                                         b->target_time() == t;
                                }))
            << buffer.tensor_name();
      }
    }
    EXPECT_GT(updates, 0) << ModelFamilyName(family);
  }
}

// Training keeps forward activations for the backward pass; inference
// frees them early.
TEST(GeneratorTest, BackwardReReadsForwardActivationsAndWeights) {
  for (ModelFamily family : kFamilies) {
    const Workload workload =
        GenerateOrDie(Options(family, ProgramMode::kTraining, 1000));
    std::set<int> forward_outputs;
    std::set<int> weights;
    int reread_activations = 0;
    int reread_weights = 0;
    for (const Buffer& buffer : workload.buffers()) {
      const Instruction& user = workload.instructions(buffer.target_time());
      const bool backward = absl::StrContains(user.opcode(), "-grad") ||
                            absl::StrContains(user.name(), ".grad");
      if (buffer.is_output() && !backward) {
        forward_outputs.insert(buffer.tensor_id());
      }
      if (!buffer.is_output() && buffer.live_range().start() == 0 &&
          !backward) {
        weights.insert(buffer.tensor_id());
      }
      if (!buffer.is_output() && backward) {
        reread_activations += forward_outputs.count(buffer.tensor_id());
        reread_weights += weights.count(buffer.tensor_id());
      }
    }
    EXPECT_GT(reread_activations, 0) << ModelFamilyName(family);
    EXPECT_GT(reread_weights, 0) << ModelFamilyName(family);
  }
}

TEST(GeneratorTest, InferenceIsForwardOnly) {
  for (ModelFamily family : kFamilies) {
    const Workload workload =
        GenerateOrDie(Options(family, ProgramMode::kInference, 1000));
    for (const Instruction& instruction : workload.instructions()) {
      EXPECT_FALSE(absl::StrContains(instruction.opcode(), "-grad") ||
                   absl::StrContains(instruction.opcode(), "-update") ||
                   absl::StrContains(instruction.name(), ".grad"))
          << instruction.name();
    }
  }
}

TEST(GeneratorTest, RecordsProvenance) {
  GeneratorOptions options =
      Options(ModelFamily::kCnn, ProgramMode::kInference, 300, 9);
  options.hardware_profile = "gpu-a100";
  const Workload workload = GenerateOrDie(options);
  const auto& provenance = workload.provenance();
  EXPECT_EQ(provenance.at("family"), "cnn");
  EXPECT_EQ(provenance.at("mode"), "inference");
  EXPECT_EQ(provenance.at("seed"), "9");
  EXPECT_EQ(provenance.at("hardware_profile"), "gpu-a100");
  EXPECT_EQ(provenance.at("target_buffers"), "300");
  EXPECT_TRUE(provenance.contains("memory_pressure"));
  EXPECT_EQ(workload.hardware().name(), "gpu-a100");
  EXPECT_EQ(workload.memory_size(), 40 << 20);
}

TEST(GeneratorTest, MemorySizeAlignmentAndPressureOverrides) {
  GeneratorOptions options =
      Options(ModelFamily::kTransformer, ProgramMode::kTraining, 1000);
  options.memory_size = 1 << 20;
  options.alignment = 64;
  options.memory_pressure = 4.0;
  const Workload workload = GenerateOrDie(options);
  EXPECT_EQ(workload.memory_size(), 1 << 20);
  EXPECT_EQ(workload.alignment(), 64);
  const double pressure =
      static_cast<double>(PeakLiveBytes(workload)) / (1 << 20);
  EXPECT_NEAR(pressure, 4.0, 0.2);
}

TEST(GeneratorTest, TinyTargetGivesTheSmallestProgram) {
  const Workload workload = GenerateOrDie(
      Options(ModelFamily::kTransformer, ProgramMode::kTraining, 1));
  EXPECT_TRUE(CheckWorkload(workload).ok());
  EXPECT_GT(workload.buffers_size(), 1);
}

TEST(GeneratorTest, RejectsOptionsOutOfRange) {
  GeneratorOptions options =
      Options(ModelFamily::kMlp, ProgramMode::kTraining, 0);
  EXPECT_THAT(GenerateWorkload(options).status().message(),
              HasSubstr("target_buffers"));
  options.target_buffers = 100;
  options.memory_size = -1;
  EXPECT_THAT(GenerateWorkload(options).status().message(),
              HasSubstr("memory_size"));
  options.memory_size = 0;
  options.hardware_profile = "abacus";
  const absl::Status status = GenerateWorkload(options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("abacus"));
  EXPECT_THAT(status.message(), HasSubstr("tpu-v4i"));
}

TEST(GeneratorTest, ParsesFamilyAndModeNames) {
  for (const std::string& name : ModelFamilyNames()) {
    absl::StatusOr<ModelFamily> family = ParseModelFamily(name);
    ASSERT_TRUE(family.ok());
    EXPECT_EQ(ModelFamilyName(*family), name);
  }
  EXPECT_THAT(ParseModelFamily("gan").status().message(),
              HasSubstr("mlp, cnn, transformer, lstm"));
  EXPECT_EQ(*ParseProgramMode("inference"), ProgramMode::kInference);
  EXPECT_THAT(ParseProgramMode("eval").status().message(),
              HasSubstr("training, inference"));
}

}  // namespace
}  // namespace mmapzero
