#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "import_command_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

constexpr char kModule[] = R"(HloModule small
ENTRY e {
  p = f32[256]{0} parameter(0)
  n = f32[256]{0} negate(p)
  ROOT c = f32[] custom-call(n), custom_call_target="mystery"
}
)";

// Runs `import ARGS`, which must succeed; what it printed on stdout.
std::string ImportPrinting(const Args& args) {
  ::testing::internal::CaptureStdout();
  const absl::Status status = RunImport(args);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(status.ok()) << status;
  return printed;
}

TEST(ImportCommandTest, WritesCheckedWorkloadAndPrintsSummaryAndWarnings) {
  const std::string hlo = WriteFile("small.hlo", kModule);
  const std::string out = TempPath("small.json");
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const absl::Status status = RunImport(
      {hlo, "--hardware", "gpu-a100", "--out", out, "--memory-size=4096"});
  const std::string printed = ::testing::internal::GetCapturedStdout();
  const std::string warned = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(status.ok()) << status;
  absl::StatusOr<Workload> workload = ReadWorkload(out);
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_EQ(workload->instructions_size(), 2);
  EXPECT_EQ(workload->buffers_size(), 4);  // p, n; n, c
  EXPECT_EQ(workload->memory_size(), 4096);
  EXPECT_EQ(workload->hardware().name(), "gpu-a100");
  EXPECT_THAT(printed, HasSubstr("4 buffers, 2 instructions, 3 tensors, "
                                 "0 alias groups"));
  EXPECT_THAT(printed, HasSubstr("1 warnings"));
  EXPECT_THAT(printed,
              HasSubstr("not scheduled: using the entry computation's order"));
  EXPECT_THAT(warned, HasSubstr("small.hlo:5: custom-call 'mystery'"));
}

TEST(ImportCommandTest, ImportsARealModule) {
  const std::string hlo =
      MMAPZERO_SOURCE_DIR "/testdata/hlo/graphsage_tf.hlo";
  ASSERT_TRUE(std::filesystem::exists(hlo)) << hlo;
  const std::string out = TempPath("graphsage.pb");
  EXPECT_THAT(ImportPrinting({hlo, "--hardware=tpu-v4i", "--out", out,
                              "--alignment", "64"}),
              HasSubstr("89 instructions"));
  absl::StatusOr<Workload> workload = ReadWorkload(out);
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_EQ(workload->alignment(), 64);
}

TEST(ImportCommandTest, ImportsAMiniMallocInstanceWithItsCapacity) {
  const std::string csv =
      MMAPZERO_SOURCE_DIR "/testdata/minimalloc/A.1048576.csv";
  const std::string out = TempPath("A.json");
  EXPECT_THAT(ImportPrinting({csv, "--out", out}),
              HasSubstr("MiniMalloc instance, live peak"));
  absl::StatusOr<Workload> workload = ReadWorkload(out);
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_EQ(workload->memory_size(), 1048576);
  EXPECT_EQ(workload->buffers_size(), 154);  // the CSV's rows

  const std::string unnamed = WriteFile("packing.csv",
                                        "id,lower,upper,size\na,0,2,8\n");
  absl::Status status = RunImport({unnamed, "--out", out});
  EXPECT_THAT(status.message(), HasSubstr("--memory-size"));
  ASSERT_TRUE(RunImport({unnamed, "--out", out, "--memory-size", "8"}).ok());
  const std::string bad = WriteFile("bad.64.csv",
                                    "id,lower,upper,size\na,4,2,8\n");
  status = RunImport({bad, "--out", out});
  EXPECT_THAT(status.message(), HasSubstr(bad + ": line 2: needs 0 <= lower"));
}

TEST(ImportCommandTest, BadInputGivesErrorsNamingFileLineAndValue) {
  const std::string out = TempPath("bad.json");
  const std::string hlo = WriteFile(
      "bad.hlo", "HloModule bad\nENTRY e {\n  ROOT x = f32[2] warp()\n}\n");
  absl::Status status = RunImport({hlo, "--hardware", "tpu-v4i", "--out", out});
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat(hlo, ":3: unknown opcode 'warp'")));
  EXPECT_FALSE(std::filesystem::exists(out));

  status = RunImport({hlo, "--out", out});
  EXPECT_THAT(status.message(), HasSubstr("--hardware is required"));
  status = RunImport({hlo, "--hardware", "tpu-v9", "--out", out});
  EXPECT_THAT(status.message(), HasSubstr("--hardware"));
  EXPECT_THAT(status.message(), HasSubstr("tpu-v9"));
  status = RunImport(
      {hlo, "--hardware", "tpu-v4i", "--out", out, "--alignment", "0"});
  EXPECT_THAT(status.message(), HasSubstr("--alignment: must be >= 1, got 0"));
  status = RunImport({"--hardware", "tpu-v4i", "--out", out});
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace mmapzero::cli
