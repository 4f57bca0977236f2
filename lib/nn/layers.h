// The layers of the encoder, each as a forward that caches what its backward needs, followed by
// that backward, which ACCUMULATES (+=) into the gradients it is given. Shapes use the legend of
// docs/architecture.md: N rows (= B*T tokens), D d_model, H heads, Dh = D/H, F d_ff, K labels.
// Activations of a batch are stacked: email b owns rows b*T .. b*T+T-1, of which the first
// lengths[b] are real tokens and the rest padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nn/tensor.h"

namespace router {

// Where a backward pass may hand off its weight-gradient products (dW += dy^T x, which nothing
// later in the pass reads), to run later and perhaps on another thread (WorkQueue). Each task
// adds into one gradient matrix of its own; the matrices it reads must outlive it.
using Later = std::function<void(std::function<void()>)>;
// The Later that runs each task at once: the plain backward pass.
inline void run_now(std::function<void()> task) { task(); }

// Inverted dropout masks, drawn from a stream that depends only on (key, site), never on
// threads or batch composition, so training is reproducible for any thread count.
struct DropoutSpec {
  double p = 0.0;                     // drop probability; 0 = off
  const std::vector<uint64_t>* keys;  // one key per email of the batch
};

// mask: (N, C), filled row by row per email with 0 or 1/(1-p).
template <typename S>
void dropout_mask(const DropoutSpec& spec, int site, int T, const std::vector<int>& lengths,
                  Mat<S>& mask);

// ---- layer norm: y = (x - mean) / sqrt(var + eps) * w + b, over each row ----
template <typename S>
struct LayerNormCache {
  Vec<S> mean, rstd;  // (N)
};
// x: (N, D) -> y: (N, D)
template <typename S>
void layernorm_forward(const Mat<S>& x, const Vec<S>& w, const Vec<S>& b, Mat<S>& y,
                       LayerNormCache<S>& cache);
// dy: (N, D) -> dx += (N, D), dw += (D), db += (D)
template <typename S>
void layernorm_backward(const Mat<S>& dy, const Mat<S>& x, const Vec<S>& w,
                        const LayerNormCache<S>& cache, Mat<S>& dx, Vec<S>& dw, Vec<S>& db);

// ---- linear: y = x W^T + b ----
// x: (N, In), W: (Out, In), b: (Out) or null -> y: (N, Out)
template <typename S>
void linear_forward(const Mat<S>& x, const Mat<S>& W, const Vec<S>* b, Mat<S>& y);
// dy: (N, Out) -> dx += (N, In) (skipped if null), dW += (Out, In), db += (Out) (if non-null)
template <typename S>
void linear_backward(const Mat<S>& dy, const Mat<S>& x, const Mat<S>& W, Mat<S>* dx, Mat<S>& dW,
                     Vec<S>* db);
// Its two halves, for a caller that runs them apart: dx += dy W; and dW += dy^T x, db += the
// column sums of dy (if non-null).
template <typename S>
void linear_backward_input(const Mat<S>& dy, const Mat<S>& W, Mat<S>& dx);
template <typename S>
void linear_backward_weights(const Mat<S>& dy, const Mat<S>& x, Mat<S>& dW, Vec<S>* db);

// y = x A + b, A (In, Out) = W^T given transposed beforehand: predictions, whose weights do not
// change between calls, transpose each weight once (InferenceWeights) instead of once per call.
// The same bits as linear_forward with W.
template <typename S>
void linear_forward_transposed(const Mat<S>& x, const Mat<S>& A, const Vec<S>* b, Mat<S>& y);

// ---- GELU, exact: 0.5 x (1 + erf(x / sqrt 2)) ----
// x: (N, F) -> y: (N, F)
template <typename S>
void gelu_forward(const Mat<S>& x, Mat<S>& y);
// dy: (N, F) -> dx += (N, F)
template <typename S>
void gelu_backward(const Mat<S>& dy, const Mat<S>& x, Mat<S>& dx);

// ---- multi-head self-attention with a key padding mask ----
template <typename S>
struct AttentionCache {
  Mat<S> qkv;  // (N, 3D)
  // For email b and head h, i = b*H + h: its (len_b, len_b) softmax before dropout, and the
  // dropout mask on it (none when dropout is off), one after another in two buffers that keep
  // their memory from batch to batch.
  std::vector<S> probs, drop;
  std::vector<size_t> offsets;  // B*H: where matrix i begins
  std::vector<int> sizes;       // B*H: len_b
  Mat<S> concat;                // (N, D): heads side by side, before W_o; padding rows are 0

