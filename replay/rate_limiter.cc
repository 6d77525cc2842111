#include "replay/rate_limiter.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::replay {

absl::Status RateLimiter::CanSample(int64_t windows,
                                    int64_t positions_held) const {
  if (positions_held < options_.min_positions) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replay: the table holds ", positions_held, " positions, training ",
        "starts at ", options_.min_positions, " (--min-positions)"));
  }
  if (options_.samples_per_insert <= 0) return absl::OkStatus();
  const double allowed =
      options_.samples_per_insert * static_cast<double>(inserted_) +
      static_cast<double>(options_.slack);
  if (static_cast<double>(sampled_ + windows) > allowed) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replay: rate limited: ", sampled_, " windows sampled for ", inserted_,
        " positions inserted; ", windows, " more would exceed ",
        options_.samples_per_insert, " per position + ", options_.slack,
        " (--samples-per-insert, --rate-limit-slack); insert more games"));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::replay
