#include "common/model/support_scaling.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace mmapzero::model {

double ScaleValue(double x) {
  const double sign = x < 0 ? -1.0 : 1.0;
  return sign * (std::sqrt(std::abs(x) + 1.0) - 1.0) + kSupportEpsilon * x;
}

double UnscaleValue(double y) {
  // Solves |y| = (sqrt(|x| + 1) - 1) + eps |x| for |x| (a quadratic in
  // sqrt(|x| + 1)).
  constexpr double kEps = kSupportEpsilon;
  const double sign = y < 0 ? -1.0 : 1.0;
  const double root =
      (std::sqrt(1.0 + 4.0 * kEps * (std::abs(y) + 1.0 + kEps)) - 1.0) /
      (2.0 * kEps);
  return sign * (root * root - 1.0);
}

std::vector<float> TwoHot(double x, int support_size) {
  const int n = support_size;
  std::vector<float> out(2 * n + 1, 0.0f);
  const double clamped =
      std::clamp(x, static_cast<double>(-n), static_cast<double>(n));
  const double low = std::floor(clamped);
  const double upper_weight = clamped - low;
  const int low_index = static_cast<int>(low) + n;
  out[low_index] += static_cast<float>(1.0 - upper_weight);
  if (low_index + 1 <= 2 * n) {
    out[low_index + 1] += static_cast<float>(upper_weight);
  }
  return out;
}

double SupportMean(absl::Span<const float> probabilities) {
  const int n = static_cast<int>(probabilities.size() / 2);
  double mean = 0;
  for (int i = 0; i < static_cast<int>(probabilities.size()); ++i) {
    mean += probabilities[i] * static_cast<double>(i - n);
  }
  return mean;
}

std::vector<float> ScalarToSupport(double x, int support_size) {
  return TwoHot(ScaleValue(x), support_size);
}

double SupportToScalar(absl::Span<const float> logits) {
  if (logits.empty()) return 0.0;
  const float max_logit = *std::max_element(logits.begin(), logits.end());
  std::vector<float> probabilities(logits.size());
  double total = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    probabilities[i] = std::exp(logits[i] - max_logit);
    total += probabilities[i];
  }
  for (float& p : probabilities) p = static_cast<float>(p / total);
  return UnscaleValue(SupportMean(probabilities));
}

}  // namespace mmapzero::model
