#include "cli/local_role.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace mmapzero::cli {

const std::vector<LocalRole>& LocalRoles() {
  static const auto* roles = new std::vector<LocalRole>{
      LocalRole::kCoordinator, LocalRole::kReplay, LocalRole::kLearner,
      LocalRole::kActor, LocalRole::kReanalyse};
  return *roles;
}

std::string RoleName(LocalRole role) {
  switch (role) {
    case LocalRole::kCoordinator:
      return "coordinator";
    case LocalRole::kReplay:
      return "replay";
    case LocalRole::kLearner:
      return "learner";
    case LocalRole::kActor:
      return "actor";
    case LocalRole::kReanalyse:
      return "reanalyse";
    case LocalRole::kPrometheus:
      return "prometheus";
  }
  return "unknown";
}

std::optional<LocalRole> RoleNamed(absl::string_view name) {
  for (const LocalRole role : LocalRoles()) {
    if (name == RoleName(role)) return role;
  }
  if (name == RoleName(LocalRole::kPrometheus)) return LocalRole::kPrometheus;
  return std::nullopt;
}

std::optional<LocalRole> RoleOfService(absl::string_view service) {
  if (std::optional<LocalRole> role = RoleNamed(service)) return role;
  for (const LocalRole role : LocalRoles()) {
    if (!Numbered(role)) continue;
    const std::string prefix = RoleName(role) + "-";
    int instance = 0;
    if (service.substr(0, prefix.size()) == prefix &&
        absl::SimpleAtoi(service.substr(prefix.size()), &instance) &&
        instance >= 0) {
      return role;
    }
  }
  return std::nullopt;
}

std::pair<int, int> StartOrder(absl::string_view service) {
  const std::optional<LocalRole> role = RoleOfService(service);
  const std::vector<LocalRole>& roles = LocalRoles();
  const int place = static_cast<int>(
      role ? std::find(roles.begin(), roles.end(), *role) - roles.begin()
           : roles.size());
  int instance = 0;
  const size_t dash = service.rfind('-');
  if (dash == absl::string_view::npos ||
      !absl::SimpleAtoi(service.substr(dash + 1), &instance)) {
    instance = 0;
  }
  return {place, instance};
}

std::string ProgramOf(LocalRole role) {
  return role == LocalRole::kPrometheus ? "prometheus"
                                        : "mmapzero-" + RoleName(role);
}

bool ServesGrpc(LocalRole role) {
  return role == LocalRole::kCoordinator || role == LocalRole::kReplay ||
         role == LocalRole::kLearner;
}

bool Numbered(LocalRole role) {
  return role == LocalRole::kActor || role == LocalRole::kReanalyse;
}

std::optional<v1::WorkerRole> WorkerRoleOf(LocalRole role) {
  switch (role) {
    case LocalRole::kReplay:
      return v1::WORKER_ROLE_REPLAY;
    case LocalRole::kLearner:
      return v1::WORKER_ROLE_LEARNER;
    case LocalRole::kActor:
      return v1::WORKER_ROLE_ACTOR;
    case LocalRole::kReanalyse:
      return v1::WORKER_ROLE_REANALYSE;
    case LocalRole::kCoordinator:
    case LocalRole::kPrometheus:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace mmapzero::cli
