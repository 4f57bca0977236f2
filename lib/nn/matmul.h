// The matrix products of the model, in training and in predictions: one blocked loop
// (rows_product) and the three shapes the layers use, named by which operand is transposed (n:
// as stored, t: transposed) and whether they add into their output. Header-only: its one user,
// nn/layers.cc, compiles it as part of itself.
//
// Every product of the model, in training and in predictions, is this one loop: the shapes are a
// few dozen to a few thousand rows by 8-192 columns, where Eigen's general product spends much of
// its time packing (40-46 GFLOP/s on the linear layers' shapes here, against 65-77 for this).
// Each element is one chain of multiply-adds over t in order, whatever the blocking below, so the
// result depends on neither the cache sizes nor how rows and columns are cut.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "nn/tensor.h"

namespace router::matmul {

// What one accumulator holds: the widest vector of the machine that divides W (AVX-512's 16
// floats for W = 16, AVX's 8 for W = 8 on the same machine), or one value for the columns left.
// Each lane is its own chain of multiply-adds, so the width never changes a result's bits.
template <int W, typename S>
struct LaneOf {
  using type = typename Eigen::internal::find_best_packet<S, W>::type;
};
template <typename S>
struct LaneOf<1, S> {
  using type = S;
};

// The rows of a product made at once: six rows of 16 columns keep twelve of AVX2's sixteen
// registers accumulating, enough to hide the multiply-add latency.
inline constexpr int kBlockRows = 6;

// C(r, 0..W) (=, or += with accumulate) alpha * sum over t < n_t of X(r, t) * Y(t, 0..W), for
// rows r < R, R a multiple of kBlockRows. X(r, t) is x[r * x_r + t * x_t]; the rows of Y and C
// are contiguous, with strides y_s and c_s. Each load of Y feeds kBlockRows accumulators. The
// multiply-adds are explicit (Eigen's pmadd, std::fma), so each sum is one chain of them.
//
// With kChain, the sums are carried on instead: each accumulator starts from C's value and ends
// there as it is, neither scaled nor added. A sum cut into pieces of t this way is still the one
// chain of multiply-adds (a float stored and loaded again is the same float).
template <int W, typename S, bool kChain = false>
void rows_product_block(const S* x, Eigen::Index x_r, Eigen::Index x_t, int R, int n_t, const S* y,
                        Eigen::Index y_s, S alpha, bool accumulate, S* c, Eigen::Index c_s) {
  using Lane = typename LaneOf<W, S>::type;
  constexpr int P = W == 1 ? 1 : Eigen::internal::unpacket_traits<Lane>::size;
  static_assert(W % P == 0, "a block is whole vectors");
  constexpr int NP = W / P;
  auto broadcast = [](S v) {
    if constexpr (W == 1)
      return v;
    else
      return Eigen::internal::pset1<Lane>(v);
  };
  auto load = [](const S* p) {
    if constexpr (W == 1)
      return *p;
    else
      return Eigen::internal::ploadu<Lane>(p);
  };
  auto madd = [](Lane a, Lane b, Lane acc) {
    if constexpr (W == 1)
      return std::fma(a, b, acc);
    else
      return Eigen::internal::pmadd(a, b, acc);
  };
  constexpr int RB = kBlockRows;
  for (int r = 0; r < R; r += RB) {
    Lane a[RB][NP];
    for (int q = 0; q < RB; ++q)
      for (int k = 0; k < NP; ++k)
        a[q][k] = kChain ? load(c + (r + q) * c_s + k * P) : broadcast(S(0));
    for (int t = 0; t < n_t; ++t) {
      Lane yt[NP];
      for (int k = 0; k < NP; ++k) yt[k] = load(y + t * y_s + k * P);
      const S* xt = x + r * x_r + t * x_t;
      for (int q = 0; q < RB; ++q) {
        const Lane xq = broadcast(xt[q * x_r]);
        for (int k = 0; k < NP; ++k) a[q][k] = madd(xq, yt[k], a[q][k]);
      }
    }
    for (int q = 0; q < RB; ++q) {
      for (int k = 0; k < NP; ++k) {
        S* out = c + (r + q) * c_s + k * P;
        if constexpr (kChain) {
          if constexpr (W == 1)
            *out = a[q][k];
          else
            Eigen::internal::pstoreu(out, a[q][k]);
          continue;
        }
        S v[P];
        if constexpr (W == 1)
          v[0] = a[q][k];
        else
          Eigen::internal::pstoreu(v, a[q][k]);
        for (int e = 0; e < P; ++e) out[e] = accumulate ? out[e] + alpha * v[e] : alpha * v[e];
      }
    }
  }
}

// C(r, 0..cols) (=, or += with accumulate) alpha * sum over t < n_t of X(r, t) * Y(t, 0..cols),
// for r < R. Columns in vectors of 16, then 8, then one by one. The rows left over after the
// whole blocks go through the same block, from a copy padded with zero rows: a row's bits never
// depend on where it falls (compiled for fewer rows, the same loop was not always fused into
// multiply-adds the same way).
template <typename S>
void rows_product(const S* x, Eigen::Index x_r, Eigen::Index x_t, int R, int n_t, const S* y,
                  Eigen::Index y_s, int cols, S alpha, S* c, Eigen::Index c_s,
                  bool accumulate = false) {
  const int full = R / kBlockRows * kBlockRows;
  int j = 0;
  for (; j + 16 <= cols; j += 16)
    rows_product_block<16>(x, x_r, x_t, full, n_t, y + j, y_s, alpha, accumulate, c + j, c_s);
  for (; j + 8 <= cols; j += 8)
    rows_product_block<8>(x, x_r, x_t, full, n_t, y + j, y_s, alpha, accumulate, c + j, c_s);
  for (; j < cols; ++j)
    rows_product_block<1>(x, x_r, x_t, full, n_t, y + j, y_s, alpha, accumulate, c + j, c_s);
  if (full == R) return;
  const int left = R - full;
  thread_local std::vector<S> xs, cs;  // (kBlockRows, n_t) and (kBlockRows, cols)
  xs.assign(static_cast<size_t>(kBlockRows) * n_t, S(0));
  cs.assign(static_cast<size_t>(kBlockRows) * cols, S(0));
  for (int q = 0; q < left; ++q) {
    for (int t = 0; t < n_t; ++t) xs[q * n_t + t] = x[(full + q) * x_r + t * x_t];
    if (accumulate) std::copy_n(c + (full + q) * c_s, cols, cs.data() + q * cols);
  }
  rows_product(xs.data(), n_t, 1, kBlockRows, n_t, y, y_s, cols, alpha, cs.data(), cols,
               accumulate);
  for (int q = 0; q < left; ++q) std::copy_n(cs.data() + q * cols, cols, c + (full + q) * c_s);
}

// y = x W^T: x (N, In), W (Out, In) -> y (N, Out). W is transposed first, so that its rows are
// the contiguous Y of rows_product (a few thousand values, against N * In * Out multiply-adds).
template <typename S>
void product_nt(const Mat<S>& x, const Mat<S>& W, Mat<S>& y) {
  thread_local Mat<S> wt;
  wt = W.transpose();
  y.resize(x.rows(), W.rows());
  rows_product(x.data(), x.cols(), 1, static_cast<int>(x.rows()), static_cast<int>(x.cols()),
               wt.data(), wt.cols(), static_cast<int>(W.rows()), S(1), y.data(), y.cols());
}

// dx (+)= dy W: dy (N, Out), W (Out, In) -> dx (N, In).
template <typename S>
void product_nn(const Mat<S>& dy, const Mat<S>& W, Mat<S>& dx, bool accumulate) {
  if (!accumulate) dx.resize(dy.rows(), W.cols());
  rows_product(dy.data(), dy.cols(), 1, static_cast<int>(dy.rows()), static_cast<int>(dy.cols()),
               W.data(), W.cols(), static_cast<int>(W.cols()), S(1), dx.data(), dx.cols(),
               accumulate);
}

// dW += dy^T x: dy (N, Out), x (N, In) -> dW (Out, In); the sum runs over the N rows. Both
// operands are N rows long, too long to stay in L1 while each block of dW's rows goes down them,
// so the sums go kRowsAtOnce rows of dy and x at a time, carried on in a buffer (kChain): the
// same chains, and so the same bits, as rows_product in one go. dW's rows left over after the
// whole blocks of six go through rows_product, as they would have.
template <typename S>
void add_product_tn(const Mat<S>& dy, const Mat<S>& x, Mat<S>& dW) {
  constexpr int kRowsAtOnce = 64;
  const int R = static_cast<int>(dy.cols()), N = static_cast<int>(dy.rows());
  const int cols = static_cast<int>(x.cols()), full = R / kBlockRows * kBlockRows;
  const Eigen::Index x_t = dy.cols(), y_s = x.cols();
  if (full > 0) {
    thread_local std::vector<S> sums;  // (full, cols)
    sums.assign(static_cast<size_t>(full) * cols, S(0));
    for (int t0 = 0; t0 < N; t0 += kRowsAtOnce) {
      const int n = std::min(kRowsAtOnce, N - t0);
      const S* xs = dy.data() + t0 * x_t;
      const S* ys = x.data() + t0 * y_s;
      int j = 0;
      for (; j + 16 <= cols; j += 16)
        rows_product_block<16, S, true>(xs, 1, x_t, full, n, ys + j, y_s, S(1), false,
                                        sums.data() + j, cols);
      for (; j + 8 <= cols; j += 8)
        rows_product_block<8, S, true>(xs, 1, x_t, full, n, ys + j, y_s, S(1), false,
                                       sums.data() + j, cols);
      for (; j < cols; ++j)
        rows_product_block<1, S, true>(xs, 1, x_t, full, n, ys + j, y_s, S(1), false,
                                       sums.data() + j, cols);
    }
    // As rows_product_block's accumulating store: out + alpha * sum, alpha = 1.
    const S alpha(1);
    for (int r = 0; r < full; ++r) {
      S* out = dW.data() + r * dW.cols();
      const S* v = sums.data() + static_cast<size_t>(r) * cols;
      for (int e = 0; e < cols; ++e) out[e] = out[e] + alpha * v[e];
    }
  }
  if (full < R) {
    rows_product(dy.data() + full, 1, x_t, R - full, N, x.data(), y_s, cols, S(1),
                 dW.data() + full * dW.cols(), dW.cols(), true);
  }
}

// n rounded up to a multiple of m: buffers padded to whole vectors.
inline int round_up(int n, int m) { return (n + m - 1) / m * m; }

}  // namespace router::matmul
