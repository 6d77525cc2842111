#include "common/rpc/enum_names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace mmapzero::rpc {
namespace {

// `name` less `prefix`, lower case; `fallback` when the enum has no name.
std::string ShortName(const std::string& name, absl::string_view prefix,
                      const std::string& fallback) {
  if (name.size() <= prefix.size() || !absl::StartsWith(name, prefix)) {
    return fallback;
  }
  return absl::AsciiStrToLower(name.substr(prefix.size()));
}

}  // namespace

std::string JobStateName(v1::JobState state) {
  return ShortName(v1::JobState_Name(state), "JOB_STATE_",
                   absl::StrCat("state-", state));
}

bool IsFinalJobState(v1::JobState state) {
  return state == v1::JOB_STATE_DONE || state == v1::JOB_STATE_CANCELLED ||
         state == v1::JOB_STATE_FAILED;
}

std::string WorkerRoleName(v1::WorkerRole role) {
  return ShortName(v1::WorkerRole_Name(role), "WORKER_ROLE_",
                   absl::StrCat("role-", role));
}

}  // namespace mmapzero::rpc
