#include "common/service/log_line.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace mmapzero::service {
namespace {

std::string Quoted(absl::string_view value) {
  if (!value.empty() && value.find_first_of(" \"=\t\n") == value.npos) {
    return std::string(value);
  }
  return absl::StrCat(
      "\"",
      absl::StrReplaceAll(value,
                          {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}),
      "\"");
}

absl::Mutex component_mu(absl::kConstInit);
std::string* component ABSL_GUARDED_BY(component_mu) = nullptr;

std::string Component() {
  absl::MutexLock lock(&component_mu);
  return component == nullptr ? "mmapzero" : *component;
}

}  // namespace

void SetLogComponent(absl::string_view name) {
  absl::MutexLock lock(&component_mu);
  delete component;
  component = new std::string(name);
}

void LogLine(absl::string_view level, absl::string_view event,
             const LogFields& fields) {
  std::string line = absl::StrCat(
      "ts=",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(),
                       absl::UTCTimeZone()),
      " level=", level, " component=", Component(), " event=", Quoted(event));
  for (const auto& [key, value] : fields) {
    absl::StrAppend(&line, " ", key, "=", Quoted(value));
  }
  line += "\n";
  static absl::Mutex mu(absl::kConstInit);
  absl::MutexLock lock(&mu);
  std::cerr << line << std::flush;
}

}  // namespace mmapzero::service
