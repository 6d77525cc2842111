#include "cli/bound_report.h"

#include <algorithm>

namespace mmapzero::cli {

absl::StatusOr<std::optional<bound::OptimalityBound>> BoundIfAsked(
    const CommandLine& line, const Workload& workload) {
  if (!line.Has("bound")) return std::nullopt;
  absl::StatusOr<bound::OptimalityBound> computed =
      bound::ComputeBound(workload);
  if (!computed.ok()) return computed.status();
  return *std::move(computed);
}

double GapToBound(const bound::OptimalityBound& bound, double normalised) {
  return std::max(0.0, bound.normalised_return - normalised);
}

void AddBoundFields(const bound::OptimalityBound& bound, double normalised,
                    nlohmann::ordered_json& json) {
  json["bound_normalised_return"] = bound.normalised_return;
  json["bound_exact"] = bound.exact;
  json["gap"] = bound.normalised_return - normalised;
}

}  // namespace mmapzero::cli
