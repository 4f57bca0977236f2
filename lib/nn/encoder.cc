#include "nn/encoder.h"

#include <algorithm>
#include <memory>

namespace router {

Batch make_batch(const std::vector<const std::vector<int32_t>*>& sequences) {
  Batch batch;
  batch.B = static_cast<int>(sequences.size());
  for (const auto* s : sequences) batch.T = std::max(batch.T, static_cast<int>(s->size()));
  batch.ids.assign(static_cast<size_t>(batch.B) * batch.T, kPaddingId);
  for (int b = 0; b < batch.B; ++b) {
    const auto& s = *sequences[b];
    std::copy(s.begin(), s.end(), batch.ids.begin() + static_cast<size_t>(b) * batch.T);
    batch.lengths.push_back(static_cast<int>(s.size()));
  }
  return batch;
}

namespace {

// Dropout sites: each gets its own stream per email.
int site_of(int layer, int which) { return 3 + layer * 3 + which; }
constexpr int kSiteEmbed = 0;

// out = dropout(x), the mask kept for the backward pass (empty when dropout is off).
template <typename S>
void dropped_into(const DropoutSpec& spec, int site, const Batch& batch, const Mat<S>& x,
                  Mat<S>& mask, Mat<S>& out) {
  if (spec.p <= 0) {
    mask.resize(0, 0);
    out = x;
    return;
  }
  mask.resize(x.rows(), x.cols());
  dropout_mask(spec, site, batch.T, batch.lengths, mask);
  out = (x.array() * mask.array()).matrix();
}

// out = a + dropout(branch), straight into the cache. Two passes, not a + branch * mask in one:
// the compiler fuses that into a multiply-add, rounded once instead of twice (it changed the
// trained bits), and the built-in models were trained with two roundings.
template <typename S>
void add_dropped(const DropoutSpec& spec, int site, const Batch& batch, const Mat<S>& a,
                 const Mat<S>& branch, Mat<S>& mask, Mat<S>& out) {
  dropped_into(spec, site, batch, branch, mask, out);
  out += a;
}

// x0 = E[ids] + P[0:T] (positions only when the model has them); padding rows are 0. E is
// embed_rows when given, else the parameters' own table.
template <typename S>
void embed(const Params<S>& P, const Config& c, const Mat<S>& positions, const Batch& batch,
           const S* embed_rows, Mat<S>& x0) {
  const int T = batch.T;
  const Eigen::Map<const Mat<S>> E(embed_rows ? embed_rows : P.embed.data(),
                                   embed_rows ? c.vocab_size : P.embed.rows(), c.d_model);
  x0.setZero(static_cast<Eigen::Index>(batch.B) * T, c.d_model);
  for (int b = 0; b < batch.B; ++b) {
    for (int t = 0; t < batch.lengths[b]; ++t) {
      x0.row(b * T + t) = E.row(batch.ids[b * T + t]);
      if (c.positional == Positional::kSinusoidal) x0.row(b * T + t) += positions.row(t);
    }
  }
}

// pooled = the configured pooling of z over each email's real tokens; rows as max_pool_forward,
// weights as attention_pool_forward.
template <typename S>
void pool(const Params<S>& P, const Config& c, const Mat<S>& z, const Batch& batch, Mat<S>& pooled,
          std::vector<int>& rows, Mat<S>& weights) {
  switch (c.pooling) {
    case Pooling::kMax:
      max_pool_forward(z, batch.T, batch.lengths, pooled, rows);
      break;
    case Pooling::kAttention:
      attention_pool_forward(z, P.pool_q, batch.T, batch.lengths, pooled, weights);
      break;
    case Pooling::kMean:
      mean_pool_forward(z, batch.T, batch.lengths, pooled);
      break;
  }
}

}  // namespace

template <typename S>
void encoder_forward(const Params<S>& P, const Config& c, const Mat<S>& positions,
                     const Batch& batch, double dropout, ForwardCache<S>& cache,
                     const S* embed_rows) {
  const int T = batch.T;
  const DropoutSpec spec{dropout, &batch.keys};

  embed(P, c, positions, batch, embed_rows, cache.x0);
  cache.blocks.resize(c.n_layers);
  // Each block reads its input from x_in, where the previous step wrote it.
  dropped_into(spec, kSiteEmbed, batch, cache.x0, cache.drop0,
               c.n_layers > 0 ? cache.blocks[0].x_in : cache.x_final);
  for (int l = 0; l < c.n_layers; ++l) {
    const auto& W = P.layers[l];
    auto& k = cache.blocks[l];
    // h = x + dropout(Attn(LN1(x)))
    layernorm_forward(k.x_in, W.ln1_w, W.ln1_b, k.u1, k.ln1);
    attention_forward(k.u1, W.qkv_w, W.out_w, c.n_heads, T, batch.lengths, spec, site_of(l, 0),
                      k.attn_out, k.attn);
    add_dropped(spec, site_of(l, 1), batch, k.x_in, k.attn_out, k.drop1, k.h);
    // x = h + dropout(FFN(LN2(h)))
    layernorm_forward(k.h, W.ln2_w, W.ln2_b, k.u2, k.ln2);
    linear_forward(k.u2, W.fc1_w, &W.fc1_b, k.pre);
    gelu_forward(k.pre, k.act);
    linear_forward(k.act, W.fc2_w, &W.fc2_b, k.ff_out);
    Mat<S>& next = l + 1 < c.n_layers ? cache.blocks[l + 1].x_in : cache.x_final;
    add_dropped(spec, site_of(l, 2), batch, k.h, k.ff_out, k.drop2, next);
  }
  layernorm_forward(cache.x_final, P.norm_w, P.norm_b, cache.z, cache.lnf);
  pool(P, c, cache.z, batch, cache.pooled, cache.pool_rows, cache.pool_weights);
  linear_forward(cache.pooled, P.cls_w, &P.cls_b, cache.logits);
}

template <typename S>
InferenceWeights<S> inference_weights(const Params<S>& P) {
  InferenceWeights<S> w;
  for (const auto& L : P.layers) {
    w.layers.push_back(
        {L.qkv_w.transpose(), L.out_w.transpose(), L.fc1_w.transpose(), L.fc2_w.transpose()});
  }
  w.cls = P.cls_w.transpose();
  return w;
}

template <typename S>
Mat<S> encoder_logits(const Params<S>& P, const InferenceWeights<S>& Wt, const Config& c,
                      const Mat<S>& positions, const Batch& batch, const S* embed_rows) {
  Mat<S> x, u, branch, pre, act, pooled, weights, logits;
  embed(P, c, positions, batch, embed_rows, x);
  LayerNormCache<S> stats;  // written, not needed
  for (size_t l = 0; l < P.layers.size(); ++l) {
    const auto& W = P.layers[l];
    const auto& T = Wt.layers[l];
    layernorm_forward(x, W.ln1_w, W.ln1_b, u, stats);
    attention_infer(u, T.qkv, T.out, c.n_heads, batch.T, batch.lengths, branch);
    x += branch;
    layernorm_forward(x, W.ln2_w, W.ln2_b, u, stats);
    linear_forward_transposed(u, T.fc1, &W.fc1_b, pre);
    gelu_forward(pre, act);
    linear_forward_transposed(act, T.fc2, &W.fc2_b, branch);
    x += branch;
  }
  layernorm_forward(x, P.norm_w, P.norm_b, u, stats);
  std::vector<int> rows;
  pool(P, c, u, batch, pooled, rows, weights);
  linear_forward_transposed(pooled, Wt.cls, &P.cls_b, logits);
  return logits;
}

namespace {

// d / d branch of x = a + dropout(branch): dx * mask, in a matrix of its own that the tasks
// reading it keep alive; dx itself when dropout was off (an empty mask) and nothing is deferred.
template <typename S>
std::shared_ptr<const Mat<S>> dropped(const Mat<S>& dx, const Mat<S>& mask, bool deferred) {
  if (mask.size() == 0) {
    if (!deferred) return {std::shared_ptr<const Mat<S>>{}, &dx};  // aliasing, owns nothing
    return std::make_shared<const Mat<S>>(dx);
  }
  return std::make_shared<const Mat<S>>((dx.array() * mask.array()).matrix());
}

}  // namespace

template <typename S>
void encoder_backward(const Params<S>& P, const Config& c, const Batch& batch, double dropout,
                      const ForwardCache<S>& cache, const Mat<S>& dlogits, Params<S>& G,
                      const Later* later) {
  const int D = c.d_model, T = batch.T, N = batch.B * T;
  (void)dropout;
  const Later now = run_now;
  const Later& defer = later ? *later : now;
  // logits = pooled Wc^T + bc
  Mat<S> dpooled = Mat<S>::Zero(batch.B, D);
  linear_backward_input(dlogits, P.cls_w, dpooled);
  defer([&dlogits, &cache, &G] {
    linear_backward_weights(dlogits, cache.pooled, G.cls_w, &G.cls_b);
  });
  // pooled = mean_{t < len} z_t, max_{t < len} z_t per column, or sum_t softmax_t(z_t . q) z_t
  Mat<S> dz = Mat<S>::Zero(N, D);
  switch (c.pooling) {
    case Pooling::kMax:
      max_pool_backward(dpooled, cache.pool_rows, dz);
      break;
    case Pooling::kAttention:
      attention_pool_backward(dpooled, cache.z, P.pool_q, T, batch.lengths, cache.pool_weights, dz,
                              G.pool_q);
      break;
    case Pooling::kMean:
      mean_pool_backward(dpooled, T, batch.lengths, dz);
      break;
  }
  encoder_backward_from_z(P, c, batch, cache, dz, G, later);
}

template <typename S>
void encoder_backward_from_z(const Params<S>& P, const Config& c, const Batch& batch,
                             const ForwardCache<S>& cache, const Mat<S>& dz, Params<S>& G,
                             const Later* later) {
  const int D = c.d_model, T = batch.T, N = batch.B * T;
  const Later now = run_now;
  const Later& defer = later ? *later : now;
  // z = LNf(x_final)
  Mat<S> dx = Mat<S>::Zero(N, D);
  layernorm_backward(dz, cache.x_final, P.norm_w, cache.lnf, dx, G.norm_w, G.norm_b);

  Mat<S> dact, du;
  for (int l = c.n_layers - 1; l >= 0; --l) {
    const auto& W = P.layers[l];
    auto& g = G.layers[l];
    const auto& k = cache.blocks[l];
    // x = h + dropout(ff_out): dh gets dx, the branch gets dx * mask
    const auto dff = dropped(dx, k.drop2, later != nullptr);
    // ff_out = act W2^T + b2
    dact.setZero(N, c.d_ff);
    linear_backward_input(*dff, W.fc2_w, dact);
    defer([dff, &k, &g] { linear_backward_weights(*dff, k.act, g.fc2_w, &g.fc2_b); });
    // act = GELU(pre)
    auto dpre = std::make_shared<Mat<S>>(Mat<S>::Zero(N, c.d_ff));
    gelu_backward(dact, k.pre, *dpre);
    // pre = u2 W1^T + b1
    du.setZero(N, D);
    linear_backward_input(*dpre, W.fc1_w, du);
    defer([dpre, &k, &g] { linear_backward_weights(*dpre, k.u2, g.fc1_w, &g.fc1_b); });
    // u2 = LN2(h); dx now holds dh
    layernorm_backward(du, k.h, W.ln2_w, k.ln2, dx, g.ln2_w, g.ln2_b);
    // h = x_in + dropout(attn_out)
    const auto dattn = dropped(dx, k.drop1, later != nullptr);
    du.setZero(N, D);
    // Its tasks hold dattn until they have run.
    const Later keep = [&defer, dattn](std::function<void()> task) {
      defer([dattn, task = std::move(task)] { task(); });
    };
    attention_backward(*dattn, k.u1, W.qkv_w, W.out_w, c.n_heads, T, batch.lengths, k.attn, du,
                       g.qkv_w, g.out_w, keep);
    // u1 = LN1(x_in); dx now holds dx_in
    layernorm_backward(du, k.x_in, W.ln1_w, k.ln1, dx, g.ln1_w, g.ln1_b);
  }
  // x = dropout(x0); x0 = E[ids] + P
  if (cache.drop0.size()) dx.array() *= cache.drop0.array();
  for (int b = 0; b < batch.B; ++b) {
    for (int t = 0; t < batch.lengths[b]; ++t) {
      G.embed.row(batch.ids[b * T + t]) += dx.row(b * T + t);
    }
  }
}

template void encoder_forward<float>(const Params<float>&, const Config&, const Mat<float>&,
                                     const Batch&, double, ForwardCache<float>&, const float*);
template void encoder_forward<double>(const Params<double>&, const Config&, const Mat<double>&,
                                      const Batch&, double, ForwardCache<double>&, const double*);
template InferenceWeights<float> inference_weights<float>(const Params<float>&);
template InferenceWeights<double> inference_weights<double>(const Params<double>&);
template Mat<float> encoder_logits<float>(const Params<float>&, const InferenceWeights<float>&,
                                          const Config&, const Mat<float>&, const Batch&,
                                          const float*);
template Mat<double> encoder_logits<double>(const Params<double>&, const InferenceWeights<double>&,
                                            const Config&, const Mat<double>&, const Batch&,
                                            const double*);
template void encoder_backward<float>(const Params<float>&, const Config&, const Batch&, double,
                                      const ForwardCache<float>&, const Mat<float>&, Params<float>&,
                                      const Later*);
template void encoder_backward<double>(const Params<double>&, const Config&, const Batch&, double,
                                       const ForwardCache<double>&, const Mat<double>&,
                                       Params<double>&, const Later*);
template void encoder_backward_from_z<float>(const Params<float>&, const Config&, const Batch&,
                                             const ForwardCache<float>&, const Mat<float>&,
                                             Params<float>&, const Later*);
template void encoder_backward_from_z<double>(const Params<double>&, const Config&, const Batch&,
                                              const ForwardCache<double>&, const Mat<double>&,
                                              Params<double>&, const Later*);

}  // namespace router

#include <numeric>

#include "base/parallel.h"

namespace router {

Mat<float> infer_logits(const Params<float>& params, const InferenceWeights<float>& weights,
                        const Config& config, const Mat<float>& positions,
                        const std::vector<std::vector<int32_t>>& sequences, int threads,
                        const float* embed_rows) {
  constexpr int kBatch = 32;
  const int n = static_cast<int>(sequences.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return sequences[a].size() < sequences[b].size(); });
  Mat<float> out(n, config.num_labels);
  const int n_batches = (n + kBatch - 1) / kBatch;
  parallel_for(n_batches, threads, [&](int k) {
    const int lo = k * kBatch, hi = std::min(n, lo + kBatch);
    std::vector<const std::vector<int32_t>*> seqs;
    for (int j = lo; j < hi; ++j) seqs.push_back(&sequences[order[j]]);
    const Mat<float> logits =
        encoder_logits(params, weights, config, positions, make_batch(seqs), embed_rows);
    for (int j = lo; j < hi; ++j) out.row(order[j]) = logits.row(j - lo);
  });
  return out;
}

}  // namespace router
