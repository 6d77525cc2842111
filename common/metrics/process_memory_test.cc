#include "common/metrics/process_memory.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/sanitized_build.h"
#include "gtest/gtest.h"

namespace mmapzero::metrics {
namespace {

constexpr int64_t kBlockBytes = 64 << 20;

TEST(ProcessMemoryTest, ReadsResidentMemoryAndThreads) {
  const ProcessMemory before = ReadProcessMemory();
  EXPECT_GT(before.resident_bytes, 0);
  EXPECT_GT(before.resident_file_bytes, 0);  // this test's own code
  EXPECT_LE(before.resident_anonymous_bytes + before.resident_file_bytes,
            before.resident_bytes);
  // Counted while one more thread lives, then after it ends. A sanitizer's
  // runtime may start a helper thread with the process's first thread, so
  // the count before any thread was made is no baseline; and a joined
  // thread can stay listed in /proc for a moment after join returns.
  absl::Notification release;
  std::thread other([&release] { release.WaitForNotification(); });
  const ProcessMemory with_other = ReadProcessMemory();
  release.Notify();
  other.join();
  int64_t threads_after = with_other.threads;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (threads_after != with_other.threads - 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    threads_after = ReadProcessMemory().threads;
  }
  EXPECT_GE(with_other.threads, 2);
  EXPECT_EQ(threads_after, with_other.threads - 1);
}

TEST(ProcessMemoryTest, MallocInUseFollowsAnAllocationAndItsFree) {
  if (kSanitizerReplacesMalloc)
    GTEST_SKIP() << "a sanitizer's allocator replaces malloc";
  const ProcessMemory before = ReadProcessMemory();
  char* block = static_cast<char*>(std::malloc(kBlockBytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlockBytes);  // resident, not only reserved
  const ProcessMemory holding = ReadProcessMemory();
  EXPECT_GE(holding.malloc_in_use_bytes - before.malloc_in_use_bytes,
            kBlockBytes);
  EXPECT_GE(holding.resident_anonymous_bytes - before.resident_anonymous_bytes,
            kBlockBytes / 2);
  std::free(block);
  const ProcessMemory after = ReadProcessMemory();
  EXPECT_LT(after.malloc_in_use_bytes,
            holding.malloc_in_use_bytes - kBlockBytes / 2);
}

TEST(ProcessMemoryTest, FamiliesNameEachFigure) {
  std::map<std::string, int> samples;
  for (const prometheus::MetricFamily& family : ProcessMemoryFamilies()) {
    samples[family.name] = static_cast<int>(family.metric.size());
  }
  EXPECT_EQ(samples,
            (std::map<std::string, int>{{"mmapzero_malloc_bytes", 2},
                                        {"mmapzero_resident_bytes", 2},
                                        {"process_resident_memory_bytes", 1},
                                        {"process_threads", 1}}));
}

}  // namespace
}  // namespace mmapzero::metrics
