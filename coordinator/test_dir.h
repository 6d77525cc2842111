// A fresh temporary folder per test, removed afterwards (coordinator tests).
#ifndef MMAPZERO_COORDINATOR_TEST_DIR_H_
#define MMAPZERO_COORDINATOR_TEST_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace mmapzero::coordinator {

class TestDir {
 public:
  TestDir() {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "coordinator_XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    }
    path_ = pattern;
  }
  ~TestDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_TEST_DIR_H_
