#include "common/solvers/policy.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/solvers/preference_policy.h"
#include "common/solvers/random_policy.h"

namespace mmapzero::solvers {

using game::Action;

void PlayOut(game::MMapGame& game, Policy& policy) {
  while (!game.IsTerminal()) game.ApplyAction(policy.Choose(game));
}

std::vector<std::string> PolicyNames() {
  return {"random", "drop-all", "fast-first", "copy-first"};
}

absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(const std::string& name,
                                                   uint64_t seed) {
  if (name == "random") return std::make_unique<RandomPolicy>(seed);
  if (name == "drop-all") {
    return std::make_unique<PreferencePolicy>(
        name, std::array{Action::kDrop, Action::kNoCopy, Action::kCopy});
  }
  if (name == "fast-first") {
    return std::make_unique<PreferencePolicy>(
        name, std::array{Action::kNoCopy, Action::kCopy, Action::kDrop});
  }
  if (name == "copy-first") {
    return std::make_unique<PreferencePolicy>(
        name, std::array{Action::kCopy, Action::kNoCopy, Action::kDrop});
  }
  return absl::NotFoundError(absl::StrCat("unknown policy '", name, "'; known: ",
                                          absl::StrJoin(PolicyNames(), ", ")));
}

}  // namespace mmapzero::solvers
