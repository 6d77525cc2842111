#include "cli/best_start_report.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_format.h"

namespace mmapzero::cli {

std::string BestStartText(const v1::JobStatus& job) {
  if (job.best_starts() <= 0) return "-";
  const auto percent = [](int64_t part, int64_t whole) {
    return 100.0 * static_cast<double>(part) /
           static_cast<double>(std::max<int64_t>(1, whole));
  };
  // best_starts counts the games in play too, so it may pass games.
  return absl::StrFormat(
      "%d games started on it, %.1f %% of moves followed it, %d variations "
      "rejoined it (%d unchanged), window %d",
      job.best_starts(), percent(job.followed_moves(), job.moves()),
      job.rejoined(), job.unchanged(), job.best_start_window());
}

}  // namespace mmapzero::cli
