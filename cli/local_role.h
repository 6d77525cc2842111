// The roles of a local cluster's processes (`mmapctl local up`), typed:
// the coordinator, the four worker roles of proto/worker.proto's
// v1::WorkerRole (replay, learner, actor, reanalyse; WorkerRoleOf) and
// Prometheus, which `up --prometheus` starts last beside them. The
// coordinator and Prometheus are no worker roles, hence an enum of its
// own. A service's name is its role's ("learner"), numbered for the roles
// that run several ("actor-0"); its program is mmapzero-<role>.
#ifndef MMAPZERO_CLI_LOCAL_ROLE_H_
#define MMAPZERO_CLI_LOCAL_ROLE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/worker.pb.h"

namespace mmapzero::cli {

enum class LocalRole {
  kCoordinator,
  kReplay,
  kLearner,
  kActor,
  kReanalyse,
  kPrometheus
};

// The cluster's roles in start order (Prometheus, never planned, not
// among them).
const std::vector<LocalRole>& LocalRoles();

// "coordinator", "replay", ..., "prometheus".
std::string RoleName(LocalRole role);
// The role of that name (RoleName's inverse), or none.
std::optional<LocalRole> RoleNamed(absl::string_view name);
// The role of a service's name ("actor-3" -> kActor), or none.
std::optional<LocalRole> RoleOfService(absl::string_view service);
// Start order of a service's name: its role's place, then its number.
std::pair<int, int> StartOrder(absl::string_view service);

// The program the role's process runs ("mmapzero-learner", "prometheus").
std::string ProgramOf(LocalRole role);
// Coordinator, replay and learner serve gRPC (and health); actors and
// reanalysers only call out.
bool ServesGrpc(LocalRole role);
// Actors and reanalysers run several, numbered.
bool Numbered(LocalRole role);
// The worker role it registers with the coordinator as; none for the
// coordinator and Prometheus.
std::optional<v1::WorkerRole> WorkerRoleOf(LocalRole role);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_LOCAL_ROLE_H_
