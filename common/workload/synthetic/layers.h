// The layers the model families are made of, each a few ops appended to a
// ModelBuilder with its FLOPs from the shape, its gradient rule and its
// in-place candidates (op_graph.h). Shapes are row-major [rows, cols];
// `rows` is the batch (times sequence or spatial positions). Every function
// returns the tensor id of its main output.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_LAYERS_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_LAYERS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "common/workload/synthetic/model_builder.h"

namespace mmapzero::synthetic {

// x[rows, in] . w[in, out]: 2 * rows * in * out FLOPs.
int MatMul(ModelBuilder& mb, const std::string& name, int x, int w,
           int64_t rows, int64_t in, int64_t out);
// MatMul with a new weight parameter `name`.w.
int Dense(ModelBuilder& mb, const std::string& name, int x, int64_t rows,
          int64_t in, int64_t out);
// act(x + b) with a new bias `name`.b[cols]; `flops_per_element` is the
// activation's cost (1 for relu, about 8 for gelu).
int BiasActivation(ModelBuilder& mb, const std::string& name, int x,
                   int64_t rows, int64_t cols, double flops_per_element);
// Elementwise act(x), same shape as x.
int Activation(ModelBuilder& mb, const std::string& name, int x,
               double flops_per_element);
// a + b (same shape); the gradient passes through to both.
int Add(ModelBuilder& mb, const std::string& name, int a, int b);
// Layer norm over rows of [rows, cols] (scale and shift in one parameter);
// in training also writes the per-row statistics the backward reads.
int LayerNorm(ModelBuilder& mb, const std::string& name, int x, int64_t rows,
              int64_t cols);
// Batch norm + relu over [positions, channels], fused as XLA would; in
// training also writes the per-channel statistics.
int BatchNormRelu(ModelBuilder& mb, const std::string& name, int x,
                  int64_t positions, int64_t channels);

struct ConvShape {
  int64_t batch = 0;
  int64_t size = 0;  // square input, size x size
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t kernel = 0;
  int64_t stride = 1;
  int64_t out_size() const { return (size + stride - 1) / stride; }
};
// NHWC convolution with a new weight `name`.w, "same" padding.
int Conv2d(ModelBuilder& mb, const std::string& name, int x,
           const ConvShape& shape);
// Mean over `positions` of [batch, positions, channels] -> [batch, channels].
int GlobalPool(ModelBuilder& mb, const std::string& name, int x, int64_t batch,
               int64_t positions, int64_t channels);
// Fused causal self-attention (flash-attention style) of qkv[b*s, 3*d] into
// [b*s, d] with `heads` heads; in training also writes the softmax
// log-sum-exp per head and position, which the backward reads.
int Attention(ModelBuilder& mb, const std::string& name, int qkv, int64_t batch,
              int64_t seq, int64_t d, int64_t heads);
// Rows of a new table `name`.table[vocab, d] gathered by ids[tokens].
int Embedding(ModelBuilder& mb, const std::string& name, int ids, int64_t vocab,
              int64_t d, int64_t tokens);
// One LSTM step: gates pre[batch, 4*hidden] (x.Wx + h.Wh) plus bias and
// the cell state c_prev[batch, hidden] (f32) give (c, h); c may overwrite
// c_prev in place when nothing else reads c_prev later (inference).
std::pair<int, int> LstmCell(ModelBuilder& mb, const std::string& name, int pre,
                             int bias, int c_prev, int64_t batch,
                             int64_t hidden);
// The end of the program: in training the softmax cross-entropy loss of
// logits[rows, classes] against labels (the root of the backward pass); in
// inference the logits are the program's output. Returns the root tensor.
int Head(ModelBuilder& mb, int logits, int labels, int64_t rows,
         int64_t classes);

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_LAYERS_H_
