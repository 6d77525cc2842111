// Imports every real module in testdata/hlo (SOURCES.md), checks
// counts and sizes against figures derived independently of the importer,
// and plays a random game on each import.
//
// The expected figures come from a one-off Python script over the module
// text (regular expressions only, no code shared with the importer): for
// the ENTRY computation it counted the instruction lines by opcode; the
// "instructions that do work" are all but parameter, constant, tuple,
// get-tuple-element, bitcast and partition-id; the output buffers are the
// non-empty array leaves of those instructions' shapes, and their bytes the
// sum of elements x element bytes; the dot / convolution FLOPs are
// 2 x output elements x lhs contracting size (dot) or x kernel elements /
// output features (convolution, 'o' of dim_labels), with operand shapes
// looked up by name.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_test_util.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {
namespace {

const std::string kDir = MMAPZERO_SOURCE_DIR "/testdata/hlo";

struct Expected {
  const char* file;
  int entry_instructions;  // SOURCES.md and the script agree
  int instructions;        // entry instructions that do work
  int output_buffers;
  int64_t output_bytes;
  int contractions;  // dot + convolution instructions
  double contraction_flops;
};

// Figures from the script described above.
constexpr Expected kModules[] = {
    {"graphsage_tf.hlo", 126, 89, 89, 232036, 7, 474624},
    {"ssd_mobilenet_tf.hlo", 508, 329, 329, 119479386, 47, 2474258816.0},
};

class SharedModulesTest : public ::testing::TestWithParam<Expected> {};

TEST_P(SharedModulesTest, ImportsWithIndependentlyDerivedFigures) {
  const Expected& expected = GetParam();
  const std::string path = kDir + "/" + expected.file;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  HloImportOptions options = TestOptions();
  auto result = ImportHloFile(path, options);
  ASSERT_TRUE(result.ok()) << result.status();
  const Workload& workload = result->workload;
  EXPECT_TRUE(result->warnings.empty());
  EXPECT_EQ(workload.provenance().at("hlo_entry_instructions"),
            std::to_string(expected.entry_instructions));
  EXPECT_EQ(workload.provenance().at("is_scheduled"), "false");
  EXPECT_EQ(workload.instructions_size(), expected.instructions);

  int outputs = 0, contractions = 0;
  int64_t output_bytes = 0;
  double flops = 0;
  for (const Buffer& buffer : workload.buffers()) {
    if (!buffer.is_output()) continue;
    ++outputs;
    output_bytes += buffer.size();
  }
  for (const Instruction& instruction : workload.instructions()) {
    if (instruction.opcode() == "dot" ||
        instruction.opcode() == "convolution") {
      ++contractions;
      flops += instruction.roofline().flops();
    }
  }
  EXPECT_EQ(outputs, expected.output_buffers);
  EXPECT_EQ(output_bytes, expected.output_bytes);
  EXPECT_EQ(contractions, expected.contractions);
  if (expected.contraction_flops >= 0) {
    EXPECT_DOUBLE_EQ(flops, expected.contraction_flops);
  }
  ExpectRandomGameValidates(workload, /*seed=*/7);
}

// Llama-3's two decoder loops (32 trips each) are laid out with their
// buffers in the game: one alias group per element of the loop state the
// body changes or passes on, besides the optimizer's updated parameters.
TEST(SharedLlamaTest, LoopsAreInTheGameWithTheirTripCounts) {
  const std::string path = kDir + "/hlo_llama3_8b_cp_bf16_1x4.hlo";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  auto result = ImportHloFile(path, TestOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  const Workload& workload = result->workload;
  // Each loop, its body a one-trip loop inside it, and each conditional's
  // branch a one-trip loop of its own.
  std::vector<const Loop*> whiles;
  int branches = 0;
  for (const Loop& loop : workload.loops()) {
    if (!IsComputationLoop(loop.name())) whiles.push_back(&loop);
    branches += loop.name().ends_with(kBranchSuffix);
  }
  ASSERT_EQ(whiles.size(), 2u);
  EXPECT_EQ(whiles[0]->name(), "while.36");
  EXPECT_EQ(whiles[0]->trip_count(), 32);
  EXPECT_EQ(whiles[1]->name(), "while.37");
  EXPECT_EQ(whiles[1]->trip_count(), 32);
  EXPECT_EQ(branches, 9);
  // The bodies' buffers are buffers of the game (274 and 528 instructions
  // of body and condition in the module).
  int inside = 0;
  for (const Buffer& buffer : workload.buffers()) {
    for (const Loop& loop : workload.loops()) {
      inside += loop.trip_count() == 32 &&
                buffer.target_time() >= loop.first_step() &&
                buffer.target_time() <= loop.last_step();
    }
  }
  EXPECT_GT(inside, 1500);
  // The only approximation left: its conditionals run their slowest branch.
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find("9 conditionals modelled as their "
                                     "slowest branch"),
            std::string::npos)
      << result->warnings[0];
  absl::flat_hash_set<int> groups;
  for (const Buffer& buffer : workload.buffers()) {
    if (buffer.has_alias_id()) groups.insert(buffer.alias_id());
  }
  EXPECT_GT(groups.size(), 39u);
}

INSTANTIATE_TEST_SUITE_P(All, SharedModulesTest, ::testing::ValuesIn(kModules),
                         [](const auto& param_info) {
                           std::string name = param_info.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace mmapzero::hlo
