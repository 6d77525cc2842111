// The generator's random source: std::mt19937_64 with the distributions
// written out here, because the standard library's distributions may differ
// between implementations and a seed must give the same workload wherever it
// runs. Independent streams drawn from one seed keep, for example, the
// architecture's draws apart from the memory-pressure draw.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_SEEDED_RNG_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_SEEDED_RNG_H_

#include <cstdint>
#include <initializer_list>
#include <random>

namespace mmapzero::synthetic {

class SeededRng {
 public:
  SeededRng(uint64_t seed, uint64_t stream) : engine_(Mix(seed, stream)) {}

  // Uniform in [0, n) for n > 0 (modulo bias below 2^-40 for our n).
  int64_t UniformInt(int64_t n) {
    return static_cast<int64_t>(engine_() % static_cast<uint64_t>(n));
  }
  // Uniform in [lo, hi), from the top 53 bits.
  double UniformReal(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }
  bool Bernoulli(double p) { return UniformReal(0.0, 1.0) < p; }
  template <typename T>
  T Pick(std::initializer_list<T> values) {
    return *(values.begin() + UniformInt(static_cast<int64_t>(values.size())));
  }

 private:
  // SplitMix64 of seed and stream: nearby seeds give unrelated sequences.
  static uint64_t Mix(uint64_t seed, uint64_t stream) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  std::mt19937_64 engine_;
};

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_SEEDED_RNG_H_
