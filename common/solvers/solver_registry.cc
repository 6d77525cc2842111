#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
  };
  return *entries;
}

}  // namespace

std::vector<std::string> SolverNames() {
  std::vector<std::string> names;
  for (const Entry& entry : Entries()) names.push_back(entry.name);
  return names;
}

absl::StatusOr<std::unique_ptr<Solver>> MakeSolver(
    const std::string& name, const SolverSettings& settings) {
  for (const Entry& entry : Entries()) {
    if (name == entry.name) return entry.make(settings);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown solver '", name,
                   "'; known: ", absl::StrJoin(SolverNames(), ", ")));
}

}  // namespace mmapzero::solvers
