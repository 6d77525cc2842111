// Structured log lines on stderr, one event per line, logfmt style:
//   ts=2024-05-01T12:00:00.123Z level=info component=coordinator
//   event=listening address="0.0.0.0:7070"
// No logging library: Debian's Abseil has no absl/log, and the services
// print little (startup, shutdown, server-side errors). Shared by every
// service.
#ifndef MMAPZERO_COMMON_SERVICE_LOG_LINE_H_
#define MMAPZERO_COMMON_SERVICE_LOG_LINE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace mmapzero::service {

using LogFields = std::vector<std::pair<std::string, std::string>>;

// The process's `component=` value (the service: "coordinator", "replay",
// ...); "mmapzero" until set. Call once from main.
void SetLogComponent(absl::string_view name);

// Writes the line atomically with respect to other LogLine calls. Values
// with spaces, quotes or '=' are quoted.
void LogLine(absl::string_view level, absl::string_view event,
             const LogFields& fields = {});

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_LOG_LINE_H_
