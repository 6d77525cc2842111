// A small disk for tests of what a service does when its disk fills up: a
// tmpfs of a given size mounted on a fresh folder. Fill() takes all its
// free space with a filler file, Free() gives it back, so a test can make
// a write fail with ENOSPC for real and then check the recovery. Mounting
// needs root (CI runs as root); mounted() is false otherwise and the test
// should skip, saying why.
#ifndef MMAPZERO_COMMON_BASE_SMALL_DISK_FOR_TESTS_H_
#define MMAPZERO_COMMON_BASE_SMALL_DISK_FOR_TESTS_H_

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace mmapzero {

class SmallDiskForTests {
 public:
  explicit SmallDiskForTests(int64_t bytes) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "small_disk_XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr) return;
    path_ = pattern;
    const std::string options = "size=" + std::to_string(bytes);
    mounted_ = ::mount("tmpfs", path_.c_str(), "tmpfs", 0,
                       options.c_str()) == 0;
  }
  ~SmallDiskForTests() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  SmallDiskForTests(const SmallDiskForTests&) = delete;
  SmallDiskForTests& operator=(const SmallDiskForTests&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& path() const { return path_; }

  // Writes a filler file until the disk is full.
  void Fill() {
    const int fd = ::open(Filler().c_str(), O_WRONLY | O_CREAT | O_APPEND,
                          0644);
    if (fd < 0) return;
    const std::vector<char> block(4096, 'f');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    // The last partial block, byte by byte.
    while (::write(fd, block.data(), 1) > 0) {
    }
    ::close(fd);
  }
  void Free() { ::unlink(Filler().c_str()); }

 private:
  std::string Filler() const { return path_ + "/.filler"; }

  std::string path_;
  bool mounted_ = false;
};

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_SMALL_DISK_FOR_TESTS_H_
