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
  int whiles;
};

// Figures from the script described above.
constexpr Expected kModules[] = {
    {"graphsage_tf.hlo", 126, 89, 89, 232036, 7, 474624, 0},
    {"ssd_mobilenet_tf.hlo", 508, 329, 329, 119479386, 47, 2474258816.0, 0},
    {"hlo_llama3_8b_cp_bf16_1x4.hlo", 734, 646, 682, 315122420368, 6, -1, 2},
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
  // The only approximation: each while loop is one instruction.
  ASSERT_EQ(result->warnings.size(), static_cast<size_t>(expected.whiles));
  for (const std::string& warning : result->warnings) {
    EXPECT_NE(warning.find("while '"), std::string::npos) << warning;
  }
  EXPECT_EQ(workload.provenance().at("hlo_entry_instructions"),
            std::to_string(expected.entry_instructions));
  EXPECT_EQ(workload.provenance().at("is_scheduled"), "false");
  EXPECT_EQ(workload.instructions_size(), expected.instructions);

  int outputs = 0, contractions = 0, whiles = 0;
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
    whiles += instruction.opcode() == "while";
  }
  EXPECT_EQ(outputs, expected.output_buffers);
  EXPECT_EQ(output_bytes, expected.output_bytes);
  EXPECT_EQ(contractions, expected.contractions);
  if (expected.contraction_flops >= 0) {
    EXPECT_DOUBLE_EQ(flops, expected.contraction_flops);
  }
  EXPECT_EQ(whiles, expected.whiles);
  ExpectRandomGameValidates(workload, /*seed=*/7);
}

TEST(SharedLlamaTest, AliasesLoopStateAndUpdatedParameters) {
  const std::string path = kDir + "/hlo_llama3_8b_cp_bf16_1x4.hlo";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  auto result = ImportHloFile(path, TestOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  absl::flat_hash_set<int> groups;
  for (const Buffer& buffer : result->workload.buffers()) {
    if (buffer.has_alias_id()) groups.insert(buffer.alias_id());
  }
  // At most one group per while-state leaf (16 + 22) and per
  // input_output_alias entry (39); both kinds must be present.
  EXPECT_GT(groups.size(), 39u);
  EXPECT_LE(groups.size(), 16u + 22u + 39u);
  // The two decoder loops run 32 times: their compute term is large.
  for (const Instruction& instruction : result->workload.instructions()) {
    if (instruction.opcode() == "while") {
      EXPECT_GT(instruction.roofline().compute_us(), 1e5) << instruction.name();
    }
  }
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
