// The optimality bound as `solve`, `best` and `evaluate` add it with
// --bound (common/bound/optimality_bound.h): computed only when the flag is
// given, and reported with the same JSON fields and gap by each.
#ifndef MMAPZERO_CLI_BOUND_REPORT_H_
#define MMAPZERO_CLI_BOUND_REPORT_H_

#include <optional>

#include "absl/status/statusor.h"
#include "cli/command_line.h"
#include "common/bound/optimality_bound.h"
#include "nlohmann/json.hpp"
#include "proto/workload.pb.h"

namespace mmapzero::cli {

// The workload's bound when `line` has --bound, else nullopt.
absl::StatusOr<std::optional<bound::OptimalityBound>> BoundIfAsked(
    const CommandLine& line, const Workload& workload);

// How far a solution of normalised return `normalised` may be below the
// optimum: the bound less it, never negative.
double GapToBound(const bound::OptimalityBound& bound, double normalised);

// Adds bound_normalised_return, bound_exact and gap (the bound less
// `normalised`) to a command's JSON summary.
void AddBoundFields(const bound::OptimalityBound& bound, double normalised,
                    nlohmann::ordered_json& json);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_BOUND_REPORT_H_
