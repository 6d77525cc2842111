#include "common/search/search_random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace mmapzero::search {

double SearchRng::Uniform() {
  return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
}

double SearchRng::Normal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double SearchRng::LogGamma(double alpha) {
  if (alpha < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a).
    const double boost = std::log(Uniform()) / alpha;
    return LogGamma(alpha + 1.0) + boost;
  }
  const double d = alpha - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double x = Normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = Uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x ||
        std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) {
      return std::log(d * v);
    }
  }
}

double SearchRng::Gumbel() { return -std::log(-std::log(Uniform())); }

void SearchRng::Dirichlet(double alpha, absl::Span<double> out) {
  double max_log = -std::numeric_limits<double>::infinity();
  for (double& x : out) {
    x = LogGamma(alpha);
    max_log = std::max(max_log, x);
  }
  double sum = 0;
  for (double& x : out) {
    x = std::exp(x - max_log);
    sum += x;
  }
  for (double& x : out) x /= sum;
}

}  // namespace mmapzero::search
