// Decoder-only transformer (pre-layer-norm): token embedding, residual
// blocks alternating causal self-attention and a gelu feed-forward layer,
// a final layer norm (left out of one-block toy programs) and the
// vocabulary projection. One unit is one residual block, so a layer is two
// units.
#include "absl/strings/str_cat.h"
#include "common/workload/synthetic/families.h"
#include "common/workload/synthetic/layers.h"

namespace mmapzero::synthetic {
namespace {

constexpr int64_t kHeadDim = 128;
// A one-block toy program skips the final layer norm, so that the smallest
// training program (one attention block, Adam) stays under ~100 buffers.
constexpr int kMinTargetWithFinalNorm = 200;

}  // namespace

int BuildTransformer(ModelBuilder& mb, int units) {
  SeededRng& rng = mb.rng();
  const int64_t batch = rng.Pick<int64_t>({1, 2, 4, 8});
  const int64_t seq = rng.Pick<int64_t>({512, 1024, 2048});
  const int64_t d = rng.Pick<int64_t>({512, 1024, 2048, 4096});
  const int64_t vocab = rng.Pick<int64_t>({8192, 16384, 32000});
  const int64_t heads = d / kHeadDim;
  const int64_t tokens = batch * seq;
  const int ids = mb.AddInput("token_ids", tokens, kInt32Bytes);
  const int labels = mb.AddInput("labels", tokens, kInt32Bytes);
  int x = Embedding(mb, "embed", ids, vocab, d, tokens);
  for (int i = 0; i < units; ++i) {
    const std::string prefix = absl::StrCat("block", i);
    const int h = LayerNorm(mb, prefix + ".norm", x, tokens, d);
    int branch;
    if (i % 2 == 0) {
      const int qkv = Dense(mb, prefix + ".qkv", h, tokens, d, 3 * d);
      const int o =
          Attention(mb, prefix + ".attention", qkv, batch, seq, d, heads);
      branch = Dense(mb, prefix + ".out", o, tokens, d, d);
    } else {
      const int up = Dense(mb, prefix + ".up", h, tokens, d, 4 * d);
      const int act = Activation(mb, prefix + ".gelu", up, 8.0);
      branch = Dense(mb, prefix + ".down", act, tokens, 4 * d, d);
    }
    x = Add(mb, prefix + ".residual", x, branch);
    mb.EndUnit(x);
  }
  if (mb.target_buffers() >= kMinTargetWithFinalNorm) {
    x = LayerNorm(mb, "final_norm", x, tokens, d);
  }
  const int logits = Dense(mb, "unembed", x, tokens, d, vocab);
  return Head(mb, logits, labels, tokens, vocab);
}

}  // namespace mmapzero::synthetic
