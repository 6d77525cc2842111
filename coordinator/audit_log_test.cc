// The audit log: one JSON object per line, appended across reopenings and
// into a new file once the old one is moved aside, every string escaped so
// that no caller's text breaks a line.
#include "coordinator/audit_log.h"

#include <stdio.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/base/read_file.h"
#include "coordinator/test_dir.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

TEST(AuditLogTest, OneEscapedObjectPerLineAppendedAcrossRestarts) {
  TestDir dir;
  const std::string path = dir.path() + "/audit.jsonl";
  const absl::Time at = absl::FromUnixMillis(1'796'000'000'123);
  {
    auto log = AuditLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    ASSERT_TRUE((*log)
                    ->Record(at, "job_submitted", "CN=alice,OU=client",
                             {{"job", "job-000001"}, {"name", "a \"b\"\n\\c"}})
                    .ok());
  }
  auto log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_TRUE((*log)
                  ->Record(at, "job_cancelled", "", {{"reason", "\x01"}})
                  .ok());
  const std::vector<std::string> lines =
      absl::StrSplit(*ReadWholeFile(path), '\n');
  ASSERT_EQ(lines.size(), 3u);  // two lines and the empty tail
  EXPECT_EQ(lines[0],
            "{\"ts\":\"2026-11-30T00:53:20.123Z\",\"event\":\"job_submitted\","
            "\"caller\":\"CN=alice,OU=client\",\"job\":\"job-000001\","
            "\"name\":\"a \\\"b\\\"\\n\\\\c\"}");
  EXPECT_EQ(lines[1],
            "{\"ts\":\"2026-11-30T00:53:20.123Z\",\"event\":\"job_cancelled\","
            "\"caller\":\"\",\"reason\":\"\\u0001\"}");
  EXPECT_EQ(lines[2], "");
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  // Rotated: the next line starts a new file.
  ASSERT_EQ(rename(path.c_str(), (path + ".1").c_str()), 0);
  ASSERT_TRUE((*log)->Record(at, "network_deleted", "", {}).ok());
  EXPECT_EQ(*ReadWholeFile(path),
            "{\"ts\":\"2026-11-30T00:53:20.123Z\",\"event\":\"network_deleted\","
            "\"caller\":\"\"}\n");
}

TEST(AuditLogTest, AnUnwritablePlaceIsAnErrorNamingIt) {
  const auto log = AuditLog::Open("/nonexistent-dir/audit.jsonl");
  EXPECT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("/nonexistent-dir/audit.jsonl"),
            std::string::npos);
}

}  // namespace
}  // namespace mmapzero::coordinator
