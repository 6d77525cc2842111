// Imports every real module of testdata/hlo (SOURCES.md) on tpu-v4i and
// checks what the import made of it against figures derived without the
// importer, then plays a random game on each and has it validated.
//
// The expected figures come from a one-off Python script over the module
// text (regular expressions only, no code shared with the importer): it
// counts the instructions that do work in the ENTRY computation (all but
// parameter, constant, tuple, get-tuple-element, bitcast, the bookkeeping
// ops partition-id, replica-id, after-all, get/set-dimension-size, the
// barriers opt-barrier, optimization-barrier, add-dependency, domain, and
// the `*-done` halves of async pairs), with every `call` replaced by the
// count of the computation it calls, and every `while` by the counts of
// its condition and body plus 2 (the loop's entry and exit markers); a
// `conditional` by the count of its smallest branch, and again of its
// largest. It counts the while loops it laid out that way.
// The importer adds copies XLA's copy insertion would add (provenance
// "loop_copies") and a marker step for each conditional whose branch does
// no work (opcode "conditional"), which the script does not see.
#include <algorithm>
#include <filesystem>
#include <string>

#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_test_util.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {
namespace {

const std::string kDir = MMAPZERO_SOURCE_DIR "/testdata/hlo";

struct CorpusModule {
  const char* file;
  // The script's counts (loop copies not included): with every conditional
  // as its smallest branch, and as its largest (0: the same); the importer
  // takes the slowest branch, somewhere in between.
  int instructions;
  int loops;
  int max_instructions = 0;
  int max_loops = 0;
  // Trip counts the module does not say (`--trip-counts`), or "".
  const char* trip_counts = "";
  // Loops whose trip count nothing says: one trip, with a warning.
  int unknown_trip_counts = 0;
};

constexpr CorpusModule kCorpus[] = {
    {"bert-tiny-adamw_pytorch_train_neuron.hlo", 858, 0},
    {"bert-tiny-fwdbwd_pytorch_train_neuron.hlo", 619, 0},
    {"clip-training_jax_train_gpu.hlo", 14284, 0},
    {"colabfold-inference_jax_infer_gpu.hlo", 5894, 11},
    {"deepseek-maxtext_jax_train_gpu.hlo", 9667, 4},
    {"deepseek2-16b-generate_jax_infer_gpu.hlo", 1051, 2},
    {"detr-training_jax_train_gpu.hlo", 9880, 0},
    {"dlrm-eval_jax_infer_cpu.hlo", 193, 0},
    {"dlrm_jax_train_cpu.hlo", 968, 0},
    {"gemma2-2b-generate_jax_infer_cpu.hlo", 11239, 1, 11239, 1, "while.14219=31", 0},
    {"gemma3-1b-forward_jax_infer_cpu.hlo", 7389, 0, 7917, 0, "", 0},
    {"gemma3-4b-generate_jax_infer_cpu.hlo", 17875, 1, 17875, 1, "while.7=100", 0},
    {"gemma4-2b-generate_jax_infer_gpu.hlo", 15436, 1, 15436, 1, "while.7=41", 0},
    {"gpt-j-6b-training_jax_train_gpu.hlo", 14509, 0},
    {"gpt3-52k-maxtext_jax_train_gpu.hlo", 1374, 2},
    {"graphsage_tf.hlo", 89, 0},
    {"hlo_llama3_8b_cp_bf16_1x4.hlo", 1324, 2, 1501, 2, "", 0},
    {"llama2-tiny_pytorch_train_neuron.hlo", 2605, 0},
    {"llama2-tp8pp4-optimizer_pytorch_train_neuron.hlo", 1083, 0},
    {"llama3-8b-offload_jax_train_gpu.hlo", 1167, 2},
    {"llama31-405b-fp8_jax_train_gpu.hlo", 2610, 2},
    {"llama31-70b-bf16_jax_train_gpu.hlo", 1271, 2},
    {"llama31-8b-unrolled_jax_train_gpu.hlo", 21163, 0},
    {"mixtral-8x7b-2x8_jax_train_gpu.hlo", 29306, 0},
    {"mixtral-8x7b_jax_train_gpu.hlo", 28339, 0},
    {"mlp-mixer-training_jax_train_gpu.hlo", 5768, 0},
    {"mobilenetv2_pytorch_train_cpu.hlo", 2384, 0},
    {"paligemma-training_jax_train_gpu.hlo", 8039, 2},
    {"qwen3-14b-training_jax_train_gpu.hlo", 1589, 2},
    {"resnet50-training_jax_train_gpu.hlo", 6961, 0},
    {"resnet50_jax_infer_cpu.hlo", 1417, 0},
    {"sd15-unet-inference_jax_infer_gpu.hlo", 14773, 1},
    {"ssd_mobilenet_tf.hlo", 329, 0},
    {"torax-sim_jax_infer_cpu.hlo", 15618, 14, 18805, 17, "", 1},
    {"vit-training_jax_train_gpu.hlo", 7134, 0},
};

TEST(HloCorpusTest, EveryModuleInTestdataIsListed) {
  int modules = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".hlo") continue;
    ++modules;
    bool listed = false;
    for (const CorpusModule& module : kCorpus) {
      listed |= entry.path().filename() == module.file;
    }
    EXPECT_TRUE(listed) << entry.path() << " is not in kCorpus";
  }
  EXPECT_EQ(modules, static_cast<int>(std::size(kCorpus)));
  EXPECT_GE(modules, 30);
}

