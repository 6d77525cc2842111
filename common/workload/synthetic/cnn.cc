// Convolutional network, ResNet-like: a stem convolution, then blocks of
// convolution + batch norm + relu, some downsampling (stride 2, channels
// doubled) and some with a residual connection, then global pooling and a
// classifier. Activations are NHWC.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/workload/synthetic/families.h"
#include "common/workload/synthetic/layers.h"

namespace mmapzero::synthetic {

int BuildCnn(ModelBuilder& mb, int units) {
  SeededRng& rng = mb.rng();
  const int64_t batch = rng.Pick<int64_t>({16, 32, 64, 128});
  const int64_t image = rng.Pick<int64_t>({32, 64, 128, 224});
  int64_t channels = rng.Pick<int64_t>({32, 64});
  const int64_t classes = rng.Pick<int64_t>({10, 100, 1000});
  const int images =
      mb.AddInput("images", batch * image * image * 3, mb.activation_bytes());
  const int labels = mb.AddInput("labels", batch, kInt32Bytes);

  ConvShape stem{
      batch, image, 3, channels, image > 64 ? 7 : 3, image > 64 ? 2 : 1};
  int64_t size = stem.out_size();
  int x = BatchNormRelu(mb, "stem.bn", Conv2d(mb, "stem.conv", images, stem),
                        batch * size * size, channels);
  for (int i = 0; i < units; ++i) {
    const bool downsample = size > 7 && rng.Bernoulli(0.2);
    const int64_t kernel = rng.Bernoulli(0.75) ? 3 : 1;
    const bool residual = !downsample && rng.Bernoulli(0.5);
    ConvShape shape{batch,    size,   channels,
                    channels, kernel, downsample ? 2 : 1};
    if (downsample) shape.out_channels = std::min<int64_t>(2 * channels, 2048);
    const std::string prefix = absl::StrCat("block", i);
    const int y = Conv2d(mb, prefix + ".conv", x, shape);
    size = shape.out_size();
    channels = shape.out_channels;
    int z = BatchNormRelu(mb, prefix + ".bn", y, batch * size * size, channels);
    if (residual) z = Add(mb, prefix + ".residual", z, x);
    x = z;
    mb.EndUnit(x);
  }
  const int pooled = GlobalPool(mb, "pool", x, batch, size * size, channels);
  const int logits = Dense(mb, "classifier", pooled, batch, channels, classes);
  return Head(mb, logits, labels, batch, classes);
}

}  // namespace mmapzero::synthetic
