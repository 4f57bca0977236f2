// Every learned tensor of the model, by PyTorch state_dict name (docs/architecture.md). The same
// struct holds gradients and optimizer moments. tensors() lists them in one fixed order, which
// fixes the order of the model file, of the optimizer and of every reduction over parameters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nn/config.h"
#include "nn/tensor.h"

namespace router {

template <typename S>
struct LayerParams {
  Vec<S> ln1_w, ln1_b;  // (D)
  Mat<S> qkv_w;         // (3D, D)
  Mat<S> out_w;         // (D, D)
  Vec<S> ln2_w, ln2_b;  // (D)
  Mat<S> fc1_w;         // (F, D)
  Vec<S> fc1_b;         // (F)
  Mat<S> fc2_w;         // (D, F)
  Vec<S> fc2_b;         // (D)
};

template <typename S>
struct Params {
  Mat<S> embed;                        // (V, D)
  std::vector<LayerParams<S>> layers;  // L
  Vec<S> norm_w, norm_b;               // (D)
  Vec<S> pool_q;                       // (D) with attention pooling, else empty
  Mat<S> cls_w;                        // (K, D)
  Vec<S> cls_b;                        // (K)
};

// A view of one tensor: its name, shape, storage, and whether weight decay applies to it.
template <typename S>
struct TensorRef {
  std::string name;
  std::vector<int64_t> shape;
  S* data;
  int64_t size;
  bool decay;
};

// Allocates every tensor with the shapes `config` implies, filled with zeros.
template <typename S>
Params<S> zeros_like_config(const Config& config);

// The initialisation of docs/architecture.md, from `seed`.
template <typename S>
Params<S> init_params(const Config& config, uint64_t seed);

// Starts the first `n` heads of layer 0 as local heads: with sinusoidal positions, head 0 attends
// to the previous token, head 1 to the next, and so on alternately (through the sinusoid's
// rotation property; docs/architecture.md). The embedding columns those heads read (the fastest
// 2 * floor(Dh / 2) of the sinusoid) start at zero, so position alone decides where they look.
// Only a starting point: training is free to change it. n = 0 changes nothing.
template <typename S>
void init_local_heads(Params<S>& params, const Config& config, int n);

// Query and key weights of a local head: with layer norm's ~0.9 scale on the positional columns,
// a score about 2 higher for the neighbour than for the tokens beside it (16-wide heads).
inline constexpr double kLocalHeadScale = 3.0;

// The one list of the model's tensors: calls f(name, decay, t, ts...) for every tensor t of `p`
// in the fixed order of the model file, with the same tensor of each of `more` (Params with as
// many layers), and `decay` true where weight decay applies.
template <typename F, typename P, typename... Ps>
void for_each_tensor(F&& f, P& p, Ps&... more) {
  f("embed.weight", true, p.embed, more.embed...);
  for (size_t i = 0; i < p.layers.size(); ++i) {
    auto& l = p.layers[i];
    const std::string pre = "layers." + std::to_string(i) + ".";
    f(pre + "ln1.weight", false, l.ln1_w, more.layers[i].ln1_w...);
    f(pre + "ln1.bias", false, l.ln1_b, more.layers[i].ln1_b...);
    f(pre + "attn.qkv.weight", true, l.qkv_w, more.layers[i].qkv_w...);
    f(pre + "attn.out.weight", true, l.out_w, more.layers[i].out_w...);
    f(pre + "ln2.weight", false, l.ln2_w, more.layers[i].ln2_w...);
    f(pre + "ln2.bias", false, l.ln2_b, more.layers[i].ln2_b...);
    f(pre + "ff.fc1.weight", true, l.fc1_w, more.layers[i].fc1_w...);
    f(pre + "ff.fc1.bias", false, l.fc1_b, more.layers[i].fc1_b...);
    f(pre + "ff.fc2.weight", true, l.fc2_w, more.layers[i].fc2_w...);
    f(pre + "ff.fc2.bias", false, l.fc2_b, more.layers[i].fc2_b...);
  }
  f("norm.weight", false, p.norm_w, more.norm_w...);
  f("norm.bias", false, p.norm_b, more.norm_b...);
  // Only a model with attention pooling has a query; a zero query is mean pooling, so weight
  // decay would pull it towards mean pooling rather than towards a simpler model: none.
  if (p.pool_q.size()) f("pool.query", false, p.pool_q, more.pool_q...);
  f("classifier.weight", true, p.cls_w, more.cls_w...);
  f("classifier.bias", false, p.cls_b, more.cls_b...);
}

// All tensors as views, in for_each_tensor's order; read-only views of read-only parameters.
template <typename S>
std::vector<TensorRef<S>> tensors(Params<S>& params);
template <typename S>
std::vector<TensorRef<const S>> tensors(const Params<S>& params);

// Zeroes every tensor in place, keeping the shapes (a gradient between steps).
template <typename S>
void set_zero(Params<S>& params);
// Zeroes every tensor but the embedding table: a training shard's gradient, whose table is zero
// except on the rows of the batch's tokens, which training clears row by row after each step.
template <typename S>
void set_zero_except_embedding(Params<S>& params);

template <typename S>
int64_t count_params(const Params<S>& params);

// Parameters of one attention block (W_qkv and W_o): 4 D^2.
int64_t attention_param_count(int d_model, int n_heads);

template <typename To, typename From>
Params<To> cast_params(const Params<From>& p);

}  // namespace router
