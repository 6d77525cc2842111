#include "common/base/malloc_tuning.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "absl/base/config.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

constexpr int kBlocks = 2000;
constexpr int64_t kBlockBytes = 100 << 10;  // 200 MB in all
constexpr int64_t kMostOfIt = 150 << 20;

#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || \
    defined(ABSL_HAVE_THREAD_SANITIZER) || defined(ABSL_HAVE_MEMORY_SANITIZER)
constexpr bool kSanitized = true;  // its allocator stands in for glibc's
#else
constexpr bool kSanitized = false;
#endif

// This process's resident memory in bytes (/proc/self/statm).
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0;
  int64_t resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// Allocates, writes and frees 200 MB in blocks that malloc serves from its
// heap (below the mmap threshold); the sum of a byte of each block.
int64_t AllocateWriteAndFree() {
  std::vector<char*> blocks;
  for (int i = 0; i < kBlocks; ++i) {
    char* block = static_cast<char*>(std::malloc(kBlockBytes));
    std::memset(block, 1, kBlockBytes);
    blocks.push_back(block);
  }
  int64_t sum = 0;
  for (char* block : blocks) {
    sum += block[kBlockBytes - 1];
    std::free(block);
  }
  return sum;
}

TEST(MallocTuningTest, FreedMemoryIsKeptUntilReleased) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's allocator replaces malloc";
  KeepFreedMemoryForReuse();
  ReleaseFreedMemory();  // what earlier tests freed: the blocks are new pages
  const int64_t before = ResidentBytes();
  ASSERT_EQ(AllocateWriteAndFree(), kBlocks);
  const int64_t kept = ResidentBytes();
  EXPECT_GT(kept - before, kMostOfIt);  // freed, and still resident
  ReleaseFreedMemory();
  EXPECT_LT(ResidentBytes(), kept - kMostOfIt);
}

TEST(MallocTuningTest, PeriodicReleaseGivesItBackAndStopsAtOnce) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's allocator replaces malloc";
  KeepFreedMemoryForReuse();
  ReleaseFreedMemory();
  ASSERT_EQ(AllocateWriteAndFree(), kBlocks);
  const int64_t kept = ResidentBytes();
  {
    const PeriodicMemoryRelease release(absl::Milliseconds(20));
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (ResidentBytes() > kept - kMostOfIt && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    EXPECT_LT(ResidentBytes(), kept - kMostOfIt);
  }
  const absl::Time start = absl::Now();
  { const PeriodicMemoryRelease release(absl::Hours(1)); }
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));  // not an hour's wait
}

}  // namespace
}  // namespace mmapzero
