// Multi-layer perceptron: dense + bias + activation layers of random widths
// over a batch of feature vectors, then a classifier.
#include "absl/strings/str_cat.h"
#include "common/workload/synthetic/families.h"
#include "common/workload/synthetic/layers.h"

namespace mmapzero::synthetic {

int BuildMlp(ModelBuilder& mb, int units) {
  SeededRng& rng = mb.rng();
  const int64_t batch = rng.Pick<int64_t>({64, 128, 256, 512, 1024});
  const int64_t input_width = rng.Pick<int64_t>({256, 512, 784, 1024, 2048});
  const int64_t classes = rng.Pick<int64_t>({10, 100, 1000});
  const double activation_flops = rng.Pick<double>({1.0, 8.0});  // relu, gelu
  int x = mb.AddInput("features", batch * input_width, mb.activation_bytes());
  const int labels = mb.AddInput("labels", batch, kInt32Bytes);
  int64_t width = input_width;
  for (int i = 0; i < units; ++i) {
    const int64_t next = rng.Pick<int64_t>({512, 1024, 2048, 4096});
    const std::string prefix = absl::StrCat("layer", i);
    const int y = Dense(mb, prefix + ".dense", x, batch, width, next);
    x = BiasActivation(mb, prefix + ".act", y, batch, next, activation_flops);
    width = next;
    mb.EndUnit(x);
  }
  const int logits = Dense(mb, "classifier", x, batch, width, classes);
  return Head(mb, logits, labels, batch, classes);
}

}  // namespace mmapzero::synthetic
