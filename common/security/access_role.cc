#include "common/security/access_role.h"

#include <vector>

namespace mmapzero::security {

std::string RoleName(Role role) {
  switch (role) {
    case Role::kClient:
      return "client";
    case Role::kWorker:
      return "worker";
    case Role::kAdmin:
      return "admin";
  }
  return "unknown";
}

std::optional<Role> ParseRole(absl::string_view name) {
  for (const Role role : {Role::kClient, Role::kWorker, Role::kAdmin}) {
    if (name == RoleName(role)) return role;
  }
  return std::nullopt;
}

namespace {

// "TYPE=VALUE" attributes of an RFC 2253 name, values unescaped; a
// separator (',' or '+') escaped with a backslash stays in the value.
std::vector<std::pair<std::string, std::string>> Attributes(
    absl::string_view subject) {
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string type, value;
  bool in_value = false;
  for (size_t i = 0; i < subject.size(); ++i) {
    const char c = subject[i];
    if (c == '\\' && i + 1 < subject.size()) {
      (in_value ? value : type) += subject[++i];
    } else if (c == ',' || c == '+') {
      attributes.emplace_back(type, value);
      type.clear();
      value.clear();
      in_value = false;
    } else if (c == '=' && !in_value) {
      in_value = true;
    } else {
      (in_value ? value : type) += c;
    }
  }
  if (!type.empty()) attributes.emplace_back(type, value);
  return attributes;
}

}  // namespace

std::optional<Role> RoleFromSubject(absl::string_view subject) {
  for (const auto& [type, value] : Attributes(subject)) {
    if (type == "OU") return ParseRole(value);
  }
  return std::nullopt;
}

}  // namespace mmapzero::security
