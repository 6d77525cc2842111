// A parsed `mmapctl COMMAND ...` line: positional arguments and --flags.
// Flags are `--name value` or `--name=value`; a flag listed as boolean
// (e.g. --json) takes no value. Unknown flags are errors, so a typo never
// silently falls back to a default.
#ifndef MMAPZERO_CLI_COMMAND_LINE_H_
#define MMAPZERO_CLI_COMMAND_LINE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mmapzero::cli {

class CommandLine {
 public:
  // Parses args (after the command name). `value_flags` take a value,
  // `bool_flags` do not.
  static absl::StatusOr<CommandLine> Parse(
      const std::vector<std::string>& args,
      const std::set<std::string>& value_flags,
      const std::set<std::string>& bool_flags);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& flag) const { return flags_.count(flag) > 0; }
  std::string GetString(const std::string& flag,
                        const std::string& fallback) const;
  // Errors name the flag and the value that is not a number.
  absl::StatusOr<int64_t> GetInt(const std::string& flag,
                                 int64_t fallback) const;
  absl::StatusOr<double> GetDouble(const std::string& flag,
                                   double fallback) const;
  // The value of a flag that must be given; InvalidArgument quoting `usage`
  // when it is missing or empty.
  absl::StatusOr<std::string> GetRequired(const std::string& flag,
                                          const std::string& usage) const;
  // InvalidArgument unless exactly `count` positional arguments were given;
  // `usage` is quoted in the message.
  absl::Status ExpectPositional(size_t count, const std::string& usage) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> flags_;
};

// `status` with "--flag: " in front of its message, for errors about the
// value a flag named.
absl::Status FlagError(const std::string& flag, const absl::Status& status);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_COMMAND_LINE_H_
