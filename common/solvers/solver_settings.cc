#include "common/solvers/solver_settings.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mmapzero::solvers {

absl::Status SettingsReader::OutOfRange(const std::string& key,
                                        const std::string& value,
                                        const std::string& range) const {
  return absl::InvalidArgumentError(absl::StrCat(
      solver_, ": setting ", key, ": must be ", range, ", got '", value, "'"));
}

absl::StatusOr<int64_t> SettingsReader::GetInt(const std::string& key,
                                               int64_t fallback, int64_t min,
                                               int64_t max) {
  known_.insert(key);
  int64_t value = fallback;
  if (auto it = settings_.find(key); it != settings_.end()) {
    const std::string range =
        absl::StrCat("an integer in [", min, ", ", max, "]");
    if (!absl::SimpleAtoi(it->second, &value)) {
      return OutOfRange(key, it->second, range);
    }
    if (value < min || value > max) return OutOfRange(key, it->second, range);
  }
  effective_[key] = absl::StrCat(value);
  return value;
}

absl::StatusOr<double> SettingsReader::GetDouble(const std::string& key,
                                                 double fallback, double min,
                                                 double max) {
  known_.insert(key);
  double value = fallback;
  if (auto it = settings_.find(key); it != settings_.end()) {
    const std::string range =
        absl::StrCat("a number in [", min, ", ", max, "]");
    if (!absl::SimpleAtod(it->second, &value) || !std::isfinite(value)) {
      return OutOfRange(key, it->second, range);
    }
    if (value < min || value > max) return OutOfRange(key, it->second, range);
  }
  effective_[key] = absl::StrCat(value);
  return value;
}

absl::StatusOr<std::string> SettingsReader::GetChoice(
    const std::string& key, const std::string& fallback,
    const std::vector<std::string>& choices) {
  known_.insert(key);
  std::string value = fallback;
  if (auto it = settings_.find(key); it != settings_.end()) {
    value = it->second;
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      return OutOfRange(key, value,
                        absl::StrCat("one of ", absl::StrJoin(choices, ", ")));
    }
  }
  effective_[key] = value;
  return value;
}

absl::Status SettingsReader::CheckNoUnknownKeys() const {
  for (const auto& [key, value] : settings_) {
    if (known_.count(key)) continue;
    const std::vector<std::string> known(known_.begin(), known_.end());
    return absl::InvalidArgumentError(absl::StrCat(
        solver_, ": unknown setting ", key, "=", value,
        "; known: ", known.empty() ? "none" : absl::StrJoin(known, ", ")));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::solvers
