#include "cli/best_start_report.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_format.h"

namespace mmapzero::cli {

std::string BestStartText(const v1::JobStatus& job) {
  if (job.best_starts() <= 0) return "-";
  const double followed_percent =
      100.0 * static_cast<double>(job.followed_moves()) /
      static_cast<double>(std::max<int64_t>(1, job.moves()));
  // best_starts counts the games in play too, so it may pass games.
  return absl::StrFormat(
      "%d games started on it, %.1f %% of moves followed it, %d variations "
      "rejoined it (%d unchanged), window %d",
      job.best_starts(), followed_percent, job.rejoined(), job.unchanged(),
      job.best_start_window());
}

}  // namespace mmapzero::cli
