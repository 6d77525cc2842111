#include "cli/command_line.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mmapzero::cli {

absl::StatusOr<CommandLine> CommandLine::Parse(
    const std::vector<std::string>& args,
    const std::set<std::string>& value_flags,
    const std::set<std::string>& bool_flags) {
  CommandLine line;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      line.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_inline_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline_value = true;
    }
    if (bool_flags.count(name)) {
      if (has_inline_value) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " takes no value, got '", value, "'"));
      }
      line.flags_[name] = "true";
    } else if (value_flags.count(name)) {
      if (!has_inline_value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", name, " needs a value"));
        }
        value = args[++i];
      }
      line.flags_[name] = value;
    } else {
      std::vector<std::string> known;
      for (const auto& f : value_flags) known.push_back("--" + f);
      for (const auto& f : bool_flags) known.push_back("--" + f);
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown flag --", name, known.empty() ? "" : "; known: ",
          absl::StrJoin(known, ", ")));
    }
  }
  return line;
}

std::string CommandLine::GetString(const std::string& flag,
                                   const std::string& fallback) const {
  auto it = flags_.find(flag);
  return it == flags_.end() ? fallback : it->second;
}

absl::StatusOr<int64_t> CommandLine::GetInt(const std::string& flag,
                                            int64_t fallback) const {
  auto it = flags_.find(flag);
  if (it == flags_.end()) return fallback;
  int64_t value;
  if (!absl::SimpleAtoi(it->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": not an integer: '", it->second, "'"));
  }
  return value;
}

absl::StatusOr<double> CommandLine::GetDouble(const std::string& flag,
                                              double fallback) const {
  auto it = flags_.find(flag);
  if (it == flags_.end()) return fallback;
  double value;
  if (!absl::SimpleAtod(it->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": not a number: '", it->second, "'"));
  }
  return value;
}

absl::StatusOr<std::string> CommandLine::GetRequired(
    const std::string& flag, const std::string& usage) const {
  if (GetString(flag, "").empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " is required; usage: mmapctl ", usage));
  }
  return GetString(flag, "");
}

absl::Status FlagError(const std::string& flag, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("--", flag, ": ", status.message()));
}

absl::Status CommandLine::ExpectPositional(size_t count,
                                           const std::string& usage) const {
  if (positional_.size() == count) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("expected ", count, " argument(s), got ", positional_.size(),
                   "; usage: mmapctl ", usage));
}

}  // namespace mmapzero::cli
