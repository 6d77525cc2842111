#include "common/base/read_file.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace mmapzero {
namespace {

TEST(ReadFileTest, WholeFileOrItsStartAndNotFoundNamingThePath) {
  const std::string path = ::testing::TempDir() + "/read_file_test.bin";
  const std::string bytes("head\0tail", 9);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_EQ(*ReadWholeFile(path), bytes);
  EXPECT_EQ(*ReadFilePrefix(path, 4), "head");
  EXPECT_EQ(*ReadFilePrefix(path, 100), bytes);  // a shorter file, whole
  EXPECT_EQ(*ReadFilePrefix(path, 0), "");
  const std::string missing = path + ".missing";
  for (const absl::Status& status :
       {ReadWholeFile(missing).status(), ReadFilePrefix(missing, 4).status()}) {
    EXPECT_TRUE(absl::IsNotFound(status)) << status;
    EXPECT_NE(status.message().find(missing), absl::string_view::npos);
  }
}

}  // namespace
}  // namespace mmapzero
