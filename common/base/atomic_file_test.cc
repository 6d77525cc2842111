#include "common/base/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicFileTest, WritesThenReplacesWholeLeavingNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/atomic_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/state.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "first\n").ok());
  EXPECT_EQ(Read(path), "first\n");
  const std::string big(3 << 20, 'x');  // more than one write() may take
  ASSERT_TRUE(WriteFileAtomically(path, big).ok());
  EXPECT_EQ(Read(path), big);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_TRUE(SyncDirectory(dir).ok());
}

TEST(AtomicFileTest, ErrorsNameThePathAndKeepTheOldFile) {
  const std::string missing = ::testing::TempDir() + "/no/such/folder/x.txt";
  const absl::Status status = WriteFileAtomically(missing, "text");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(missing));
  EXPECT_THAT(SyncDirectory(::testing::TempDir() + "/no/such").message(),
              HasSubstr("/no/such"));
  // A folder where the file should go: the rename fails, the temporary goes.
  const std::string dir = ::testing::TempDir() + "/atomic_file_dir_target";
  std::filesystem::create_directories(dir + "/occupied");
  std::ofstream(dir + "/occupied/keep") << "kept";
  EXPECT_THAT(WriteFileAtomically(dir + "/occupied", "text").message(),
              HasSubstr("cannot rename"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/occupied.tmp"));
  EXPECT_EQ(Read(dir + "/occupied/keep"), "kept");
}

}  // namespace
}  // namespace mmapzero