  Eigen::Map<const Mat<S>> prob(size_t i) const {
    return {probs.data() + offsets[i], sizes[i], sizes[i]};
  }
  Eigen::Map<const Mat<S>> mask(size_t i) const {
    return {drop.data() + offsets[i], sizes[i], sizes[i]};
  }
};
// u: (N, D), W_qkv: (3D, D), W_o: (D, D) -> out: (N, D). Padding rows are not queried (their
// output is 0) and are masked as keys, so they never reach a real token.
template <typename S>
void attention_forward(const Mat<S>& u, const Mat<S>& W_qkv, const Mat<S>& W_o, int n_heads, int T,
                       const std::vector<int>& lengths, const DropoutSpec& dropout, int site,
                       Mat<S>& out, AttentionCache<S>& cache);
// The same function with dropout off and no cache, for predictions. Per head, the queries run
// along the vector lanes, 16 at a time: the two products are small hand-written loops that need
// none of Eigen's packing (for one email's short heads, n x Dh with Dh 8-64, packing costs more
// than the multiplying), and the softmax over keys needs no horizontal sums. Equal to
// attention_forward up to float rounding, not bit for bit. Training steps use attention_forward,
// whose cache their backward pass reads.
// Its two weights come transposed, W_qkv^T (D, 3D) and W_o^T (D, D), as for
// linear_forward_transposed.
template <typename S>
void attention_infer(const Mat<S>& u, const Mat<S>& W_qkv_t, const Mat<S>& W_o_t, int n_heads,
                     int T, const std::vector<int>& lengths, Mat<S>& out);
// dout: (N, D) -> du += (N, D), dW_qkv += (3D, D), dW_o += (D, D)
template <typename S>
void attention_backward(const Mat<S>& dout, const Mat<S>& u, const Mat<S>& W_qkv, const Mat<S>& W_o,
                        int n_heads, int T, const std::vector<int>& lengths,
                        const AttentionCache<S>& cache, Mat<S>& du, Mat<S>& dW_qkv, Mat<S>& dW_o);
// The same, with the two weight gradients added by tasks handed to `later`: dout, u and cache
// must stay unchanged until both have run. The same bits.
template <typename S>
void attention_backward(const Mat<S>& dout, const Mat<S>& u, const Mat<S>& W_qkv, const Mat<S>& W_o,
                        int n_heads, int T, const std::vector<int>& lengths,
                        const AttentionCache<S>& cache, Mat<S>& du, Mat<S>& dW_qkv, Mat<S>& dW_o,
                        const Later& later);

// ---- mean pooling over the real tokens of each email ----
// z: (B*T, D) -> pooled: (B, D)
template <typename S>
void mean_pool_forward(const Mat<S>& z, int T, const std::vector<int>& lengths, Mat<S>& pooled);
// dpooled: (B, D) -> dz += (B*T, D)
template <typename S>
void mean_pool_backward(const Mat<S>& dpooled, int T, const std::vector<int>& lengths, Mat<S>& dz);

// ---- max pooling: each column's largest value over the real tokens of each email ----
// z: (B*T, D) -> pooled: (B, D); rows: (B*D) the row of z each value came from (the first on a
// tie), which is where the backward pass sends its gradient.
template <typename S>
void max_pool_forward(const Mat<S>& z, int T, const std::vector<int>& lengths, Mat<S>& pooled,
                      std::vector<int>& rows);
// dpooled: (B, D) -> dz += (B*T, D)
template <typename S>
void max_pool_backward(const Mat<S>& dpooled, const std::vector<int>& rows, Mat<S>& dz);

// ---- attention pooling: the real tokens weighed by softmax_t(z_t . q / sqrt(D)) ----
// z: (B*T, D), q: (D) -> pooled: (B, D); weights: (B, T) each email's softmax, 0 past its length.
// q = 0 weighs every token alike: mean pooling.
template <typename S>
void attention_pool_forward(const Mat<S>& z, const Vec<S>& q, int T,
                            const std::vector<int>& lengths, Mat<S>& pooled, Mat<S>& weights);
// dpooled: (B, D) -> dz += (B*T, D), dq += (D)
template <typename S>
void attention_pool_backward(const Mat<S>& dpooled, const Mat<S>& z, const Vec<S>& q, int T,
                             const std::vector<int>& lengths, const Mat<S>& weights, Mat<S>& dz,
                             Vec<S>& dq);

// ---- softmax cross-entropy with label smoothing, mean over the batch ----
// logits: (B, K), targets: (B) -> loss; dlogits = d loss / d logits (B, K), overwritten.
template <typename S>
double softmax_xent(const Mat<S>& logits, const std::vector<int>& targets, double smoothing,
                    Mat<S>& dlogits);
// The same against any target distribution: q (B, K), each row summing to 1 (a teacher's
// probabilities mixed in, train/trainer.h); loss = mean over rows of -sum q log softmax(logits).
template <typename S>
double softmax_xent(const Mat<S>& logits, const Mat<double>& q, Mat<S>& dlogits);
// The label-smoothed one-hot rows softmax_xent(targets, smoothing) trains towards: (B, K).
Mat<double> smoothed_targets(const std::vector<int>& targets, int num_labels, double smoothing);

// ---- masked-token prediction through the embedding table (pretraining) ----
// z: (N, D), E: (V, D) the token embeddings, rows: the masked rows of z, targets: the id each
// row had before it was masked -> the mean over those rows of
// -log softmax(z_r E^T / sqrt(D))[target] (the output layer is the embedding table itself, so it
// adds no parameter). dz += (N, D) and dE += (V, D), both times `scale`; `correct` (if non-null)
// += the rows whose largest logit is their target.
template <typename S>
double masked_token_loss(const Mat<S>& z, const Mat<S>& E, const std::vector<int>& rows,
                         const std::vector<int>& targets, double scale, Mat<S>& dz, Mat<S>& dE,
                         int* correct = nullptr);

// Row-wise softmax of logits / temperature, max-subtracted. (K) -> (K)
template <typename S>
Vec<S> softmax(const Vec<S>& logits, double temperature = 1.0);

}  // namespace router
