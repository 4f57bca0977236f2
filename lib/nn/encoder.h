// The whole encoder over a padded batch: embeddings + positions -> L pre-norm blocks -> final
// norm -> mean, max or attention pooling -> classifier. forward() fills a cache with every
// intermediate (explain reads the attention maps from it); backward() walks the same layers in
// exact reverse order and accumulates into a gradient Params. Legend: B emails, T padded length, D
// d_model, K labels.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/config.h"
#include "nn/layers.h"
#include "nn/params.h"

namespace router {

// The id that fills the padding rows of a batch: the tokenizer's kPadId, which the encoder does
// not include (nn/ sits below text/); model.cc checks that they agree.
inline constexpr int32_t kPaddingId = 0;

// A padded batch of token ids. Email b owns ids[b*T .. b*T+T-1]; its first lengths[b] are real.
struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> ids;    // (B*T), padded with kPaddingId
  std::vector<int> lengths;    // (B), each in 1..T
  std::vector<int> targets;    // (B), training only
  std::vector<uint64_t> keys;  // (B), dropout stream of each email, training only
};

// Packs id sequences (each non-empty) into a batch padded to the longest.
Batch make_batch(const std::vector<const std::vector<int32_t>*>& sequences);

template <typename S>
struct BlockCache {
  Mat<S> x_in;  // (N, D) block input
  LayerNormCache<S> ln1;
  Mat<S> u1;  // (N, D)
  AttentionCache<S> attn;
  Mat<S> attn_out;  // (N, D) before dropout
  Mat<S> drop1;     // (N, D) dropout mask, empty when off
  Mat<S> h;         // (N, D) after the first residual
  LayerNormCache<S> ln2;
  Mat<S> u2;      // (N, D)
  Mat<S> pre;     // (N, F) before GELU
  Mat<S> act;     // (N, F) after GELU
  Mat<S> ff_out;  // (N, D) before dropout
  Mat<S> drop2;   // (N, D)
};

template <typename S>
struct ForwardCache {
  Mat<S> x0;     // (N, D) embeddings + positions, before dropout
  Mat<S> drop0;  // (N, D)
  std::vector<BlockCache<S>> blocks;
  Mat<S> x_final;  // (N, D) input of the final norm
  LayerNormCache<S> lnf;
  Mat<S> z;                    // (N, D)
  Mat<S> pooled;               // (B, D)
  std::vector<int> pool_rows;  // (B*D) with max pooling: the row of z each pooled value is from
  Mat<S> pool_weights;         // (B, T) with attention pooling: each token's weight
  Mat<S> logits;               // (B, K)
};

// positions: (>= T, D) sinusoid table, ignored when config.positional is none.
// dropout p = 0 for inference. Returns nothing; results are in cache.logits.
// embed_rows: (V, D) row-major embedding to read instead of params.embed, when not null.
template <typename S>
void encoder_forward(const Params<S>& params, const Config& config, const Mat<S>& positions,
                     const Batch& batch, double dropout, ForwardCache<S>& cache,
                     const S* embed_rows = nullptr);

// The weight matrices of predictions, each W (Out, In) stored as W^T (In, Out), the layout their
// products read: made once per set of weights (a loaded Model keeps one), not once per call.
template <typename S>
struct InferenceWeights {
  struct Layer {
    Mat<S> qkv, out, fc1, fc2;
  };
  std::vector<Layer> layers;
  Mat<S> cls;
};
template <typename S>
InferenceWeights<S> inference_weights(const Params<S>& params);

// The logits (B, K) of encoder_forward with dropout off, without its cache: the path of every
// prediction (classify, batch, eval, and the validation and calibration of training). Its
// attention is attention_infer, so the logits equal encoder_forward's up to float rounding.
// `weights` = inference_weights(params).
template <typename S>
Mat<S> encoder_logits(const Params<S>& params, const InferenceWeights<S>& weights,
                      const Config& config, const Mat<S>& positions, const Batch& batch,
                      const S* embed_rows = nullptr);

// dlogits: (B, K) -> grads += d loss / d params. With `later`, the weight-gradient products of
// the linear layers and attention are handed to it: params, cache and dlogits must then stay
// unchanged, and grads unread, until those tasks have run. The same bits either way.
template <typename S>
void encoder_backward(const Params<S>& params, const Config& config, const Batch& batch,
                      double dropout, const ForwardCache<S>& cache, const Mat<S>& dlogits,
                      Params<S>& grads, const Later* later = nullptr);

// The part of encoder_backward below the pooling: dz (N, D), the gradient of the final norm's
// output (what pooling sends down, or masked-token pretraining's) -> grads += every tensor's but
// the pooling's and the classifier's. `later` as for encoder_backward; dz may go once it returns.
template <typename S>
void encoder_backward_from_z(const Params<S>& params, const Config& config, const Batch& batch,
                             const ForwardCache<S>& cache, const Mat<S>& dz, Params<S>& grads,
                             const Later* later = nullptr);

}  // namespace router

namespace router {

// Logits (n, K) of many encoded emails, in input order. Emails of similar length are batched
// together (fixed batches, decided by the input alone), batches run on `threads` threads.
// embed_rows as for encoder_forward.
Mat<float> infer_logits(const Params<float>& params, const InferenceWeights<float>& weights,
                        const Config& config, const Mat<float>& positions,
                        const std::vector<std::vector<int32_t>>& sequences, int threads,
                        const float* embed_rows = nullptr);

}  // namespace router
