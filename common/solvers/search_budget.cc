#include "common/solvers/search_budget.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace mmapzero::solvers {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t MixSeed(uint64_t seed, uint64_t a, uint64_t b) {
  return SplitMix64(SplitMix64(SplitMix64(seed) ^ a) ^ b);
}

double UniformFromSeed(uint64_t seed, uint64_t salt) {
  return (static_cast<double>(MixSeed(seed, salt, 0) >> 11) + 0.5) * 0x1.0p-53;
}

absl::Status SearchBudget::Check(const SolverBudget& budget) {
  if (budget.threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads: must be >= 1, got ", budget.threads));
  }
  if (budget.max_evaluations < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluations: must be >= 0 (0: no limit), got ",
                     budget.max_evaluations));
  }
  return absl::OkStatus();
}

bool SearchBudget::Exhausted() const {
  if (budget_.max_evaluations > 0 && evaluations_ >= budget_.max_evaluations) {
    return true;
  }
  if (budget_.asked_to_stop()) return true;
  return absl::Now() - start_ >= budget_.wall_time;
}

int64_t SearchBudget::Allowed(int64_t wanted) const {
  if (budget_.max_evaluations <= 0) return wanted;
  return std::clamp<int64_t>(budget_.max_evaluations - evaluations_, 0, wanted);
}

void SearchBudget::Report(double best_normalised_return) {
  last_report_ = absl::Now();
  if (!budget_.on_progress) return;
  budget_.on_progress(SolverProgress{
      .elapsed_seconds = absl::ToDoubleSeconds(last_report_ - start_),
      .evaluations = evaluations_,
      .best_normalised_return = best_normalised_return});
}

void SearchBudget::MaybeReport(double best_normalised_return) {
  if (absl::Now() - last_report_ >= absl::Seconds(1)) {
    Report(best_normalised_return);
  }
}

void SearchBudget::ReportFinal(double best_normalised_return) {
  Report(best_normalised_return);
}

Solution FinishSearch(SearchBudget& search, const BestSolution& best,
                      int64_t generations, SolverSettings settings,
                      const std::string& name, const SolverBudget& budget) {
  search.ReportFinal(best.normalised_return());
  settings["generations"] = absl::StrCat(generations);
  return best.Finish(name, settings, budget, search.evaluations(),
                     search.elapsed_seconds());
}

}  // namespace mmapzero::solvers
