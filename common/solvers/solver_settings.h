// Reads a solver's settings (solver.h, SolverSettings: "population" -> "64")
// with defaults and ranges, and rejects keys the solver does not know, so a
// typo on the command line never silently falls back to a default. Every
// error is InvalidArgument naming the solver, the key and the value.
//
// It also records the value each setting took (given or default), for the
// Solution's SolverInfo.settings.
#ifndef MMAPZERO_COMMON_SOLVERS_SOLVER_SETTINGS_H_
#define MMAPZERO_COMMON_SOLVERS_SOLVER_SETTINGS_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

class SettingsReader {
 public:
  // `solver` prefixes every error message.
  SettingsReader(std::string solver, const SolverSettings& settings)
      : solver_(std::move(solver)), settings_(settings) {}

  // The integer setting `key` in [min, max], or `fallback` when absent.
  absl::StatusOr<int64_t> GetInt(const std::string& key, int64_t fallback,
                                 int64_t min, int64_t max);
  // The real setting `key` in [min, max], or `fallback` when absent.
  absl::StatusOr<double> GetDouble(const std::string& key, double fallback,
                                   double min, double max);
  // The setting `key`, one of `choices`, or `fallback` when absent.
  absl::StatusOr<std::string> GetChoice(const std::string& key,
                                        const std::string& fallback,
                                        const std::vector<std::string>& choices);
  // InvalidArgument naming the first key no Get* asked for, with the known
  // keys; call after reading every setting.
  absl::Status CheckNoUnknownKeys() const;

  // Every key read, with the value it took.
  const SolverSettings& effective() const { return effective_; }

 private:
  absl::Status OutOfRange(const std::string& key, const std::string& value,
                          const std::string& range) const;

  std::string solver_;
  SolverSettings settings_;
  SolverSettings effective_;
  std::set<std::string> known_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_SOLVER_SETTINGS_H_
