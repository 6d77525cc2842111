#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "common/solvers/solver.h"
#include "common/solvers/solver_factories.h"

namespace mmapzero::solvers {
namespace {

struct Entry {
  const char* name;
  absl::StatusOr<std::unique_ptr<Solver>> (*make)(const SolverSettings&);
};

const std::vector<Entry>& Entries() {
  static const auto* entries = new std::vector<Entry>{
      {"heuristic", MakeHeuristicSolver}, {"es", MakeEvolutionSolver},
      {"brkga", MakeBrkgaSolver},         {"random", MakeRandomSolver},
      {"drop-all", MakeDropAllSolver},    {"portfolio", MakePortfolioSolver},
      {"race", MakeRaceSolver},
  };
  return *entries;
}

// Solvers added by RegisterSolver, in registration order.
class Registered {
 public:
  void Add(const std::string& name, SolverFactory factory)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    for (auto& [known, make] : factories_) {
      if (known == name) {
        make = std::move(factory);
        return;
      }
    }
    factories_.emplace_back(name, std::move(factory));
  }
  // The factory called `name`, or an empty one.
  SolverFactory Find(const std::string& name) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    for (const auto& [known, make] : factories_) {
      if (known == name) return make;
    }
    return nullptr;
  }
  std::vector<std::string> Names() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> names;
    for (const auto& entry : factories_) names.push_back(entry.first);
    return names;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::pair<std::string, SolverFactory>> factories_
      ABSL_GUARDED_BY(mu_);
};

Registered& RegisteredSolvers() {
  static auto* registered = new Registered;
  return *registered;
}

bool IsBuiltIn(const std::string& name) {
  for (const Entry& entry : Entries()) {
    if (name == entry.name) return true;
  }
  return false;
}

}  // namespace

void RegisterSolver(const std::string& name, SolverFactory factory) {
  if (IsBuiltIn(name)) return;
  RegisteredSolvers().Add(name, std::move(factory));
}

std::vector<std::string> SolverNames() {
  std::vector<std::string> names;
  for (const Entry& entry : Entries()) names.push_back(entry.name);
  for (std::string& name : RegisteredSolvers().Names()) {
    names.push_back(std::move(name));
  }
  return names;
}

absl::StatusOr<std::unique_ptr<Solver>> MakeSolver(
    const std::string& name, const SolverSettings& settings) {
  for (const Entry& entry : Entries()) {
    if (name == entry.name) return entry.make(settings);
  }
  if (const SolverFactory make = RegisteredSolvers().Find(name)) {
    return make(settings);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown solver '", name,
                   "'; known: ", absl::StrJoin(SolverNames(), ", ")));
}

}  // namespace mmapzero::solvers
