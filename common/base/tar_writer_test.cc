#include "common/base/tar_writer.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/base/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

std::string Read(const std::string& path) {
  return ReadWholeFile(path).value_or("");
}

// The archive's bytes as TarWriter hands them on.
struct Archive {
  std::string bytes;
  TarWriter writer{[this](std::string_view piece) {
                     bytes.append(piece);
                     return absl::OkStatus();
                   },
                   1764000000};
};

// System tar, the reader users have, unpacks what TarWriter wrote: names,
// contents of every length (empty, one block exactly, binary), modes.
TEST(TarWriterTest, SystemTarExtractsEveryMember) {
  const std::string dir = ::testing::TempDir() + "/tar_writer_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/out");
  std::string binary;
  for (int i = 0; i < 1000; ++i) binary.push_back(static_cast<char>(i % 256));
  Archive archive;
  ASSERT_TRUE(archive.writer.AddFile("job-000007/status.json", "{}\n").ok());
  ASSERT_TRUE(archive.writer.AddFile("job-000007/empty", "").ok());
  ASSERT_TRUE(
      archive.writer.AddFile("job-000007/block", std::string(512, 'b')).ok());
  ASSERT_TRUE(
      archive.writer.AddFile("job-000007/network.pt", binary, 0600).ok());
  ASSERT_TRUE(archive.writer.Finish().ok());
  EXPECT_EQ(archive.bytes.size() % 512, 0u);
  EXPECT_EQ(archive.writer.bytes_written(),
            static_cast<int64_t>(archive.bytes.size()));
  {
    std::ofstream out(dir + "/job.tar", std::ios::binary);
    out << archive.bytes;
  }
  ASSERT_EQ(std::system(("tar -xf " + dir + "/job.tar -C " + dir + "/out 2>" +
                         dir + "/tar.err")
                            .c_str()),
            0)
      << Read(dir + "/tar.err");
  EXPECT_EQ(Read(dir + "/out/job-000007/status.json"), "{}\n");
  EXPECT_EQ(Read(dir + "/out/job-000007/empty"), "");
  EXPECT_EQ(Read(dir + "/out/job-000007/block"), std::string(512, 'b'));
  EXPECT_EQ(Read(dir + "/out/job-000007/network.pt"), binary);
  EXPECT_EQ(
      std::filesystem::status(dir + "/out/job-000007/network.pt")
              .permissions() &
          std::filesystem::perms::all,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // The listing reads the header's time and sizes back.
  ASSERT_EQ(
      std::system(("TZ=UTC tar -tvf " + dir + "/job.tar > " + dir + "/list.txt")
                      .c_str()),
      0);
  const std::string listing = Read(dir + "/list.txt");
  EXPECT_THAT(listing, HasSubstr("1000 2025-11-24"));
  EXPECT_THAT(listing, HasSubstr("job-000007/network.pt"));
}

TEST(TarWriterTest, RefusesWhatUstarCannotHold) {
  Archive archive;
  const absl::Status long_name =
      archive.writer.AddFile(std::string(101, 'n'), "x");
  EXPECT_EQ(long_name.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(long_name.message(), HasSubstr("1 to 100 bytes, got 101"));
  EXPECT_EQ(archive.writer.AddFile("", "x").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(archive.bytes.empty());
  ASSERT_TRUE(archive.writer.Finish().ok());
  EXPECT_EQ(archive.writer.AddFile("late", "x").code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(TarWriterTest, PassesOnTheSinksError) {
  TarWriter writer(
      [](std::string_view) {
        return absl::ResourceExhaustedError("disk full");
      },
      0);
  EXPECT_EQ(writer.AddFile("a", "b").code(),
            absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace mmapzero
