#include "common/base/malloc_tuning.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/sanitized_build.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

constexpr int kBlocks = 2000;
constexpr int64_t kBlockBytes = 100 << 10;  // 200 MB in all
constexpr int64_t kMostOfIt = 150 << 20;

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
  if (kSanitizerReplacesMalloc)
    GTEST_SKIP() << "a sanitizer's allocator replaces malloc";
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
  if (kSanitizerReplacesMalloc)
    GTEST_SKIP() << "a sanitizer's allocator replaces malloc";
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

// The number of arenas malloc has made so far (malloc_info's <heap>s).
int MallocArenas() {
  char* text = nullptr;
  size_t size = 0;
  FILE* stream = open_memstream(&text, &size);
  malloc_info(0, stream);
  std::fclose(stream);
  int heaps = 0;
  for (const char* at = text; (at = std::strstr(at, "<heap nr=")); ++at) {
    ++heaps;
  }
  std::free(text);
  return heaps;
}

TEST(MallocTuningTest, OneArenaPerCore) {
  if (kSanitizerReplacesMalloc)
    GTEST_SKIP() << "a sanitizer's allocator replaces malloc";
  KeepFreedMemoryForReuse();
  const int before = MallocArenas();
  // Many threads allocating at once: glibc would give most of them an
  // arena of their own (up to eight per core).
  constexpr int kThreads = 24;
  std::barrier all_allocated(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&all_allocated] {
      void* block = std::malloc(1000);
      all_allocated.arrive_and_wait();
      std::free(block);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(MallocArenas(), std::max(before, MallocArenaLimit()));
  EXPECT_GE(MallocArenaLimit(), 2);
}

}  // namespace
}  // namespace mmapzero
