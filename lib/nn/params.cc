#include "nn/params.h"

#include <algorithm>
#include <type_traits>

#include "base/errors.h"
#include "base/random_streams.h"
#include "base/rng.h"
#include "nn/positional.h"

namespace router {

template <typename S>
Params<S> zeros_like_config(const Config& c) {
  const int D = c.d_model, F = c.d_ff;
  Params<S> p;
  p.embed = Mat<S>::Zero(c.vocab_size, D);
  p.layers.resize(c.n_layers);
  for (auto& l : p.layers) {
    l.ln1_w = Vec<S>::Zero(D);
    l.ln1_b = Vec<S>::Zero(D);
    l.qkv_w = Mat<S>::Zero(3 * D, D);
    l.out_w = Mat<S>::Zero(D, D);
    l.ln2_w = Vec<S>::Zero(D);
    l.ln2_b = Vec<S>::Zero(D);
    l.fc1_w = Mat<S>::Zero(F, D);
    l.fc1_b = Vec<S>::Zero(F);
    l.fc2_w = Mat<S>::Zero(D, F);
    l.fc2_b = Vec<S>::Zero(D);
  }
  p.norm_w = Vec<S>::Zero(D);
  p.norm_b = Vec<S>::Zero(D);
  if (c.pooling == Pooling::kAttention) p.pool_q = Vec<S>::Zero(D);
  p.cls_w = Mat<S>::Zero(c.num_labels, D);
  p.cls_b = Vec<S>::Zero(c.num_labels);
  return p;
}

template <typename S>
Params<S> init_params(const Config& c, uint64_t seed) {
  Params<S> p = zeros_like_config<S>(c);
  Rng rng(streams::init(seed));
  auto normal = [&](Mat<S>& m, double std) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<S>(rng.normal() * std);
  };
  // Unit-scale embeddings keep tokens and positions (values in [-1, 1]) on an equal footing.
  normal(p.embed, 1.0);
  for (auto& l : p.layers) {
    l.ln1_w.setOnes();
    l.ln2_w.setOnes();
    normal(l.qkv_w, 0.02);
    normal(l.out_w, 0.02);
    normal(l.fc1_w, 0.02);
    normal(l.fc2_w, 0.02);
  }
  p.norm_w.setOnes();
  normal(p.cls_w, 0.02);
  return p;
}

template <typename S>
void init_local_heads(Params<S>& p, const Config& c, int n) {
  if (n <= 0 || p.layers.empty()) return;
  const int D = c.d_model, Dh = D / c.n_heads, pairs = Dh / 2;
  // The sinusoid's fastest pairs carry position alone at first; tokens learn their own share.
  p.embed.leftCols(2 * pairs).setZero();
  // Pair m of P(t) = (sin wt, cos wt) turned by the angle w*delta is pair m of P(t + delta), so
  // q_i . k_j = a^2 sum_m cos(w_m (i - j - delta)): largest at j = i - delta. Position 1 of the
  // table holds (sin w_m, cos w_m), the turn by one position.
  const Mat<double> step = sinusoid_table(2, D);
  const double a = kLocalHeadScale;
  Mat<S>& W = p.layers[0].qkv_w;
  for (int h = 0; h < std::min(n, c.n_heads); ++h) {
    const int delta = h % 2 == 0 ? 1 : -1;  // the previous token, then the next
    W.middleRows(h * Dh, Dh).setZero();
    W.middleRows(D + h * Dh, Dh).setZero();
    for (int m = 0; m < pairs; ++m) {
      const double sin_b = delta * step(1, 2 * m), cos_b = step(1, 2 * m + 1);
      const int q = h * Dh + 2 * m, k = D + h * Dh + 2 * m;
      W(q, 2 * m) = static_cast<S>(a);
      W(q + 1, 2 * m + 1) = static_cast<S>(a);
      W(k, 2 * m) = static_cast<S>(a * cos_b);
      W(k, 2 * m + 1) = static_cast<S>(a * sin_b);
      W(k + 1, 2 * m + 1) = static_cast<S>(a * cos_b);
      W(k + 1, 2 * m) = static_cast<S>(-a * sin_b);
    }
  }
}

namespace {

template <typename S, typename P>
std::vector<TensorRef<S>> refs_of(P& p) {
  std::vector<TensorRef<S>> out;
  for_each_tensor(
      [&](const std::string& name, bool decay, auto& m) {
        using M = std::remove_cvref_t<decltype(m)>;
        std::vector<int64_t> shape = {static_cast<int64_t>(m.rows())};
        if constexpr (M::ColsAtCompileTime != 1) shape.push_back(static_cast<int64_t>(m.cols()));
        out.push_back(TensorRef<S>{name, shape, m.data(), static_cast<int64_t>(m.size()), decay});
      },
      p);
  return out;
}

}  // namespace

template <typename S>
std::vector<TensorRef<S>> tensors(Params<S>& p) {
  return refs_of<S>(p);
}

template <typename S>
std::vector<TensorRef<const S>> tensors(const Params<S>& p) {
  return refs_of<const S>(p);
}

template <typename S>
void set_zero(Params<S>& p) {
  for (auto& t : tensors(p)) std::fill(t.data, t.data + t.size, S(0));
}

template <typename S>
void set_zero_except_embedding(Params<S>& p) {
  for (auto& t : tensors(p)) {
    if (t.data != p.embed.data()) std::fill(t.data, t.data + t.size, S(0));
  }
}

template <typename S>
int64_t count_params(const Params<S>& p) {
  int64_t n = 0;
  for (const auto& t : tensors(p)) n += t.size;
  return n;
}

int64_t attention_param_count(int d_model, int n_heads) {
  if (n_heads <= 0 || d_model % n_heads != 0) {
    throw UsageError("n_heads " + std::to_string(n_heads) + " does not divide d_model " +
                     std::to_string(d_model));
  }
  const int64_t D = d_model;
  return 3 * D * D + D * D;  // fused Q/K/V (3D x D) + W_o (D x D); heads only split columns
}

template <typename To, typename From>
Params<To> cast_params(const Params<From>& p) {
  Params<To> q;
  q.layers.resize(p.layers.size());
  for_each_tensor(
      [](const std::string&, bool, const auto& a, auto& b) { b = a.template cast<To>(); }, p, q);
  return q;
}

template Params<float> zeros_like_config<float>(const Config&);
template Params<double> zeros_like_config<double>(const Config&);
template Params<float> init_params<float>(const Config&, uint64_t);
template Params<double> init_params<double>(const Config&, uint64_t);
template void init_local_heads<float>(Params<float>&, const Config&, int);
template void init_local_heads<double>(Params<double>&, const Config&, int);
template std::vector<TensorRef<float>> tensors<float>(Params<float>&);
template std::vector<TensorRef<double>> tensors<double>(Params<double>&);
template std::vector<TensorRef<const float>> tensors<float>(const Params<float>&);
template std::vector<TensorRef<const double>> tensors<double>(const Params<double>&);
template void set_zero<float>(Params<float>&);
template void set_zero<double>(Params<double>&);
template void set_zero_except_embedding<float>(Params<float>&);
template void set_zero_except_embedding<double>(Params<double>&);
template int64_t count_params<float>(const Params<float>&);
template int64_t count_params<double>(const Params<double>&);
template Params<double> cast_params<double, float>(const Params<float>&);
template Params<float> cast_params<float, double>(const Params<double>&);

}  // namespace router
