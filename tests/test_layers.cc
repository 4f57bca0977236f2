// Each layer checked two ways, in double precision: against the PyTorch reference's golden
// values (tests/fixtures/parity/layers.json), and against central finite differences.
// Gradient checks use step h = 1e-6 and the relative error |a - n| / max(|a|, |n|, 1e-3) < 1e-6.
#include <algorithm>
#include <cmath>
#include <functional>

#include "base/rng.h"
#include "nn/layers.h"
#include "test_support.h"

namespace router {
namespace {

using test::all_close;
using test::as_matrix;
using test::as_vector;
using M = Mat<double>;
using V = Vec<double>;

const nlohmann::json& fixtures() {
  static const nlohmann::json j = test::load_json("tests/fixtures/parity/layers.json");
  return j;
}

M random_matrix(int rows, int cols, uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  M m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal() * scale;
  return m;
}

// Compares the analytic gradient `grad` of `loss` with respect to `x` with central differences.
::testing::AssertionResult grad_check(const std::string& name, double* x, int64_t n,
                                      const double* grad, const std::function<double()>& loss) {
  constexpr double h = 1e-6;
  for (int64_t i = 0; i < n; ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = loss();
    x[i] = keep - h;
    const double down = loss();
    x[i] = keep;
    const double numeric = (up - down) / (2 * h);
    const double rel =
        std::abs(numeric - grad[i]) / std::max({std::abs(numeric), std::abs(grad[i]), 1e-3});
    if (rel > 1e-6) {
      return ::testing::AssertionFailure() << name << "[" << i << "]: analytic " << grad[i]
                                           << ", numeric " << numeric << ", rel error " << rel;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(LayerNorm, MatchesPyTorch) {
  const auto& f = fixtures()["layernorm"];
  M x = as_matrix<double>(f["x"]), y;
  V w = as_vector<double>(f["weight"]), b = as_vector<double>(f["bias"]);
  LayerNormCache<double> cache;
  layernorm_forward(x, w, b, y, cache);
  EXPECT_TRUE(all_close("layernorm.y", y, as_matrix<double>(f["y"]), 1e-12));
  M dx = M::Zero(x.rows(), x.cols());
  V dw = V::Zero(w.size()), db = V::Zero(b.size());
  layernorm_backward(as_matrix<double>(f["dy"]), x, w, cache, dx, dw, db);
  EXPECT_TRUE(all_close("layernorm.dx", dx, as_matrix<double>(f["dx"]), 1e-12));
  EXPECT_TRUE(all_close("layernorm.dweight", dw, as_vector<double>(f["dweight"]), 1e-12));
  EXPECT_TRUE(all_close("layernorm.dbias", db, as_vector<double>(f["dbias"]), 1e-12));
}

TEST(LayerNorm, GradientCheck) {
  M x = random_matrix(3, 5, 1), R = random_matrix(3, 5, 2), y;
  V w = random_matrix(5, 1, 3), b = random_matrix(5, 1, 4);
  LayerNormCache<double> cache;
  auto loss = [&] {
    layernorm_forward(x, w, b, y, cache);
    return (y.array() * R.array()).sum();
  };
  loss();
  M dx = M::Zero(3, 5);
  V dw = V::Zero(5), db = V::Zero(5);
  layernorm_backward(R, x, w, cache, dx, dw, db);
  EXPECT_TRUE(grad_check("dx", x.data(), x.size(), dx.data(), loss));
  EXPECT_TRUE(grad_check("dw", w.data(), w.size(), dw.data(), loss));
  EXPECT_TRUE(grad_check("db", b.data(), b.size(), db.data(), loss));
}

TEST(Gelu, MatchesPyTorch) {
  const auto& f = fixtures()["gelu"];
  M x = as_matrix<double>(f["x"]), y;
  gelu_forward(x, y);
  EXPECT_TRUE(all_close("gelu.y", y, as_matrix<double>(f["y"]), 1e-12));
  M dx = M::Zero(x.rows(), x.cols());
  gelu_backward(as_matrix<double>(f["dy"]), x, dx);
  EXPECT_TRUE(all_close("gelu.dx", dx, as_matrix<double>(f["dx"]), 1e-12));
}

TEST(Gelu, GradientCheck) {
  M x = random_matrix(2, 7, 5, 2.0), R = random_matrix(2, 7, 6), y;
  auto loss = [&] {
    gelu_forward(x, y);
    return (y.array() * R.array()).sum();
  };
  M dx = M::Zero(2, 7);
  gelu_backward(R, x, dx);
  EXPECT_TRUE(grad_check("dx", x.data(), x.size(), dx.data(), loss));
}

TEST(Linear, GradientCheck) {
  M x = random_matrix(4, 3, 7), W = random_matrix(5, 3, 8), R = random_matrix(4, 5, 9), y;
  V b = random_matrix(5, 1, 10);
  auto loss = [&] {
    linear_forward(x, W, &b, y);
    return (y.array() * R.array()).sum();
  };
  M dx = M::Zero(4, 3), dW = M::Zero(5, 3);
  V db = V::Zero(5);
  linear_backward(R, x, W, &dx, dW, &db);
  EXPECT_TRUE(grad_check("dx", x.data(), x.size(), dx.data(), loss));
  EXPECT_TRUE(grad_check("dW", W.data(), W.size(), dW.data(), loss));
  EXPECT_TRUE(grad_check("db", b.data(), b.size(), db.data(), loss));
}

TEST(Attention, MatchesPyTorchWithPaddingMask) {
  const auto& f = fixtures()["attention"];
  const int H = f["n_heads"], len = f["length"];
  M u = as_matrix<double>(f["u"]), Wqkv = as_matrix<double>(f["w_qkv"]),
    Wo = as_matrix<double>(f["w_o"]), out;
  const int T = static_cast<int>(u.rows()), D = static_cast<int>(u.cols());
  AttentionCache<double> cache;
  DropoutSpec off{0.0, nullptr};
  attention_forward(u, Wqkv, Wo, H, T, {len}, off, 0, out, cache);
  // router does not compute padding queries, so compare the real rows only.
  EXPECT_TRUE(all_close("attn.qkv", cache.qkv.topRows(len),
                        as_matrix<double>(f["qkv"]).topRows(len), 1e-12));
  M want_probs = as_matrix<double>(f["probs"]);  // (H*T, T)
  for (int h = 0; h < H; ++h) {
    EXPECT_TRUE(all_close("attn.probs head " + std::to_string(h), cache.prob(h),
                          want_probs.block(h * T, 0, len, len), 1e-12));
    // Padded keys get exactly zero weight.
    EXPECT_EQ(want_probs.block(h * T, len, len, T - len).cwiseAbs().maxCoeff(), 0.0);
  }
  EXPECT_TRUE(all_close("attn.concat", cache.concat.topRows(len),
                        as_matrix<double>(f["concat"]).topRows(len), 1e-12));
  EXPECT_TRUE(
      all_close("attn.out", out.topRows(len), as_matrix<double>(f["out"]).topRows(len), 1e-12));
  M du = M::Zero(T, D), dWqkv = M::Zero(3 * D, D), dWo = M::Zero(D, D);
  attention_backward(as_matrix<double>(f["dout_real"]), u, Wqkv, Wo, H, T, {len}, cache, du, dWqkv,
                     dWo);
  EXPECT_TRUE(all_close("attn.du", du, as_matrix<double>(f["du_real"]), 1e-12));
  EXPECT_TRUE(all_close("attn.dW_qkv", dWqkv, as_matrix<double>(f["dw_qkv_real"]), 1e-12));
  EXPECT_TRUE(all_close("attn.dW_o", dWo, as_matrix<double>(f["dw_o_real"]), 1e-12));
}

TEST(Attention, GradientCheckWithPadding) {
  const int T = 5, D = 6, H = 3;
  const std::vector<int> lengths = {5, 3};
  M u = random_matrix(2 * T, D, 11), Wqkv = random_matrix(3 * D, D, 12, 0.5),
    Wo = random_matrix(D, D, 13, 0.5), R = random_matrix(2 * T, D, 14), out;
  for (int t = 3; t < T; ++t) R.row(T + t).setZero();  // padding rows carry no loss
  AttentionCache<double> cache;
  DropoutSpec off{0.0, nullptr};
  auto loss = [&] {
    attention_forward(u, Wqkv, Wo, H, T, lengths, off, 0, out, cache);
    return (out.array() * R.array()).sum();
  };
  loss();
  M du = M::Zero(2 * T, D), dWqkv = M::Zero(3 * D, D), dWo = M::Zero(D, D);
  attention_backward(R, u, Wqkv, Wo, H, T, lengths, cache, du, dWqkv, dWo);
  EXPECT_TRUE(grad_check("du", u.data(), u.size(), du.data(), loss));
  EXPECT_TRUE(grad_check("dW_qkv", Wqkv.data(), Wqkv.size(), dWqkv.data(), loss));
  EXPECT_TRUE(grad_check("dW_o", Wo.data(), Wo.size(), dWo.data(), loss));
  // Padding rows of the input never influence anything.
  EXPECT_EQ(du.bottomRows(2).cwiseAbs().maxCoeff(), 0.0);
}

TEST(Attention, GradientCheckWithDropoutMaskFixed) {
  // Dropout masks are a function of (key, site): fixed across the finite-difference calls.
  const int T = 4, D = 4, H = 2;
  std::vector<uint64_t> keys = {99};
  DropoutSpec spec{0.3, &keys};
  M u = random_matrix(T, D, 15), Wqkv = random_matrix(3 * D, D, 16, 0.5),
    Wo = random_matrix(D, D, 17, 0.5), R = random_matrix(T, D, 18), out;
  AttentionCache<double> cache;
  auto loss = [&] {
    attention_forward(u, Wqkv, Wo, H, T, {T}, spec, 1, out, cache);
    return (out.array() * R.array()).sum();
  };
  loss();
  M du = M::Zero(T, D), dWqkv = M::Zero(3 * D, D), dWo = M::Zero(D, D);
  attention_backward(R, u, Wqkv, Wo, H, T, {T}, cache, du, dWqkv, dWo);
  EXPECT_TRUE(grad_check("du", u.data(), u.size(), du.data(), loss));
  EXPECT_TRUE(grad_check("dW_qkv", Wqkv.data(), Wqkv.size(), dWqkv.data(), loss));
}

TEST(Attention, RowsSumToOne) {
  M u = random_matrix(6, 8, 19), Wqkv = random_matrix(24, 8, 20), Wo = random_matrix(8, 8, 21), out;
  AttentionCache<double> cache;
  attention_forward(u, Wqkv, Wo, 2, 6, {6}, DropoutSpec{0.0, nullptr}, 0, out, cache);
  for (size_t h = 0; h < 2; ++h) {
    const auto p = cache.prob(h);
    for (Eigen::Index i = 0; i < p.rows(); ++i) EXPECT_NEAR(p.row(i).sum(), 1.0, 1e-12);
  }
}

// The attention of one email and head written with whole-matrix products, as the formulas read
// (docs/architecture.md), to hold attention_forward and attention_backward to: forward and
// backward of every head of every email of a padded batch.
struct PlainAttention {
  M concat, dqkv;
};
PlainAttention plain_attention(const M& qkv, const M& dconcat, int H, int T,
                               const std::vector<int>& lengths,
                               const AttentionCache<double>& cache) {
  const int D = static_cast<int>(qkv.cols()) / 3, Dh = D / H;
  const double scale = 1 / std::sqrt(static_cast<double>(Dh));
  PlainAttention r{M::Zero(qkv.rows(), D), M::Zero(qkv.rows(), 3 * D)};
  for (size_t b = 0; b < lengths.size(); ++b) {
    const int n = lengths[b], row = static_cast<int>(b) * T;
    for (int h = 0; h < H; ++h) {
      const M q = qkv.block(row, h * Dh, n, Dh), k = qkv.block(row, D + h * Dh, n, Dh),
              v = qkv.block(row, 2 * D + h * Dh, n, Dh);
      M p = q * k.transpose() * scale;
      for (int i = 0; i < n; ++i) {
        p.row(i) = (p.row(i).array() - p.row(i).maxCoeff()).exp();
        p.row(i) /= p.row(i).sum();
      }
      const size_t at = b * H + h;
      const M mask = cache.drop.empty() ? M(M::Ones(n, n)) : M(cache.mask(at));
      const M w = p.cwiseProduct(mask);
      r.concat.block(row, h * Dh, n, Dh) = w * v;
      const M d_o = dconcat.block(row, h * Dh, n, Dh);
      const M dp = (d_o * v.transpose()).cwiseProduct(mask);
      const V dot = dp.cwiseProduct(p).rowwise().sum();
      const M ds = p.array() * (dp.array().colwise() - dot.array());
      r.dqkv.block(row, h * Dh, n, Dh) = ds * k * scale;
      r.dqkv.block(row, D + h * Dh, n, Dh) = ds.transpose() * q * scale;
      r.dqkv.block(row, 2 * D + h * Dh, n, Dh) = w.transpose() * d_o;
      EXPECT_TRUE(all_close("probs", cache.prob(at), p, 1e-13));
    }
  }
  return r;
}

// Lengths and head sizes (1 to 24 columns) on both sides of the vector widths, one and several
// emails, dropout on and off.
TEST(Attention, ForwardAndBackwardMatchPlainProductsOnEveryShape) {
  struct Shape {
    int D, H;
    std::vector<int> lengths;
  };
  const std::vector<Shape> shapes = {{4, 4, {1, 2, 3}},    {6, 2, {7, 8, 9}}, {16, 2, {15, 16, 17}},
                                     {16, 1, {4, 5}},      {48, 2, {33, 31}}, {34, 2, {24, 1, 12}},
                                     {64, 4, {52, 49, 50}}};
  uint64_t seed = 60;
  for (const Shape& s : shapes) {
    for (double p : {0.0, 0.2}) {
      const int T = *std::max_element(s.lengths.begin(), s.lengths.end());
      const int B = static_cast<int>(s.lengths.size());
      M u = random_matrix(B * T, s.D, ++seed), Wqkv = random_matrix(3 * s.D, s.D, ++seed, 0.5),
        Wo = random_matrix(s.D, s.D, ++seed, 0.5), dout = random_matrix(B * T, s.D, ++seed), out;
      for (int b = 0; b < B; ++b) dout.middleRows(b * T + s.lengths[b], T - s.lengths[b]).setZero();
      std::vector<uint64_t> keys;
      for (int b = 0; b < B; ++b) keys.push_back(++seed);
      AttentionCache<double> cache;
      attention_forward(u, Wqkv, Wo, s.H, T, s.lengths, DropoutSpec{p, &keys}, 2, out, cache);
      ASSERT_EQ(cache.drop.size(), p > 0 ? cache.probs.size() : 0u);
      M du = M::Zero(B * T, s.D), dWqkv = M::Zero(3 * s.D, s.D), dWo = M::Zero(s.D, s.D);
      attention_backward(dout, u, Wqkv, Wo, s.H, T, s.lengths, cache, du, dWqkv, dWo);
      const std::string name = "D=" + std::to_string(s.D) + " H=" + std::to_string(s.H) +
                               " T=" + std::to_string(T) + " p=" + std::to_string(p);
      const PlainAttention want = plain_attention(cache.qkv, dout * Wo, s.H, T, s.lengths, cache);
      EXPECT_TRUE(all_close(name + " concat", cache.concat, want.concat, 1e-12)) << name;
      EXPECT_TRUE(all_close(name + " out", out, M(want.concat * Wo.transpose()), 1e-12)) << name;
      EXPECT_TRUE(all_close(name + " dW_qkv", dWqkv, M(want.dqkv.transpose() * u), 1e-11)) << name;
      EXPECT_TRUE(all_close(name + " du", du, M(want.dqkv * Wqkv), 1e-11)) << name;
    }
  }
}

// attention_infer, the inference path: the same function as attention_forward without dropout.
TEST(AttentionInfer, MatchesPyTorchWithPaddingMask) {
  const auto& f = fixtures()["attention"];
  const int H = f["n_heads"], len = f["length"];
  M u = as_matrix<double>(f["u"]), out;
  const M Wqkv_t = as_matrix<double>(f["w_qkv"]).transpose(),
          Wo_t = as_matrix<double>(f["w_o"]).transpose();
  attention_infer(u, Wqkv_t, Wo_t, H, static_cast<int>(u.rows()), {len}, out);
  EXPECT_TRUE(
      all_close("attn.out", out.topRows(len), as_matrix<double>(f["out"]).topRows(len), 1e-12));
  EXPECT_EQ(out.bottomRows(u.rows() - len).cwiseAbs().maxCoeff(), 0.0);
}

// Every length around the 16-query vectors, the blocks of 64 queries and the six-row blocks of
// its products, head sizes that are and are not multiples of four, and a padded batch.
TEST(AttentionInfer, MatchesAttentionForward) {
  struct Shape {
    int D, H;
    std::vector<int> lengths;
  };
  const std::vector<Shape> shapes = {
      {8, 2, {1}},           {12, 3, {15, 16, 17}}, {10, 2, {33, 5, 1}},      {16, 1, {31, 32}},
      {24, 4, {48, 47, 49}}, {6, 6, {20}},          {8, 2, {63, 64, 65, 150}}};
  uint64_t seed = 30;
  for (const Shape& s : shapes) {
    const int T = *std::max_element(s.lengths.begin(), s.lengths.end());
    const int B = static_cast<int>(s.lengths.size());
    M u = random_matrix(B * T, s.D, ++seed), Wqkv = random_matrix(3 * s.D, s.D, ++seed, 0.5),
      Wo = random_matrix(s.D, s.D, ++seed, 0.5), want, got;
    AttentionCache<double> cache;
    attention_forward(u, Wqkv, Wo, s.H, T, s.lengths, DropoutSpec{0.0, nullptr}, 0, want, cache);
    const M Wqkv_t = Wqkv.transpose(), Wo_t = Wo.transpose();
    attention_infer(u, Wqkv_t, Wo_t, s.H, T, s.lengths, got);
    const std::string name =
        "D=" + std::to_string(s.D) + " H=" + std::to_string(s.H) + " T=" + std::to_string(T);
    EXPECT_TRUE(all_close(name, got, want, 1e-12)) << name;
    // float: the tolerance every prediction is held to
    Mat<float> got_f;
    attention_infer<float>(u.cast<float>(), Wqkv_t.cast<float>(), Wo_t.cast<float>(), s.H, T,
                           s.lengths, got_f);
    EXPECT_TRUE(all_close(name + " float", got_f.cast<double>(), want, 1e-5, 1e-5)) << name;
  }
}

TEST(AttentionInfer, PermutingTokensPermutesOutputs) {
  const int T = 19, D = 8, H = 2;
  M u = random_matrix(T, D, 40), Wqkv = random_matrix(3 * D, D, 41), Wo = random_matrix(D, D, 42);
  std::vector<int> perm(T);
  for (int i = 0; i < T; ++i) perm[i] = (7 * i + 3) % T;  // 7 is prime to 19
  M shuffled(T, D), a, b;
  for (int i = 0; i < T; ++i) shuffled.row(i) = u.row(perm[i]);
  const M Wqkv_t = Wqkv.transpose(), Wo_t = Wo.transpose();
  attention_infer(u, Wqkv_t, Wo_t, H, T, {T}, a);
  attention_infer(shuffled, Wqkv_t, Wo_t, H, T, {T}, b);
  double diff = 0;
  for (int i = 0; i < T; ++i)
    diff = std::max(diff, (b.row(i) - a.row(perm[i])).cwiseAbs().maxCoeff());
  EXPECT_LT(diff, 1e-12);
}

TEST(CrossEntropy, MatchesPyTorchWithLabelSmoothing) {
  const auto& f = fixtures()["cross_entropy"];
  M logits = as_matrix<double>(f["logits"]), dlogits;
  const auto targets = f["targets"].get<std::vector<int>>();
  const double loss = softmax_xent(logits, targets, f["label_smoothing"].get<double>(), dlogits);
  EXPECT_NEAR(loss, f["loss"].get<double>(), 1e-12);
  EXPECT_TRUE(all_close("xent.dlogits", dlogits, as_matrix<double>(f["dlogits"]), 1e-12));
}

TEST(CrossEntropy, GradientCheck) {
  M logits = random_matrix(3, 5, 22, 3.0), dlogits, scratch;
  const std::vector<int> targets = {4, 0, 2};
  softmax_xent(logits, targets, 0.1, dlogits);
  auto loss = [&] { return softmax_xent(logits, targets, 0.1, scratch); };
  EXPECT_TRUE(grad_check("dlogits", logits.data(), logits.size(), dlogits.data(), loss));
}

// Against any target distribution (a teacher's probabilities mixed in): the label-smoothed rows
// give the same bits as the targets themselves, and the gradient is p - q over the batch.
TEST(CrossEntropy, SoftTargetsGeneraliseLabelSmoothing) {
  M logits = random_matrix(3, 5, 23, 3.0), by_label, by_rows;
  const std::vector<int> targets = {1, 4, 0};
  const double a = softmax_xent(logits, targets, 0.1, by_label);
  const double b = softmax_xent(logits, smoothed_targets(targets, 5, 0.1), by_rows);
  EXPECT_EQ(a, b);
  EXPECT_EQ(by_label, by_rows);
  const Mat<double> q = smoothed_targets(targets, 5, 0.1);
  EXPECT_DOUBLE_EQ(q(1, 4), 0.92);
  EXPECT_DOUBLE_EQ(q(1, 0), 0.02);
}

TEST(CrossEntropy, SoftTargetsMatchPyTorch) {
  const auto& f = fixtures()["soft_cross_entropy"];
  M logits = as_matrix<double>(f["logits"]), dlogits;
  const double loss = softmax_xent(logits, as_matrix<double>(f["q"]), dlogits);
  EXPECT_NEAR(loss, f["loss"].get<double>(), 1e-12);
  EXPECT_TRUE(all_close("soft xent.dlogits", dlogits, as_matrix<double>(f["dlogits"]), 1e-12));
}

TEST(CrossEntropy, SoftTargetsGradientCheck) {
  M logits = random_matrix(3, 5, 24, 3.0), dlogits, scratch;
  Mat<double> q = random_matrix(3, 5, 25).array().exp();
  for (Eigen::Index r = 0; r < q.rows(); ++r) q.row(r) /= q.row(r).sum();
  softmax_xent(logits, q, dlogits);
  auto loss = [&] { return softmax_xent(logits, q, scratch); };
  EXPECT_TRUE(grad_check("dlogits", logits.data(), logits.size(), dlogits.data(), loss));
}

TEST(MeanPool, MatchesPyTorch) {
  const auto& f = fixtures()["mean_pool"];
  M z = as_matrix<double>(f["z"]), pooled;  // (B*T, D)
  const auto lengths = f["lengths"].get<std::vector<int>>();
  const int T = f["z"]["shape"][1];
  mean_pool_forward(z, T, lengths, pooled);
  EXPECT_TRUE(all_close("pooled", pooled, as_matrix<double>(f["pooled"]), 1e-12));
  M dz = M::Zero(z.rows(), z.cols());
  mean_pool_backward(as_matrix<double>(f["dpooled"]), T, lengths, dz);
  EXPECT_TRUE(all_close("dz", dz, as_matrix<double>(f["dz"]), 1e-12));
}

TEST(MaxPool, MatchesPyTorch) {
  const auto& f = fixtures()["max_pool"];
  M z = as_matrix<double>(f["z"]), pooled;  // (B*T, D); padding slots of email 0 hold 10.0
  const auto lengths = f["lengths"].get<std::vector<int>>();
  const int T = f["z"]["shape"][1];
  std::vector<int> rows;
  max_pool_forward(z, T, lengths, pooled, rows);
  EXPECT_TRUE(all_close("pooled", pooled, as_matrix<double>(f["pooled"]), 1e-12));
  M dz = M::Zero(z.rows(), z.cols());
  max_pool_backward(as_matrix<double>(f["dpooled"]), rows, dz);
  EXPECT_TRUE(all_close("dz", dz, as_matrix<double>(f["dz"]), 1e-12));
}

TEST(MaxPool, GradientCheck) {
  // Random values: no ties, so the maximum is differentiable at this point.
  const int T = 6;
  const std::vector<int> lengths = {4, 6, 1};
  M z = random_matrix(3 * T, 5, 21), R = random_matrix(3, 5, 22), pooled;
  std::vector<int> rows;
  auto loss = [&] {
    max_pool_forward(z, T, lengths, pooled, rows);
    return (pooled.array() * R.array()).sum();
  };
  loss();
  M dz = M::Zero(z.rows(), z.cols());
  max_pool_backward(R, rows, dz);
  EXPECT_TRUE(grad_check("dz", z.data(), z.size(), dz.data(), loss));
  for (int b = 0; b < 3; ++b) {  // nothing flows to the padding
    EXPECT_EQ(dz.block(b * T + lengths[b], 0, T - lengths[b], 5).cwiseAbs().sum(), 0.0);
  }
}

TEST(AttentionPool, MatchesPyTorch) {
  const auto& f = fixtures()["attention_pool"];
  M z = as_matrix<double>(f["z"]), pooled, weights;  // (B*T, D); padding slots of email 0 hold 10.0
  const V q = as_vector<double>(f["query"]);
  const auto lengths = f["lengths"].get<std::vector<int>>();
  const int T = f["z"]["shape"][1];
  attention_pool_forward(z, q, T, lengths, pooled, weights);
  EXPECT_TRUE(all_close("pooled", pooled, as_matrix<double>(f["pooled"]), 1e-12));
  M dz = M::Zero(z.rows(), z.cols());
  V dq = V::Zero(q.size());
  attention_pool_backward(as_matrix<double>(f["dpooled"]), z, q, T, lengths, weights, dz, dq);
  EXPECT_TRUE(all_close("dz", dz, as_matrix<double>(f["dz"]), 1e-12));
  EXPECT_TRUE(all_close("dquery", dq, as_vector<double>(f["dquery"]), 1e-12));
}

TEST(AttentionPool, GradientCheck) {
  const int T = 6, D = 5;
  const std::vector<int> lengths = {4, 6, 1};
  M z = random_matrix(3 * T, D, 23), R = random_matrix(3, D, 24), pooled, weights;
  V q = random_matrix(D, 1, 25, 2.0);  // far from 0, so the weights are far from equal
  for (int b = 0; b < 3; ++b) {        // padding that would change every sum it leaked into
    z.block(b * T + lengths[b], 0, T - lengths[b], D).setConstant(10.0);
  }
  auto loss = [&] {
    attention_pool_forward(z, q, T, lengths, pooled, weights);
    return (pooled.array() * R.array()).sum();
  };
  loss();
  M dz = M::Zero(z.rows(), z.cols());
  V dq = V::Zero(D);
  attention_pool_backward(R, z, q, T, lengths, weights, dz, dq);
  EXPECT_TRUE(grad_check("dz", z.data(), z.size(), dz.data(), loss));
  EXPECT_TRUE(grad_check("dq", q.data(), q.size(), dq.data(), loss));
  for (int b = 0; b < 3; ++b) {
    EXPECT_NEAR(weights.row(b).sum(), 1.0, 1e-12);
    EXPECT_EQ(weights.row(b).tail(T - lengths[b]).cwiseAbs().sum(), 0.0);
    EXPECT_EQ(dz.block(b * T + lengths[b], 0, T - lengths[b], D).cwiseAbs().sum(), 0.0);
  }
  EXPECT_TRUE(all_close("one token", pooled.row(2), z.row(2 * T), 1e-15));
}

TEST(MaskedToken, MatchesPyTorch) {
  const auto& f = fixtures()["masked_token"];
  const M z = as_matrix<double>(f["z"]), E = as_matrix<double>(f["embed"]);
  const auto rows = f["rows"].get<std::vector<int>>(),
             targets = f["targets"].get<std::vector<int>>();
  M dz = M::Zero(z.rows(), z.cols()), dE = M::Zero(E.rows(), E.cols());
  const double loss = masked_token_loss(z, E, rows, targets, 1.0, dz, dE);
  EXPECT_NEAR(loss, f["loss"].get<double>(), 1e-12);
  EXPECT_TRUE(all_close("dz", dz, as_matrix<double>(f["dz"]), 1e-12));
  EXPECT_TRUE(all_close("dembed", dE, as_matrix<double>(f["dembed"]), 1e-12));
}

// Rows that are not masked get no gradient; `scale` scales both gradients, not the loss; the
// count of right predictions is each row's largest logit against its target.
TEST(MaskedToken, GradientCheck) {
  M z = random_matrix(6, 4, 31), E = random_matrix(10, 4, 32);
  const std::vector<int> rows = {1, 2, 5}, targets = {7, 0, 7};
  M dz = M::Zero(6, 4), dE = M::Zero(10, 4);
  auto loss = [&] {
    M gz = M::Zero(6, 4), gE = M::Zero(10, 4);
    return masked_token_loss(z, E, rows, targets, 1.0, gz, gE);
  };
  int right = 0;
  const double l = masked_token_loss(z, E, rows, targets, 0.5, dz, dE, &right);
  EXPECT_DOUBLE_EQ(l, loss());
  dz *= 2.0, dE *= 2.0;
  EXPECT_TRUE(grad_check("dz", z.data(), z.size(), dz.data(), loss));
  EXPECT_TRUE(grad_check("dE", E.data(), E.size(), dE.data(), loss));
  for (int r : {0, 3, 4}) EXPECT_EQ(dz.row(r).cwiseAbs().sum(), 0.0) << "row " << r;
  int want = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    Eigen::Index arg;
    (z.row(rows[i]) * E.transpose()).maxCoeff(&arg);
    want += arg == targets[i];
  }
  EXPECT_EQ(right, want);
}

TEST(AttentionPool, ZeroQueryIsTheMean) {
  const int T = 5, D = 4;
  const std::vector<int> lengths = {3, 5};
  const M z = random_matrix(2 * T, D, 26);
  M mean, attended, weights;
  mean_pool_forward(z, T, lengths, mean);
  attention_pool_forward(z, V::Zero(D).eval(), T, lengths, attended, weights);
  EXPECT_TRUE(all_close("pooled", attended, mean, 1e-15));
}

TEST(Dropout, MaskDependsOnlyOnKeyAndSite) {
  std::vector<uint64_t> keys = {7, 8};
  DropoutSpec spec{0.5, &keys};
  M a(8, 3), b(10, 3);
  dropout_mask(spec, 2, 4, {4, 2}, a);
  dropout_mask(spec, 2, 5, {4, 2}, b);  // same emails, more padding
  EXPECT_TRUE(all_close("email 0", a.topRows(4), b.topRows(4), 0));
  EXPECT_TRUE(all_close("email 1", a.middleRows(4, 2), b.middleRows(5, 2), 0));
  const double kept = (a.topRows(4).array() != 0).cast<double>().mean();
  EXPECT_GT(kept, 0.0);
  EXPECT_LT(kept, 1.0);
  EXPECT_TRUE(((a.array() == 0) || (a.array() == 2.0)).all());
}

TEST(Dropout, BulkMaskMakesTheDecisionsOfUniform) {
  // fill_keep_mask compares integer draws; it must drop exactly where uniform() < p, including
  // rates whose threshold is not a multiple of 2^-53, and leave the stream where the loop would.
  for (const double p : {0.0, 0.1, 0.3, 0.5, 1.0 / 3.0, 0.95}) {
    Rng loop(42), bulk(42);
    std::vector<float> expected(1000), got(1000);
    for (float& x : expected) x = loop.uniform() < p ? 0.0f : 2.0f;
    bulk.fill_keep_mask(got.data(), got.size(), p, 2.0f);
    EXPECT_EQ(expected, got) << "p = " << p;
    EXPECT_EQ(loop.next(), bulk.next()) << "p = " << p;
  }
  // At the boundary: a draw equal to p * 2^53 is kept, one below it is dropped.
  const uint64_t m = Rng(5).next() >> 11;
  const double p = std::ldexp(static_cast<double>(m), -53);
  float at = -1, above = -1;
  Rng(5).fill_keep_mask(&at, 1, p, 1.0f);
  Rng(5).fill_keep_mask(&above, 1, std::nextafter(p, 1.0), 1.0f);
  EXPECT_EQ(at, 1.0f);
  EXPECT_EQ(above, 0.0f);
}

// The model's products sum each element in one chain over the inner dimension, however their
// rows and columns are cut into blocks: a row computed alone has the same bits as in a batch,
// and Eigen's cache-size settings (which decide how its own products are blocked) change
// nothing. So a model trains to the same bits on any machine with the same vector instructions.
TEST(Linear, ProductsDoNotDependOnBlocking) {
  const Mat<float> x = random_matrix(803, 64, 31).cast<float>();
  const Mat<float> W = random_matrix(72, 64, 33).cast<float>();
  Mat<float> y;
  linear_forward<float>(x, W, nullptr, y);
  for (Eigen::Index r : {0, 5, 6, 801, 802}) {
    Mat<float> one;
    linear_forward<float>(x.row(r), W, nullptr, one);
    EXPECT_EQ((one - y.row(r)).cwiseAbs().maxCoeff(), 0.0f) << "row " << r;
  }
  const Mat<float> dy = random_matrix(803, 72, 32).cast<float>();
  auto gradients = [&](Mat<float>& dx, Mat<float>& dW) {
    dx = Mat<float>::Zero(803, 64), dW = Mat<float>::Zero(72, 64);
    linear_backward<float>(dy, x, W, &dx, dW, nullptr);
  };
  Mat<float> dx, dW, dx2, dW2;
  gradients(dx, dW);
  const std::ptrdiff_t l1 = Eigen::l1CacheSize(), l2 = Eigen::l2CacheSize(),
                       l3 = Eigen::l3CacheSize();
  Eigen::setCpuCacheSizes(16 * 1024, 256 * 1024, 2 * 1024 * 1024);
  gradients(dx2, dW2);
  Eigen::setCpuCacheSizes(l1, l2, l3);
  EXPECT_EQ((dx2 - dx).cwiseAbs().maxCoeff(), 0.0f);
  EXPECT_EQ((dW2 - dW).cwiseAbs().maxCoeff(), 0.0f);
  // And they are the products, to float rounding.
  EXPECT_TRUE(y.isApprox(x * W.transpose(), 1e-5f));
  EXPECT_TRUE(dW.isApprox(dy.transpose() * x, 1e-5f));
  EXPECT_TRUE(dx.isApprox(dy * W, 1e-5f));
}

// Each element of a product is the scalar chain fma(x_t, w_t, ...) over t in order, bit for bit,
// in the vectors of 16 and 8 columns and in the columns left over: so a machine's vector width
// (AVX2's 8 floats, AVX-512's 16) never changes a product, only how many lanes run at once.
TEST(Linear, ProductsAreScalarMultiplyAddChainsAtEveryWidth) {
  for (int out : {1, 7, 8, 9, 16, 17, 24, 31, 40}) {
    const Mat<float> x = random_matrix(13, 37, 41).cast<float>();
    const Mat<float> W = random_matrix(out, 37, 43).cast<float>();
    Mat<float> y;
    linear_forward<float>(x, W, nullptr, y);
    const Mat<float> dy = random_matrix(13, out, 47).cast<float>();
    Mat<float> dx = Mat<float>::Zero(13, 37), dW = Mat<float>::Zero(out, 37);
    linear_backward<float>(dy, x, W, &dx, dW, nullptr);
    for (int r = 0; r < 13; ++r) {
      for (int j = 0; j < out; ++j) {
        float chain = 0;
        for (int t = 0; t < 37; ++t) chain = std::fma(x(r, t), W(j, t), chain);
        ASSERT_EQ(y(r, j), chain) << "y(" << r << ", " << j << ") with " << out << " columns";
      }
      for (int i = 0; i < 37; ++i) {
        float chain = 0;
        for (int j = 0; j < out; ++j) chain = std::fma(dy(r, j), W(j, i), chain);
        ASSERT_EQ(dx(r, i), chain) << "dx(" << r << ", " << i << ") with " << out << " columns";
      }
    }
    for (int j = 0; j < out; ++j) {
      for (int i = 0; i < 37; ++i) {
        float chain = 0;
        for (int r = 0; r < 13; ++r) chain = std::fma(dy(r, j), x(r, i), chain);
        ASSERT_EQ(dW(j, i), chain) << "dW(" << j << ", " << i << ") with " << out << " columns";
      }
    }
  }
}

}  // namespace
}  // namespace router
