#include "nn/layers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <unsupported/Eigen/SpecialFunctions>

#include "base/random_streams.h"
#include "base/rng.h"
#include "nn/matmul.h"

namespace router {

using matmul::add_product_tn;
using matmul::product_nn;
using matmul::product_nt;
using matmul::round_up;
using matmul::rows_product;

template <typename S>
void dropout_mask(const DropoutSpec& spec, int site, int T, const std::vector<int>& lengths,
                  Mat<S>& mask) {
  const S keep_scale = static_cast<S>(1.0 / (1.0 - spec.p));
  const Eigen::Index cols = mask.cols();
  for (size_t b = 0; b < lengths.size(); ++b) {
    Rng rng(streams::dropout((*spec.keys)[b], site));
    // Rows are contiguous (row-major): the email's real rows are one run of draws, its padding
    // rows the zeros after them.
    S* rows = mask.data() + b * T * cols;
    const size_t real = static_cast<size_t>(lengths[b]) * cols;
    rng.fill_keep_mask(rows, real, spec.p, keep_scale);
    std::fill(rows + real, rows + static_cast<size_t>(T) * cols, S(0));
  }
}

// ---------------------------------------------------------------------------------------------
// Layer norm

template <typename S>
void layernorm_forward(const Mat<S>& x, const Vec<S>& w, const Vec<S>& b, Mat<S>& y,
                       LayerNormCache<S>& cache) {
  const Eigen::Index N = x.rows(), D = x.cols();
  y.resize(N, D);
  cache.mean.resize(N);
  cache.rstd.resize(N);
  for (Eigen::Index i = 0; i < N; ++i) {
    const auto row = x.row(i);
    const S mean = row.mean();
    const S var = (row.array() - mean).square().mean();  // biased, as PyTorch
    const S rstd = S(1) / std::sqrt(var + S(1e-5));
    cache.mean(i) = mean;
    cache.rstd(i) = rstd;
    y.row(i) =
        ((row.array() - mean) * rstd * w.transpose().array() + b.transpose().array()).matrix();
  }
}

template <typename S>
void layernorm_backward(const Mat<S>& dy, const Mat<S>& x, const Vec<S>& w,
                        const LayerNormCache<S>& cache, Mat<S>& dx, Vec<S>& dw, Vec<S>& db) {
  const Eigen::Index N = x.rows(), D = x.cols();
  RowVec<S> xhat(D), dxhat(D);  // one row's work space, allocated once
  for (Eigen::Index i = 0; i < N; ++i) {
    const S mean = cache.mean(i), rstd = cache.rstd(i);
    // xhat = (x - mean) * rstd; y = xhat * w + b
    xhat = (x.row(i).array() - mean) * rstd;
    dw += (dy.row(i).array() * xhat.array()).matrix().transpose();
    db += dy.row(i).transpose();
    // dxhat = dy * w; dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
    dxhat = dy.row(i).array() * w.transpose().array();
    const S mean_dxhat = dxhat.sum() / S(D);
    const S mean_dxhat_xhat = (dxhat.array() * xhat.array()).sum() / S(D);
    dx.row(i).array() += rstd * (dxhat.array() - mean_dxhat - xhat.array() * mean_dxhat_xhat);
  }
}

// ---------------------------------------------------------------------------------------------
// Linear

template <typename S>
void linear_forward(const Mat<S>& x, const Mat<S>& W, const Vec<S>* b, Mat<S>& y) {
  product_nt(x, W, y);
  if (b) y.rowwise() += b->transpose();
}

template <typename S>
void linear_forward_transposed(const Mat<S>& x, const Mat<S>& A, const Vec<S>* b, Mat<S>& y) {
  product_nn(x, A, y, false);
  if (b) y.rowwise() += b->transpose();
}

template <typename S>
void linear_backward(const Mat<S>& dy, const Mat<S>& x, const Mat<S>& W, Mat<S>* dx, Mat<S>& dW,
                     Vec<S>* db) {
  // y = x W^T + b  =>  dx = dy W, dW = dy^T x, db = sum over rows of dy
  if (dx) linear_backward_input(dy, W, *dx);
  linear_backward_weights(dy, x, dW, db);
}

template <typename S>
void linear_backward_input(const Mat<S>& dy, const Mat<S>& W, Mat<S>& dx) {
  product_nn(dy, W, dx, true);
}

template <typename S>
void linear_backward_weights(const Mat<S>& dy, const Mat<S>& x, Mat<S>& dW, Vec<S>* db) {
  add_product_tn(dy, x, dW);
  if (db) *db += dy.colwise().sum().transpose();
}

// ---------------------------------------------------------------------------------------------
// GELU

template <typename S>
void gelu_forward(const Mat<S>& x, Mat<S>& y) {
  // Eigen's vectorised erf: several times faster than calling std::erf per element.
  const S inv_sqrt2 = S(0.70710678118654752440);
  y.resize(x.rows(), x.cols());
  y.array() = S(0.5) * x.array() * (S(1) + (x.array() * inv_sqrt2).erf());
}

template <typename S>
void gelu_backward(const Mat<S>& dy, const Mat<S>& x, Mat<S>& dx) {
  // d/dx [0.5 x (1 + erf(x/sqrt2))] = 0.5 (1 + erf(x/sqrt2)) + x * N(x), N the standard normal pdf
  const S inv_sqrt2 = S(0.70710678118654752440);
  const S inv_sqrt2pi = S(0.39894228040143267794);
  dx.array() += dy.array() * (S(0.5) * (S(1) + (x.array() * inv_sqrt2).erf()) +
                              x.array() * inv_sqrt2pi * (S(-0.5) * x.array().square()).exp());
}

// ---------------------------------------------------------------------------------------------
// Multi-head self-attention

template <typename S>
void attention_forward(const Mat<S>& u, const Mat<S>& W_qkv, const Mat<S>& W_o, int n_heads, int T,
                       const std::vector<int>& lengths, const DropoutSpec& dropout, int site,
                       Mat<S>& out, AttentionCache<S>& cache) {
  const int D = static_cast<int>(u.cols()), Dh = D / n_heads;
  const int B = static_cast<int>(lengths.size());
  const S scale = S(1) / std::sqrt(S(Dh));  // keeps score variance independent of Dh
  product_nt(u, W_qkv, cache.qkv);          // (N, 3D)
  const Eigen::Index ld = cache.qkv.cols();
  cache.concat.setZero(u.rows(), D);
  cache.offsets.resize(static_cast<size_t>(B) * n_heads);
  cache.sizes.resize(static_cast<size_t>(B) * n_heads);
  size_t total = 0;
  for (int b = 0; b < B; ++b) {
    for (int h = 0; h < n_heads; ++h) {
      cache.offsets[b * n_heads + h] = total;
      cache.sizes[b * n_heads + h] = lengths[b];
      total += static_cast<size_t>(lengths[b]) * lengths[b];
    }
  }
  cache.probs.resize(total);
  cache.drop.resize(dropout.p > 0 ? total : 0);
  Mat<S> kt, sc, pm;  // (Dh, n8) keys transposed, (n, n8) scores, (n, n) probs * dropout mask
  for (int b = 0; b < B; ++b) {
    const int n = lengths[b], n8 = round_up(n, 8);  // keys beyond n: masked, never read
    Rng rng(dropout.p > 0 ? streams::dropout((*dropout.keys)[b], site) : 0);
    kt.setZero(Dh, n8);
    sc.resize(n, n8);
    for (int h = 0; h < n_heads; ++h) {
      const S* q = &cache.qkv(b * T, h * Dh);
      const S* v = &cache.qkv(b * T, 2 * D + h * Dh);
      kt.leftCols(n) = cache.qkv.block(b * T, D + h * Dh, n, Dh).transpose();
      rows_product(q, ld, 1, n, Dh, kt.data(), n8, n8, S(1), sc.data(), n8);
      // Max-subtracted softmax of scale * scores (exp never overflows). The padding columns go
      // to the bottom of exp's range, and exp runs over the whole buffer at once: row by row,
      // Eigen's vectorised exp would cover only each short row's full vectors.
      for (int i = 0; i < n; ++i) {
        auto row = sc.row(i);
        const S mx = row.head(n).maxCoeff();
        row.head(n) = (row.head(n).array() - mx) * scale;
        row.tail(n8 - n).setConstant(-std::numeric_limits<S>::infinity());
      }
      sc.array() = sc.array().exp();
      const size_t at = cache.offsets[b * n_heads + h];
      Eigen::Map<Mat<S>> p(cache.probs.data() + at, n, n);
      for (int i = 0; i < n; ++i) p.row(i) = sc.row(i).head(n) / sc.row(i).head(n).sum();
      const S* weights = p.data();
      if (dropout.p > 0) {
        Eigen::Map<Mat<S>> m(cache.drop.data() + at, n, n);
        const S keep_scale = static_cast<S>(1.0 / (1.0 - dropout.p));
        rng.fill_keep_mask(m.data(), static_cast<size_t>(m.size()), dropout.p, keep_scale);
        pm = p.array() * m.array();
        weights = pm.data();
      }
      // o = weights v
      rows_product(weights, n, 1, n, n, v, ld, Dh, S(1), &cache.concat(b * T, h * Dh), D);
    }
  }
  product_nt(cache.concat, W_o, out);
}

namespace {

// attention_infer runs the queries of a head along the vector lanes, in whole vectors of kLanes,
// and kQueries queries at a time: their scores against every key, (n, kQueries), stay in L2 (128
// KiB at 512 keys), where one head's whole (n, n) table would not (1 MiB at 512).
constexpr int kLanes = 16;
constexpr int kQueries = 64;
template <typename S>
using Lane = Eigen::Array<S, kLanes, 1>;

}  // namespace

template <typename S>
void attention_infer(const Mat<S>& u, const Mat<S>& W_qkv_t, const Mat<S>& W_o_t, int n_heads,
                     int T, const std::vector<int>& lengths, Mat<S>& out) {
  using L = Lane<S>;
  const int D = static_cast<int>(u.cols()), Dh = D / n_heads;
  const int B = static_cast<int>(lengths.size());
  const S scale = S(1) / std::sqrt(S(Dh));
  Mat<S> qkv;
  product_nn(u, W_qkv_t, qkv, false);  // (N, 3D)
  const Eigen::Index ld = qkv.cols();
  Mat<S> concat = Mat<S>::Zero(u.rows(), D);
  // The scores are held transposed, one row per key and one lane per query, so the softmax over
  // keys is an element-wise reduction down the rows. The padding queries (zero) are never read.
  // Each score and output is one chain of multiply-adds whatever the block of queries, so the
  // blocking does not change the bits.
  Mat<S> qt, st, ot;  // (Dh, n_pad) queries * scale; for a block: (n, w) scores, (Dh, w) outputs
  RowVec<S> l;        // (w) per query of a block: the sum of exp(score - max)
  for (int b = 0; b < B; ++b) {
    const int n = lengths[b], n_pad = round_up(n, kLanes), w = std::min(kQueries, n_pad);
    qt.resize(Dh, n_pad);
    qt.rightCols(n_pad - n).setZero();  // the padding queries; the real ones are written per head
    st.resize(n, w);
    ot.resize(Dh, w);
    l.resize(w);
    for (int h = 0; h < n_heads; ++h) {
      qt.leftCols(n) = qkv.block(b * T, h * Dh, n, Dh).transpose() * scale;
      const S* k = &qkv(b * T, D + h * Dh);
      const S* v = &qkv(b * T, 2 * D + h * Dh);
      for (int q0 = 0; q0 < n_pad; q0 += w) {
        const int m = std::min(w, n_pad - q0);  // the block's queries, a multiple of kLanes
        rows_product(k, ld, 1, n, Dh, qt.data() + q0, n_pad, m, S(1), st.data(), w);
        for (int j = 0; j < m; j += kLanes) {
          L mx = Eigen::Map<const L>(&st(0, j));
          for (int key = 1; key < n; ++key) mx = mx.max(Eigen::Map<const L>(&st(key, j)));
          L sum = L::Zero();
          for (int key = 0; key < n; ++key) {
            Eigen::Map<L> e(&st(key, j));
            e = (e - mx).exp();
            sum += e;
          }
          Eigen::Map<L>(&l(j)) = sum;
        }
        rows_product(v, 1, ld, Dh, n, st.data(), w, m, S(1), ot.data(), w);
        const int real = std::min(m, n - q0);
        concat.block(b * T + q0, h * Dh, real, Dh) =
            (ot.leftCols(real).array().rowwise() / l.head(real).array()).matrix().transpose();
      }
    }
  }
  product_nn(concat, W_o_t, out, false);
}

template <typename S>
void attention_backward(const Mat<S>& dout, const Mat<S>& u, const Mat<S>& W_qkv, const Mat<S>& W_o,
                        int n_heads, int T, const std::vector<int>& lengths,
                        const AttentionCache<S>& cache, Mat<S>& du, Mat<S>& dW_qkv, Mat<S>& dW_o) {
  attention_backward(dout, u, W_qkv, W_o, n_heads, T, lengths, cache, du, dW_qkv, dW_o, run_now);
}

template <typename S>
void attention_backward(const Mat<S>& dout, const Mat<S>& u, const Mat<S>& W_qkv, const Mat<S>& W_o,
                        int n_heads, int T, const std::vector<int>& lengths,
                        const AttentionCache<S>& cache, Mat<S>& du, Mat<S>& dW_qkv, Mat<S>& dW_o,
                        const Later& later) {
  const int D = static_cast<int>(u.cols()), Dh = D / n_heads;
  const int B = static_cast<int>(lengths.size());
  const S scale = S(1) / std::sqrt(S(Dh));
  // out = concat W_o^T
  later([&dout, &cache, &dW_o] { add_product_tn(dout, cache.concat, dW_o); });
  Mat<S> dconcat;
  product_nn(dout, W_o, dconcat, false);
  // Shared with the task that makes dW_qkv from it, which may run after this function returns.
  const auto dqkv_kept = std::make_shared<Mat<S>>(Mat<S>::Zero(u.rows(), 3 * D));
  Mat<S>& dqkv = *dqkv_kept;  // padding rows stay 0
  const Eigen::Index ld = dqkv.cols();
  const bool dropped = !cache.drop.empty();
  Mat<S> vt, dp, pm, ds;  // (Dh, n8) values transposed, (n, n8), (n, n), (n, n) work space
  for (int b = 0; b < B; ++b) {
    const int n = lengths[b], n8 = round_up(n, 8);
    vt.setZero(Dh, n8);
    dp.resize(n, n8);
    ds.resize(n, n);
    for (int h = 0; h < n_heads; ++h) {
      const S* q = &cache.qkv(b * T, h * Dh);
      const S* k = &cache.qkv(b * T, D + h * Dh);
      const auto p = cache.prob(b * n_heads + h);
      const S* d_o = &dconcat(b * T, h * Dh);
      // o = w v, with w = p * mask: dv = w^T do
      const S* w = p.data();
      if (dropped) {
        pm = p.array() * cache.mask(b * n_heads + h).array();
        w = pm.data();
      }
      rows_product(w, 1, n, n, n, d_o, D, Dh, S(1), &dqkv(b * T, 2 * D + h * Dh), ld);
      // dw = do v^T; dp = dw * mask
      vt.leftCols(n) = cache.qkv.block(b * T, 2 * D + h * Dh, n, Dh).transpose();
      rows_product(d_o, D, 1, n, Dh, vt.data(), n8, n8, S(1), dp.data(), n8);
      // p = softmax(s): ds = p * (dp - rowsum(dp * p))
      for (int i = 0; i < n; ++i) {
        auto dpi = dp.row(i).head(n);
        if (dropped) dpi.array() *= cache.mask(b * n_heads + h).row(i).array();
        const S dot = (dpi.array() * p.row(i).array()).sum();
        ds.row(i) = p.row(i).array() * (dpi.array() - dot);
      }
      // s = q k^T * scale: dq = ds k * scale, dk = ds^T q * scale
      rows_product(ds.data(), n, 1, n, n, k, ld, Dh, scale, &dqkv(b * T, h * Dh), ld);
      rows_product(ds.data(), 1, n, n, n, q, ld, Dh, scale, &dqkv(b * T, D + h * Dh), ld);
    }
  }
  // qkv = u W_qkv^T
  later([dqkv_kept, &u, &dW_qkv] { add_product_tn(*dqkv_kept, u, dW_qkv); });
  product_nn(dqkv, W_qkv, du, true);
}

// ---------------------------------------------------------------------------------------------
// Mean pooling

template <typename S>
void mean_pool_forward(const Mat<S>& z, int T, const std::vector<int>& lengths, Mat<S>& pooled) {
  const int B = static_cast<int>(lengths.size());
  pooled.setZero(B, z.cols());
  for (int b = 0; b < B; ++b) {
    pooled.row(b) = z.block(b * T, 0, lengths[b], z.cols()).colwise().sum() / S(lengths[b]);
  }
}

template <typename S>
void mean_pool_backward(const Mat<S>& dpooled, int T, const std::vector<int>& lengths, Mat<S>& dz) {
  const int B = static_cast<int>(lengths.size());
  for (int b = 0; b < B; ++b) {
    // pooled_b = (1/n) sum_{t<n} z_t
    const RowVec<S> g = dpooled.row(b) / S(lengths[b]);
    for (int t = 0; t < lengths[b]; ++t) dz.row(b * T + t) += g;
  }
}

// ---------------------------------------------------------------------------------------------
// Max pooling

template <typename S>
void max_pool_forward(const Mat<S>& z, int T, const std::vector<int>& lengths, Mat<S>& pooled,
                      std::vector<int>& rows) {
  const int B = static_cast<int>(lengths.size());
  const auto D = z.cols();
  pooled.resize(B, D);
  rows.resize(static_cast<size_t>(B) * D);
  for (int b = 0; b < B; ++b) {
    // Row by row, so z is read in its storage order.
    int* arg = rows.data() + static_cast<size_t>(b) * D;
    std::fill(arg, arg + D, b * T);
    pooled.row(b) = z.row(b * T);
    for (int t = 1; t < lengths[b]; ++t) {
      const int r = b * T + t;
      for (Eigen::Index d = 0; d < D; ++d) {
        if (z(r, d) > pooled(b, d)) {
          pooled(b, d) = z(r, d);
          arg[d] = r;
        }
      }
    }
  }
}

template <typename S>
void max_pool_backward(const Mat<S>& dpooled, const std::vector<int>& rows, Mat<S>& dz) {
  const auto D = dpooled.cols();
  for (Eigen::Index b = 0; b < dpooled.rows(); ++b) {
    for (Eigen::Index d = 0; d < D; ++d) dz(rows[b * D + d], d) += dpooled(b, d);
  }
}

// ---------------------------------------------------------------------------------------------
// Attention pooling

template <typename S>
void attention_pool_forward(const Mat<S>& z, const Vec<S>& q, int T,
                            const std::vector<int>& lengths, Mat<S>& pooled, Mat<S>& weights) {
  // Plain loops, each sum in one fixed order: an email's bits must not depend on where its rows
  // sit in the batch (Eigen's products and exp may take other paths at other alignments).
  const int B = static_cast<int>(lengths.size());
  const Eigen::Index D = z.cols();
  const S scale = S(1) / std::sqrt(S(D));
  pooled.setZero(B, D);
  weights.setZero(B, T);
  for (int b = 0; b < B; ++b) {
    const int n = lengths[b];
    S top = -std::numeric_limits<S>::infinity();
    for (int t = 0; t < n; ++t) {
      S s = 0;
      for (Eigen::Index d = 0; d < D; ++d) s += z(b * T + t, d) * q(d);
      weights(b, t) = s * scale;
      top = std::max(top, weights(b, t));
    }
    S sum = 0;
    for (int t = 0; t < n; ++t) sum += weights(b, t) = std::exp(weights(b, t) - top);
    for (int t = 0; t < n; ++t) {
      weights(b, t) /= sum;
      for (Eigen::Index d = 0; d < D; ++d) pooled(b, d) += weights(b, t) * z(b * T + t, d);
    }
  }
}

template <typename S>
void attention_pool_backward(const Mat<S>& dpooled, const Mat<S>& z, const Vec<S>& q, int T,
                             const std::vector<int>& lengths, const Mat<S>& weights, Mat<S>& dz,
                             Vec<S>& dq) {
  const int B = static_cast<int>(lengths.size());
  const S scale = S(1) / std::sqrt(S(z.cols()));
  for (int b = 0; b < B; ++b) {
    const int n = lengths[b];
    const auto zb = z.block(b * T, 0, n, z.cols());
    const RowVec<S> a = weights.row(b).head(n);
    // pooled = sum_t a_t z_t: d a_t = dpooled . z_t; through the softmax, d s_t = a_t (d a_t -
    // sum_u a_u d a_u); s_t = z_t . q * scale.
    const RowVec<S> da = (zb * dpooled.row(b).transpose()).transpose();
    const RowVec<S> ds = (a.array() * (da.array() - a.dot(da))).matrix() * scale;
    dz.block(b * T, 0, n, z.cols()) +=
        a.transpose() * dpooled.row(b) + ds.transpose() * q.transpose();
    dq += (ds * zb).transpose();
  }
}

// ---------------------------------------------------------------------------------------------
// Softmax cross-entropy with label smoothing

template <typename S>
Vec<S> softmax(const Vec<S>& logits, double temperature) {
  Vec<S> scaled = logits / static_cast<S>(temperature);
  const S mx = scaled.maxCoeff();
  Vec<S> e = (scaled.array() - mx).exp();
  return e / e.sum();
}

Mat<double> smoothed_targets(const std::vector<int>& targets, int num_labels, double smoothing) {
  // q = (1 - eps) onehot + eps / K
  const double off = smoothing / num_labels, on = 1.0 - smoothing + off;
  Mat<double> q = Mat<double>::Constant(static_cast<Eigen::Index>(targets.size()), num_labels, off);
  for (size_t b = 0; b < targets.size(); ++b) q(static_cast<Eigen::Index>(b), targets[b]) = on;
  return q;
}

template <typename S>
double softmax_xent(const Mat<S>& logits, const Mat<double>& q, Mat<S>& dlogits) {
  const Eigen::Index B = logits.rows(), K = logits.cols();
  dlogits.resize(B, K);
  double loss = 0;
  for (Eigen::Index b = 0; b < B; ++b) {
    const S mx = logits.row(b).maxCoeff();
    const S lse = mx + std::log((logits.row(b).array() - mx).exp().sum());
    for (Eigen::Index k = 0; k < K; ++k) {
      const double logp = static_cast<double>(logits(b, k) - lse);
      loss -= q(b, k) * logp;
      dlogits(b, k) = static_cast<S>((std::exp(logp) - q(b, k)) / B);
    }
  }
  return loss / B;
}

template <typename S>
double softmax_xent(const Mat<S>& logits, const std::vector<int>& targets, double smoothing,
                    Mat<S>& dlogits) {
  return softmax_xent(logits, smoothed_targets(targets, static_cast<int>(logits.cols()), smoothing),
                      dlogits);
}

template <typename S>
double masked_token_loss(const Mat<S>& z, const Mat<S>& E, const std::vector<int>& rows,
                         const std::vector<int>& targets, double scale, Mat<S>& dz, Mat<S>& dE,
                         int* correct) {
  const auto M = static_cast<Eigen::Index>(rows.size());
  if (M == 0) return 0;
  // z / sqrt(D): a unit-scale product, as attention's, since the table is N(0, 1) and z is
  // layer-normed.
  const S inv_sqrt_d = static_cast<S>(1.0 / std::sqrt(static_cast<double>(z.cols())));
  Mat<S> zm(M, z.cols());
  for (Eigen::Index r = 0; r < M; ++r) zm.row(r) = z.row(rows[r]) * inv_sqrt_d;
  Mat<S> logits;
  linear_forward(zm, E, static_cast<const Vec<S>*>(nullptr), logits);  // (M, V)
  // Hard targets over the whole vocabulary: softmax_xent's (M, V) target matrix would cost more
  // than the logits, so the rows are done here, in place.
  double loss = 0;
  for (Eigen::Index r = 0; r < M; ++r) {
    auto row = logits.row(r);
    Eigen::Index arg;
    const S mx = row.maxCoeff(&arg);
    if (correct) *correct += arg == targets[r];
    const double target_logit = static_cast<double>(row(targets[r]) - mx);
    row.array() = (row.array() - mx).exp();
    const S sum = row.sum();
    loss += std::log(static_cast<double>(sum)) - target_logit;
    row *= static_cast<S>(scale / M) / sum;  // d loss / d logits = (p - onehot) / M
    row(targets[r]) -= static_cast<S>(scale / M);
  }
  Mat<S> dzm = Mat<S>::Zero(M, z.cols());
  linear_backward_input(logits, E, dzm);
  for (Eigen::Index r = 0; r < M; ++r) dz.row(rows[r]) += dzm.row(r) * inv_sqrt_d;
  linear_backward_weights(logits, zm, dE, static_cast<Vec<S>*>(nullptr));
  return loss / M;
}

#define ROUTER_INSTANTIATE_LAYERS(S)                                                               \
  template void dropout_mask<S>(const DropoutSpec&, int, int, const std::vector<int>&, Mat<S>&);   \
  template void layernorm_forward<S>(const Mat<S>&, const Vec<S>&, const Vec<S>&, Mat<S>&,         \
                                     LayerNormCache<S>&);                                          \
  template void layernorm_backward<S>(const Mat<S>&, const Mat<S>&, const Vec<S>&,                 \
                                      const LayerNormCache<S>&, Mat<S>&, Vec<S>&, Vec<S>&);        \
  template void linear_forward<S>(const Mat<S>&, const Mat<S>&, const Vec<S>*, Mat<S>&);           \
  template void linear_forward_transposed<S>(const Mat<S>&, const Mat<S>&, const Vec<S>*,          \
                                             Mat<S>&);                                             \
  template void linear_backward<S>(const Mat<S>&, const Mat<S>&, const Mat<S>&, Mat<S>*, Mat<S>&,  \
                                   Vec<S>*);                                                       \
  template void linear_backward_input<S>(const Mat<S>&, const Mat<S>&, Mat<S>&);                   \
  template void linear_backward_weights<S>(const Mat<S>&, const Mat<S>&, Mat<S>&, Vec<S>*);        \
  template void gelu_forward<S>(const Mat<S>&, Mat<S>&);                                           \
  template void gelu_backward<S>(const Mat<S>&, const Mat<S>&, Mat<S>&);                           \
  template void attention_forward<S>(const Mat<S>&, const Mat<S>&, const Mat<S>&, int, int,        \
                                     const std::vector<int>&, const DropoutSpec&, int, Mat<S>&,    \
                                     AttentionCache<S>&);                                          \
  template void attention_infer<S>(const Mat<S>&, const Mat<S>&, const Mat<S>&, int, int,          \
                                   const std::vector<int>&, Mat<S>&);                              \
  template void attention_backward<S>(const Mat<S>&, const Mat<S>&, const Mat<S>&, const Mat<S>&,  \
                                      int, int, const std::vector<int>&, const AttentionCache<S>&, \
                                      Mat<S>&, Mat<S>&, Mat<S>&);                                  \
  template void attention_backward<S>(const Mat<S>&, const Mat<S>&, const Mat<S>&, const Mat<S>&,  \
                                      int, int, const std::vector<int>&, const AttentionCache<S>&, \
                                      Mat<S>&, Mat<S>&, Mat<S>&, const Later&);                    \
  template void mean_pool_forward<S>(const Mat<S>&, int, const std::vector<int>&, Mat<S>&);        \
  template void mean_pool_backward<S>(const Mat<S>&, int, const std::vector<int>&, Mat<S>&);       \
  template void max_pool_forward<S>(const Mat<S>&, int, const std::vector<int>&, Mat<S>&,          \
                                    std::vector<int>&);                                            \
  template void max_pool_backward<S>(const Mat<S>&, const std::vector<int>&, Mat<S>&);             \
  template void attention_pool_forward<S>(const Mat<S>&, const Vec<S>&, int,                       \
                                          const std::vector<int>&, Mat<S>&, Mat<S>&);              \
  template void attention_pool_backward<S>(const Mat<S>&, const Mat<S>&, const Vec<S>&, int,       \
                                           const std::vector<int>&, const Mat<S>&, Mat<S>&,        \
                                           Vec<S>&);                                               \
  template Vec<S> softmax<S>(const Vec<S>&, double);                                               \
  template double softmax_xent<S>(const Mat<S>&, const std::vector<int>&, double, Mat<S>&);        \
  template double softmax_xent<S>(const Mat<S>&, const Mat<double>&, Mat<S>&);                     \
  template double masked_token_loss<S>(const Mat<S>&, const Mat<S>&, const std::vector<int>&,      \
                                       const std::vector<int>&, double, Mat<S>&, Mat<S>&, int*);

ROUTER_INSTANTIATE_LAYERS(float)
ROUTER_INSTANTIATE_LAYERS(double)

}  // namespace router