class HloCorpusModuleTest : public ::testing::TestWithParam<CorpusModule> {};

TEST_P(HloCorpusModuleTest, ImportsWholeWithIndependentlyCountedFigures) {
  const CorpusModule& module = GetParam();
  const std::string path = kDir + "/" + module.file;
  HloImportOptions options = TestOptions();
  options.source_name = module.file;
  const std::string given = module.trip_counts;
  if (!given.empty()) {
    const size_t eq = given.find('=');
    options.trip_counts[given.substr(0, eq)] = std::stoll(given.substr(eq + 1));
  }
  auto result = ImportHloFile(path, options);
  ASSERT_TRUE(result.ok()) << result.status();
  const Workload& workload = result->workload;
  const auto& provenance = workload.provenance();
  int copies = provenance.contains("loop_copies")
                   ? std::stoi(provenance.at("loop_copies"))
                   : 0;
  for (const Instruction& instruction : workload.instructions()) {
    copies += instruction.opcode() == "conditional";  // a branch's marker
  }
  EXPECT_GE(workload.instructions_size() - copies, module.instructions);
  EXPECT_LE(workload.instructions_size() - copies,
            std::max(module.instructions, module.max_instructions));
  // Each while, and the one-trip loops of its body and of each
  // conditional's branch.
  int whiles = 0;
  for (const Loop& loop : workload.loops()) {
    EXPECT_GE(loop.trip_count(), 1);
    const bool computation = IsComputationLoop(loop.name());
    whiles += !computation;
    if (computation) {
      EXPECT_EQ(loop.trip_count(), 1) << loop.name();
    }
  }
  EXPECT_GE(whiles, module.loops);
  EXPECT_LE(whiles, std::max(module.loops, module.max_loops));
  // Every loop laid out with its trip count, but those nothing states.
  int unknown = 0;
  for (const std::string& warning : result->warnings) {
    EXPECT_EQ(warning.find("is one instruction"), std::string::npos)
        << warning;
    unknown += warning.find("trip count unknown") != std::string::npos;
  }
  EXPECT_EQ(unknown, module.unknown_trip_counts);
  ExpectRandomGameValidates(workload, /*seed=*/11);
}

INSTANTIATE_TEST_SUITE_P(All, HloCorpusModuleTest, ::testing::ValuesIn(kCorpus),
                         [](const auto& instance) {
                           return TestNameOfFile(instance.param.file);
                         });

}  // namespace
}  // namespace mmapzero::hlo
