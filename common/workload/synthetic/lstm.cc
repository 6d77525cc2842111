// Stacked LSTM sequence classifier, unrolled in time (time-major): at each
// step every layer computes x.Wx + h.Wh, then the fused cell updates the f32
// cell state and the hidden state; the last top-layer hidden state feeds a
// classifier. Weights are shared across steps, so their gradients are sums
// over the steps. One unit is one time step.
#include <algorithm>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/workload/synthetic/families.h"
#include "common/workload/synthetic/layers.h"

namespace mmapzero::synthetic {
namespace {

// Buffers one layer adds per step, roughly (training, inference): layers
// are capped so that a program of the target size has a few steps.
constexpr int kStepBuffersPerLayer[2] = {40, 14};
constexpr int kMinSteps = 3;

}  // namespace

int BuildLstm(ModelBuilder& mb, int units) {
  SeededRng& rng = mb.rng();
  const int64_t batch = rng.Pick<int64_t>({32, 64, 128, 256});
  const int64_t input_width = rng.Pick<int64_t>({128, 256, 512});
  const int64_t hidden = rng.Pick<int64_t>({256, 512, 1024});
  const int64_t classes = rng.Pick<int64_t>({10, 100, 1000});
  const int drawn_layers = 1 + static_cast<int>(rng.UniformInt(3));
  const int per_layer = kStepBuffersPerLayer[mb.training() ? 0 : 1];
  const int layers = std::clamp(mb.target_buffers() / (kMinSteps * per_layer),
                                1, drawn_layers);
  const int labels = mb.AddInput("labels", batch, kInt32Bytes);

  struct Layer {
    int wx, wh, bias, h, c;
  };
  std::vector<Layer> stack;
  for (int l = 0; l < layers; ++l) {
    const std::string prefix = absl::StrCat("lstm", l);
    const int64_t in = l == 0 ? input_width : hidden;
    stack.push_back(
        {mb.AddParameter(prefix + ".wx", in * 4 * hidden),
         mb.AddParameter(prefix + ".wh", hidden * 4 * hidden),
         mb.AddParameter(prefix + ".b", 4 * hidden),
         mb.AddInput(prefix + ".h0", batch * hidden, mb.activation_bytes()),
         mb.AddInput(prefix + ".c0", batch * hidden, kF32Bytes)});
  }
  for (int step = 0; step < units; ++step) {
    int x = mb.AddInput(absl::StrCat("x", step), batch * input_width,
                        mb.activation_bytes());
    for (int l = 0; l < layers; ++l) {
      Layer& layer = stack[l];
      const std::string prefix = absl::StrCat("lstm", l, ".t", step);
      const int64_t in = l == 0 ? input_width : hidden;
      const int gx =
          MatMul(mb, prefix + ".xw", x, layer.wx, batch, in, 4 * hidden);
      const int gh = MatMul(mb, prefix + ".hw", layer.h, layer.wh, batch,
                            hidden, 4 * hidden);
      const int pre = Add(mb, prefix + ".gates", gx, gh);
      std::tie(layer.c, layer.h) = LstmCell(mb, prefix + ".cell", pre,
                                            layer.bias, layer.c, batch, hidden);
      x = layer.h;
    }
    mb.EndUnit(x);
  }
  const int logits =
      Dense(mb, "classifier", stack.back().h, batch, hidden, classes);
  return Head(mb, logits, labels, batch, classes);
}

}  // namespace mmapzero::synthetic
