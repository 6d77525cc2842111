#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "generate_command_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(GenerateCommandTest, WritesCheckedWorkloadAndPrintsSummary) {
  const std::string out = TempPath("mlp.json");
  ::testing::internal::CaptureStdout();
  const absl::Status status =
      RunGenerate({"--family", "mlp", "--buffers", "300", "--seed", "1",
                   "--out", out, "--profile=gpu-a100"});
  const std::string printed = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(status.ok()) << status;
  absl::StatusOr<Workload> workload = ReadWorkload(out);
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_NEAR(workload->buffers_size(), 300, 30);
  EXPECT_EQ(workload->hardware().name(), "gpu-a100");
  EXPECT_EQ(workload->provenance().at("mode"), "training");
  EXPECT_THAT(printed,
              HasSubstr(absl::StrCat(workload->buffers_size(), " buffers")));
  EXPECT_THAT(printed, HasSubstr("alias groups"));
  EXPECT_THAT(printed, HasSubstr("peak live"));
}

// Equal as messages: the provenance map's order in the bytes is up to the
// protobuf writer.
TEST(GenerateCommandTest, SameSeedWritesSameWorkload) {
  const std::string a = TempPath("a.pb");
  const std::string b = TempPath("b.pb");
  for (const std::string& out : {a, b}) {
    ::testing::internal::CaptureStdout();
    const absl::Status status =
        RunGenerate({"--family", "lstm", "--mode", "inference", "--buffers",
                     "200", "--seed", "5", "--out", out});
    ::testing::internal::GetCapturedStdout();
    ASSERT_TRUE(status.ok()) << status;
  }
  Workload wa;
  Workload wb;
  ASSERT_TRUE(ReadProtoFile(a, &wa).ok());
  ASSERT_TRUE(ReadProtoFile(b, &wb).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(wa, wb));
}

TEST(GenerateCommandTest, StaticFeaturesReplaceLatencyModels) {
  const std::string out = TempPath("static.json");
  ::testing::internal::CaptureStdout();
  const absl::Status status = RunGenerate(
      {"--family", "cnn", "--buffers", "150", "--seed", "2", "--out", out,
       "--static-features", "--memory-size", "4194304", "--alignment", "256"});
  ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(status.ok()) << status;
  absl::StatusOr<Workload> workload = ReadWorkload(out);
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_EQ(workload->memory_size(), 4194304);
  EXPECT_EQ(workload->alignment(), 256);
  for (const Instruction& instruction : workload->instructions()) {
    EXPECT_EQ(instruction.latency_case(), Instruction::LATENCY_NOT_SET);
    EXPECT_TRUE(instruction.has_supply_us());
  }
  for (const Buffer& buffer : workload->buffers()) {
    EXPECT_TRUE(buffer.has_demand_us() && buffer.has_benefit_us());
  }
}

TEST(GenerateCommandTest, UnknownFamilyNamesFlagAndKnownFamilies) {
  const absl::Status status =
      RunGenerate({"--family", "gan", "--buffers", "100", "--seed", "1",
                   "--out", TempPath("x.json")});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--family"));
  EXPECT_THAT(status.message(), HasSubstr("'gan'"));
  EXPECT_THAT(status.message(), HasSubstr("mlp, cnn, transformer, lstm"));
}

TEST(GenerateCommandTest, BadValuesNameTheirFlag) {
  const std::string out = TempPath("x.json");
  EXPECT_THAT(RunGenerate({"--family", "mlp", "--buffers", "lots", "--seed",
                           "1", "--out", out})
                  .message(),
              HasSubstr("--buffers"));
  EXPECT_THAT(RunGenerate({"--family", "mlp", "--buffers", "0", "--seed", "1",
                           "--out", out})
                  .message(),
              HasSubstr("--buffers: must be in [1, "));
  EXPECT_THAT(RunGenerate({"--family", "mlp", "--buffers", "100", "--seed", "1",
                           "--out", out, "--mode", "eval"})
                  .message(),
              HasSubstr("--mode"));
  const absl::Status profile =
      RunGenerate({"--family", "mlp", "--buffers", "100", "--seed", "1",
                   "--out", out, "--profile", "tpu-v9"});
  EXPECT_THAT(profile.message(), HasSubstr("--profile"));
  EXPECT_THAT(profile.message(), HasSubstr("gpu-a100"));
  EXPECT_THAT(RunGenerate({"--family", "mlp", "--buffers", "100", "--seed", "1",
                           "--out", out, "--memory-size", "-3"})
                  .message(),
              HasSubstr("--memory-size"));
}

TEST(GenerateCommandTest, UnknownOrMissingFlagsAreErrors) {
  EXPECT_THAT(RunGenerate({"--family", "mlp", "--buffers", "100", "--seed", "1",
                           "--out", TempPath("x.json"), "--bogus", "1"})
                  .message(),
              HasSubstr("--bogus"));
  EXPECT_THAT(
      RunGenerate({"--family", "mlp", "--buffers", "100", "--seed", "1"})
          .message(),
      HasSubstr("--out is required"));
  EXPECT_THAT(RunGenerate({"--buffers", "100", "--seed", "1", "--out",
                           TempPath("x.json")})
                  .message(),
              HasSubstr("--family is required"));
}

}  // namespace
}  // namespace mmapzero::cli
