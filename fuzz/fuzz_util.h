// Helpers the fuzz targets share: the input as text, and a solution played
// and checked on a workload that passed CheckWorkload.
#ifndef MMAPZERO_FUZZ_FUZZ_UTIL_H_
#define MMAPZERO_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/game/program.h"
#include "common/solvers/solver.h"
#include "common/validate/validator.h"
#include "proto/workload.pb.h"

namespace mmapzero::fuzz {

inline std::string AsText(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// For LLVMFuzzerInitialize: with MMAPZERO_FUZZ_SEED_DIR set, writes the
// target's seed corpus there with `write_seeds` and exits (0 when it
// wrote them); otherwise returns.
inline void WriteSeedsIfAsked(bool (*write_seeds)(const std::string& dir)) {
  const char* dir = std::getenv("MMAPZERO_FUZZ_SEED_DIR");
  if (dir == nullptr) return;
  std::exit(write_seeds(dir) ? 0 : 1);
}

// A crash in the fuzzer's own sense: an invariant that must hold for every
// input broke (abort, so libFuzzer keeps the input).
inline void Require(bool holds) {
  if (!holds) std::abort();
}

// `workload` passed CheckWorkload: the heuristic must solve it, and the
// independent validator must accept what it returns.
inline void SolveAndValidate(const Workload& workload) {
  auto program = game::Program::Create(workload);
  Require(program.ok());
  auto solver = solvers::MakeSolver("heuristic", {});
  Require(solver.ok());
  solvers::SolverBudget budget;
  budget.wall_time = absl::Seconds(5);
  auto solution = (*solver)->Solve(*program, budget);
  Require(solution.ok());
  Require(validate::ValidateSolution(workload, *solution).ok);
}

}  // namespace mmapzero::fuzz

#endif  // MMAPZERO_FUZZ_FUZZ_UTIL_H_
