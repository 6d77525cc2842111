#include "common/service/crash_guard.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "common/service/log_line.h"

namespace mmapzero::service {

std::string RunCatchingCrash(const std::string& job_id,
                             const std::function<void()>& body) {
  std::string crash;
  try {
    body();
    return "";
  } catch (const std::exception& e) {
    crash = absl::StrCat("uncaught exception: ", e.what());
  } catch (...) {
    crash = "uncaught exception of an unknown type";
  }
  // LibTorch's messages carry a whole backtrace: keep the head.
  constexpr size_t kMaxLength = 2000;
  if (crash.size() > kMaxLength) crash.resize(kMaxLength);
  LogLine("error", "job_crashed", {{"job", job_id}, {"error", crash}});
  return crash;
}

}  // namespace mmapzero::service
