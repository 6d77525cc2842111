// The random numbers search draws (Dirichlet root noise, Gumbel samples,
// temperature sampling), from one seeded generator per search. Written out
// rather than taken from <random>'s distributions, whose algorithms are
// implementation-defined: golden tests compare visit counts exactly, so the
// draws must be the same on every standard library.
#ifndef MMAPZERO_COMMON_SEARCH_SEARCH_RANDOM_H_
#define MMAPZERO_COMMON_SEARCH_SEARCH_RANDOM_H_

#include <cstdint>
#include <random>

#include "absl/types/span.h"

namespace mmapzero::search {

class SearchRng {
 public:
  explicit SearchRng(uint64_t seed = 0) : engine_(seed) {}
  void Seed(uint64_t seed) { engine_.seed(seed); }

  // Uniform in (0, 1), never 0 or 1.
  double Uniform();
  // Standard normal (Box-Muller).
  double Normal();
  // log of a Gamma(alpha, 1) sample (Marsaglia-Tsang); in logs because the
  // paper's alpha = 0.03 gives samples that underflow a double.
  double LogGamma(double alpha);
  // Standard Gumbel.
  double Gumbel();
  // Dirichlet(alpha, ..., alpha) over out.size() entries.
  void Dirichlet(double alpha, absl::Span<double> out);

 private:
  std::mt19937_64 engine_;  // its sequence is fixed by the standard
};

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_SEARCH_RANDOM_H_
