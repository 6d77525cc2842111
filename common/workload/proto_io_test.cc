#include "common/workload/proto_io.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

class ProtoIoTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    return (std::filesystem::path(::testing::TempDir()) / name).string();
  }
  std::string Write(const std::string& name, const std::string& contents) {
    const std::string path = Path(name);
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }
  static Workload Tiny() {
    Workload workload;
    workload.set_name("tiny");
    workload.set_memory_size(1024);
    workload.add_instructions()->set_supply_us(1.5);
    Buffer* b = workload.add_buffers();
    b->set_size(64);
    b->set_tensor_id(0);
    b->set_demand_us(0.5);
    b->set_benefit_us(2);
    (*workload.mutable_provenance())["seed"] = "1";
    (*workload.mutable_provenance())["family"] = "mlp";
    return workload;
  }
};

TEST_F(ProtoIoTest, JsonAndBinaryRoundTrip) {
  for (const char* name : {"w.json", "w.pb"}) {
    const std::string path = Path(name);
    ASSERT_TRUE(WriteProtoFile(path, Tiny()).ok());
    auto read = ReadWorkload(path);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*read, Tiny()))
        << name;
  }
}

TEST_F(ProtoIoTest, WritingIsDeterministicWithSortedMapKeys) {
  ASSERT_TRUE(WriteProtoFile(Path("a.json"), Tiny()).ok());
  std::ifstream in(Path("a.json"));
  const std::string json((std::istreambuf_iterator<char>(in)), {});
  EXPECT_LT(json.find("\"family\""), json.find("\"seed\""));
  EXPECT_THAT(json, HasSubstr("\"memory_size\""));  // proto field names
}

TEST_F(ProtoIoTest, BadJsonNamesTheFile) {
  const std::string path = Write("bad.json", "{\"memory_size\": ");
  const auto read = ReadWorkload(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(read.status().message(), HasSubstr(path));
}

TEST_F(ProtoIoTest, UnknownFieldIsAnErrorNamingIt) {
  const std::string path = Write("unknown.json", "{\"memory_sise\": 5}");
  const auto read = ReadWorkload(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(read.status().message(), HasSubstr("memory_sise"));
}

TEST_F(ProtoIoTest, WrongTypeIsAnError) {
  const std::string path = Write("type.json", "{\"memory_size\": \"big\"}");
  EXPECT_THAT(ReadWorkload(path).status().message(), HasSubstr("memory_size"));
}

TEST_F(ProtoIoTest, EmptyMissingAndGarbageFilesAreErrors) {
  EXPECT_THAT(ReadWorkload(Write("empty.pb", "")).status().message(),
              HasSubstr("empty"));
  EXPECT_EQ(ReadWorkload(Path("missing.json")).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_THAT(ReadWorkload(Write("garbage.pb", "\xff\xff\xff\xff")).status().message(),
              HasSubstr("not a valid binary"));
}

TEST_F(ProtoIoTest, ParsedButInvalidWorkloadNamesFileAndField) {
  Workload workload = Tiny();
  workload.mutable_buffers(0)->set_size(-3);
  ASSERT_TRUE(WriteProtoFile(Path("neg.json"), workload).ok());
  const auto read = ReadWorkload(Path("neg.json"));
  EXPECT_THAT(read.status().message(), HasSubstr("neg.json"));
  EXPECT_THAT(read.status().message(), HasSubstr("buffers[0].size"));
  EXPECT_THAT(read.status().message(), HasSubstr("-3"));
}

TEST_F(ProtoIoTest, FailedWriteLeavesNoFile) {
  const std::string path = Path("no/such/dir/w.json");
  EXPECT_FALSE(WriteProtoFile(path, Tiny()).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

}  // namespace
}  // namespace mmapzero
