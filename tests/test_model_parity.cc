// The whole encoder against the PyTorch reference (tests/fixtures/parity/model_small*.json):
// every intermediate, the logits, the loss, every parameter gradient, and five AdamW steps with
// clipping; in double (to 1e-10) and in float (to 1e-5). Then a finite-difference check of the
// whole model's gradient with padding.
#include <functional>

#include "nn/encoder.h"
#include "nn/positional.h"
#include "test_support.h"
#include "train/optimizer.h"

namespace router {
namespace {

using test::all_close;
using test::as_matrix;

struct Fixture {
  nlohmann::json j;
  Config config;
  Batch batch;
};

Fixture load(const std::string& name) {
  Fixture f;
  f.j = test::load_json("tests/fixtures/parity/" + name);
  const auto& c = f.j["config"];
  f.config.d_model = c["d_model"];
  f.config.n_heads = c["n_heads"];
  f.config.n_layers = c["n_layers"];
  f.config.d_ff = c["d_ff"];
  f.config.max_len = c["max_len"];
  f.config.positional = c["positional"] == "none" ? Positional::kNone : Positional::kSinusoidal;
  f.config.pooling = pooling_from_string(c["pooling"]);
  f.config.vocab_size = f.j["vocab_size"];
  f.config.num_labels = f.j["num_labels"];
  f.batch.B = f.j["ids"]["shape"][0];
  f.batch.T = f.j["ids"]["shape"][1];
  f.batch.ids = f.j["ids"]["data"].get<std::vector<int32_t>>();
  f.batch.lengths = f.j["lengths"].get<std::vector<int>>();
  f.batch.targets = f.j["targets"].get<std::vector<int>>();
  return f;
}

template <typename S>
Params<S> load_params(const Config& config, const nlohmann::json& tensors_json) {
  Params<S> p = zeros_like_config<S>(config);
  for (auto& t : tensors(p)) {
    const auto data = tensors_json.at(t.name).at("data").template get<std::vector<double>>();
    EXPECT_EQ(static_cast<int64_t>(data.size()), t.size) << t.name;
    for (int64_t i = 0; i < t.size; ++i) t.data[i] = static_cast<S>(data[i]);
  }
  return p;
}

// Rows t < len of a (B*T, C) activation.
template <typename S>
Mat<double> real_rows(const Mat<S>& m, const Batch& b) {
  int n = 0;
  for (int len : b.lengths) n += len;
  Mat<double> out(n, m.cols());
  int r = 0;
  for (int i = 0; i < b.B; ++i) {
    for (int t = 0; t < b.lengths[i]; ++t)
      out.row(r++) = m.row(i * b.T + t).template cast<double>();
  }
  return out;
}

template <typename S>
void check_forward(const Fixture& f, double tol) {
  const Params<S> p = load_params<S>(f.config, f.j["params"]);
  const Mat<S> pos = sinusoid_table(f.config.max_len, f.config.d_model).cast<S>();
  ForwardCache<S> cache;
  encoder_forward(p, f.config, pos, f.batch, 0.0, cache);
  const auto& fw = f.j["forward"];
  auto expect = [&](const std::string& name, const auto& got) {
    EXPECT_TRUE(all_close(name, real_rows(got, f.batch),
                          real_rows(as_matrix<double>(fw[name]), f.batch), tol, tol));
  };
  expect("x0", cache.x0);
  for (int l = 0; l < f.config.n_layers; ++l) {
    const auto& k = cache.blocks[l];
    const std::string pre = "layers." + std::to_string(l) + ".";
    expect(pre + "ln1", k.u1);
    expect(pre + "qkv", k.attn.qkv);
    expect(pre + "attn.concat", k.attn.concat);
    expect(pre + "attn.out", k.attn_out);
    expect(pre + "resid1", k.h);
    expect(pre + "ln2", k.u2);
    expect(pre + "ff.pre", k.pre);
    expect(pre + "ff.act", k.act);
    expect(pre + "ff.out", k.ff_out);
    expect(pre + "resid2", l + 1 < f.config.n_layers ? cache.blocks[l + 1].x_in : cache.x_final);
    // Attention maps: (B, H, T, T) in the fixture; router keeps (len, len) per email and head.
    const Mat<double> probs = as_matrix<double>(fw[pre + "attn.probs"]);
    const int H = f.config.n_heads, T = f.batch.T;
    for (int b = 0; b < f.batch.B; ++b) {
      for (int h = 0; h < H; ++h) {
        const int n = f.batch.lengths[b];
        EXPECT_TRUE(
            all_close(pre + "attn.probs[" + std::to_string(b) + "," + std::to_string(h) + "]",
                      k.attn.prob(b * H + h).template cast<double>(),
                      probs.block((b * H + h) * T, 0, n, n), tol, tol));
      }
    }
  }
  expect("norm", cache.z);
  EXPECT_TRUE(all_close("pooled", cache.pooled, as_matrix<double>(fw["pooled"]), tol, tol));
  EXPECT_TRUE(all_close("logits", cache.logits, as_matrix<double>(fw["logits"]), tol, tol));
}

// encoder_logits, the path of every prediction, against the same golden logits.
template <typename S>
void check_logits(const Fixture& f, double tol) {
  const Params<S> p = load_params<S>(f.config, f.j["params"]);
  const Mat<S> pos = sinusoid_table(f.config.max_len, f.config.d_model).cast<S>();
  const Mat<S> logits = encoder_logits(p, inference_weights(p), f.config, pos, f.batch);
  EXPECT_TRUE(all_close("logits", logits.template cast<double>(),
                        as_matrix<double>(f.j["forward"]["logits"]), tol, tol));
}

TEST(ModelParity, InferenceLogits) {
  for (const char* name :
       {"model_small.json", "model_small_nopos.json", "model_small_maxpool.json"}) {
    SCOPED_TRACE(name);
    const Fixture f = load(name);
    check_logits<double>(f, 1e-10);
    check_logits<float>(f, 1e-5);
  }
}

TEST(ModelParity, ForwardDouble) { check_forward<double>(load("model_small.json"), 1e-10); }
TEST(ModelParity, ForwardFloat) { check_forward<float>(load("model_small.json"), 1e-5); }

template <typename S>
void check_gradients(const Fixture& f, double tol) {
  const Params<S> p = load_params<S>(f.config, f.j["params"]);
  const Mat<S> pos = sinusoid_table(f.config.max_len, f.config.d_model).cast<S>();
  ForwardCache<S> cache;
  encoder_forward(p, f.config, pos, f.batch, 0.0, cache);
  Mat<S> dlogits;
  const double loss =
      softmax_xent(cache.logits, f.batch.targets, f.j["label_smoothing"].get<double>(), dlogits);
  EXPECT_NEAR(loss, f.j["loss"].get<double>(), tol);
  Params<S> g = zeros_like_config<S>(f.config);
  encoder_backward(p, f.config, f.batch, 0.0, cache, dlogits, g);
  for (auto& t : tensors(g)) {
    Mat<double> got = Eigen::Map<Mat<S>>(t.data, 1, t.size).template cast<double>();
    const auto want = f.j["grads"][t.name]["data"].template get<std::vector<double>>();
    Mat<double> w =
        Eigen::Map<const Mat<double>>(want.data(), 1, static_cast<Eigen::Index>(want.size()));
    EXPECT_TRUE(all_close("grad " + t.name, got, w, tol, tol));
  }
}

TEST(ModelParity, GradientsDouble) { check_gradients<double>(load("model_small.json"), 1e-10); }
TEST(ModelParity, GradientsFloat) { check_gradients<float>(load("model_small.json"), 1e-4); }
TEST(ModelParity, GradientsNoPositions) {
  check_gradients<double>(load("model_small_nopos.json"), 1e-10);
}

// A model of the pooling `want` (its fixture f): gradients in double and float, and the
// pooled vectors and logits of the forward pass. Returns the forward pass's cache.
ForwardCache<double> check_pooled_model(const Fixture& f, Pooling want) {
  EXPECT_EQ(f.config.pooling, want);
  check_gradients<double>(f, 1e-10);
  check_gradients<float>(f, 1e-4);
  const Params<double> p = load_params<double>(f.config, f.j["params"]);
  ForwardCache<double> cache;
  encoder_forward(p, f.config, sinusoid_table(f.config.max_len, f.config.d_model), f.batch, 0.0,
                  cache);
  EXPECT_TRUE(
      all_close("pooled", cache.pooled, as_matrix<double>(f.j["forward"]["pooled"]), 1e-10, 1e-10));
  EXPECT_TRUE(
      all_close("logits", cache.logits, as_matrix<double>(f.j["forward"]["logits"]), 1e-10, 1e-10));
  return cache;
}

TEST(ModelParity, MaxPooling) {
  check_pooled_model(load("model_small_maxpool.json"), Pooling::kMax);
}

TEST(ModelParity, AttentionPooling) {
  const Fixture f = load("model_small_attnpool.json");
  const ForwardCache<double> cache = check_pooled_model(f, Pooling::kAttention);
  const Params<double> p = load_params<double>(f.config, f.j["params"]);
  const Mat<double> pos = sinusoid_table(f.config.max_len, f.config.d_model);
  // The prediction path pools the same way.
  const Mat<double> logits = encoder_logits(p, inference_weights(p), f.config, pos, f.batch);
  EXPECT_TRUE(all_close("encoder_logits", logits, cache.logits, 1e-10, 1e-10));
  // And gives an email the same bits alone as in a padded batch.
  const Params<float> pf = load_params<float>(f.config, f.j["params"]);
  const InferenceWeights<float> wf = inference_weights(pf);
  const Mat<float> posf = pos.cast<float>();
  const Mat<float> together = encoder_logits(pf, wf, f.config, posf, f.batch);
  for (int b = 0; b < f.batch.B; ++b) {
    const std::vector<int32_t> ids(f.batch.ids.begin() + b * f.batch.T,
                                   f.batch.ids.begin() + b * f.batch.T + f.batch.lengths[b]);
    const Mat<float> alone = encoder_logits(pf, wf, f.config, posf, make_batch({&ids}));
    for (Eigen::Index k = 0; k < alone.cols(); ++k) {
      EXPECT_EQ(alone(0, k), together(b, k)) << "email " << b << ", label " << k;
    }
  }
}

TEST(ModelParity, NoPositionsIgnoresTokenOrder) {
  Fixture f = load("model_small_nopos.json");
  const Params<double> p = load_params<double>(f.config, f.j["params"]);
  const Mat<double> pos = sinusoid_table(f.config.max_len, f.config.d_model);
  ForwardCache<double> a, b;
  encoder_forward(p, f.config, pos, f.batch, 0.0, a);
  EXPECT_TRUE(all_close("logits", a.logits, as_matrix<double>(f.j["forward"]["logits"]), 1e-10));
  Batch permuted = f.batch;
  permuted.ids = f.j["ids_permuted"]["data"].get<std::vector<int32_t>>();
  encoder_forward(p, f.config, pos, permuted, 0.0, b);
  EXPECT_TRUE(all_close("logits after permuting tokens", b.logits, a.logits, 1e-12));
}

template <typename S>
void check_adamw(double tol) {
  Fixture f = load("model_small.json");
  const auto& a = f.j["adamw"];
  Params<S> p = load_params<S>(f.config, f.j["params"]);
  const Mat<S> pos = sinusoid_table(f.config.max_len, f.config.d_model).cast<S>();
  AdamW<S> opt(f.config, a["betas"][0], a["betas"][1], a["eps"]);
  const auto losses = a["losses"].template get<std::vector<double>>();
  const auto norms = a["grad_norms"].template get<std::vector<double>>();
  for (int step = 0; step < a["steps"].template get<int>(); ++step) {
    ForwardCache<S> cache;
    encoder_forward(p, f.config, pos, f.batch, 0.0, cache);
    Mat<S> dlogits;
    const double loss =
        softmax_xent(cache.logits, f.batch.targets, f.j["label_smoothing"], dlogits);
    EXPECT_NEAR(loss, losses[step], tol) << "loss before step " << step + 1;
    Params<S> g = zeros_like_config<S>(f.config);
    encoder_backward(p, f.config, f.batch, 0.0, cache, dlogits, g);
    EXPECT_NEAR(clip_grad_norm(g, a["clip"]), norms[step], tol) << "grad norm, step " << step + 1;
    opt.step(p, g, a["lr"], a["weight_decay"]);
  }
  ForwardCache<S> cache;
  encoder_forward(p, f.config, pos, f.batch, 0.0, cache);
  Mat<S> dlogits;
  EXPECT_NEAR(softmax_xent(cache.logits, f.batch.targets, f.j["label_smoothing"], dlogits),
              losses.back(), tol);
  const Params<double> want = load_params<double>(f.config, a["params_after"]);
  auto got_refs = tensors(p);
  auto want_refs = tensors(const_cast<Params<double>&>(want));
  for (size_t i = 0; i < got_refs.size(); ++i) {
    Mat<double> got =
        Eigen::Map<Mat<S>>(got_refs[i].data, 1, got_refs[i].size).template cast<double>();
    Mat<double> w = Eigen::Map<Mat<double>>(want_refs[i].data, 1, want_refs[i].size);
    EXPECT_TRUE(all_close("after 5 steps: " + got_refs[i].name, got, w, tol, tol));
  }
}

TEST(ModelParity, FiveAdamWStepsDouble) { check_adamw<double>(1e-9); }
TEST(ModelParity, FiveAdamWStepsFloat) { check_adamw<float>(1e-4); }

// The whole model's gradient `g` of `loss` against central differences (double, h = 1e-6):
// relative error |a - n| / max(|a|, |n|, 1e-3) below 1e-6 for every parameter of `p`.
void expect_gradient_matches_differences(Params<double>& p, Params<double>& g,
                                         const std::function<double()>& loss) {
  auto prefs = tensors(p), grefs = tensors(g);
  constexpr double h = 1e-6;
  int checked = 0;
  for (size_t i = 0; i < prefs.size(); ++i) {
    // Every element of small tensors; a stride through the big ones keeps the test fast.
    const int64_t stride = prefs[i].size > 64 ? 7 : 1;
    for (int64_t k = 0; k < prefs[i].size; k += stride) {
      double& x = prefs[i].data[k];
      const double keep = x;
      x = keep + h;
      const double up = loss();
      x = keep - h;
      const double down = loss();
      x = keep;
      const double numeric = (up - down) / (2 * h), analytic = grefs[i].data[k];
      const double rel =
          std::abs(numeric - analytic) / std::max({std::abs(numeric), std::abs(analytic), 1e-3});
      EXPECT_LT(rel, 1e-6) << prefs[i].name << "[" << k << "]: analytic " << analytic
                           << ", numeric " << numeric;
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

// The classifier's loss, through the whole model, with padding in the batch and dropout off.
TEST(ModelGradient, FiniteDifferences) {
  Fixture f = load("model_small.json");
  Params<double> p = load_params<double>(f.config, f.j["params"]);
  const Mat<double> pos = sinusoid_table(f.config.max_len, f.config.d_model);
  ForwardCache<double> cache;
  Mat<double> dlogits;
  auto loss = [&] {
    encoder_forward(p, f.config, pos, f.batch, 0.0, cache);
    return softmax_xent(cache.logits, f.batch.targets, 0.1, dlogits);
  };
  loss();
  Params<double> g = zeros_like_config<double>(f.config);
  encoder_backward(p, f.config, f.batch, 0.0, cache, dlogits, g);
  expect_gradient_matches_differences(p, g, loss);
}

// Pretraining's loss: masked tokens predicted through the embedding table, whose gradient then
// has two parts (input and output), and which leaves the classifier's at exactly 0.
TEST(ModelGradient, MaskedTokenFiniteDifferences) {
  Fixture f = load("model_small.json");
  Params<double> p = load_params<double>(f.config, f.j["params"]);
  const Mat<double> pos = sinusoid_table(f.config.max_len, f.config.d_model);
  std::vector<int> rows, targets;  // every third real token, masked as [UNK] (id 1)
  for (int b = 0; b < f.batch.B; ++b) {
    for (int t = 0; t < f.batch.lengths[b]; t += 3) {
      int32_t& id = f.batch.ids[b * f.batch.T + t];
      rows.push_back(b * f.batch.T + t), targets.push_back(id);
      id = 1;
    }
  }
  ForwardCache<double> cache;
  Params<double> g = zeros_like_config<double>(f.config);
  Mat<double> dz;
  auto loss = [&] {
    encoder_forward(p, f.config, pos, f.batch, 0.0, cache);
    dz.setZero(cache.z.rows(), cache.z.cols());
    Mat<double> unused = g.embed;
    return masked_token_loss(cache.z, p.embed, rows, targets, 1.0, dz, unused);
  };
  loss();
  masked_token_loss(cache.z, p.embed, rows, targets, 1.0, dz.setZero(), g.embed);
  encoder_backward_from_z(p, f.config, f.batch, cache, dz, g);
  EXPECT_EQ(g.cls_w.cwiseAbs().sum() + g.cls_b.cwiseAbs().sum(), 0.0);
  expect_gradient_matches_differences(p, g, loss);
}

// Training hands the weight-gradient products to other threads (encoder_backward's `later`),
// which run them in any order after the pass: the gradients must be the same bits as computed
// in place, with dropout on (its masks) and off (the branch gradients copied for the tasks).
TEST(ModelParity, DeferredWeightGradientsAreTheSameBits) {
  Fixture f = load("model_small.json");
  for (int b = 0; b < f.batch.B; ++b) f.batch.keys.push_back(0x51ab + 977 * b);
  const Params<float> p = load_params<float>(f.config, f.j["params"]);
  const Mat<float> pos = sinusoid_table(f.config.max_len, f.config.d_model).cast<float>();
  for (const double dropout : {0.0, 0.2}) {
    ForwardCache<float> cache;
    encoder_forward(p, f.config, pos, f.batch, dropout, cache);
    Mat<float> dlogits;
    softmax_xent(cache.logits, f.batch.targets, 0.1, dlogits);
    Params<float> now = zeros_like_config<float>(f.config), deferred = now;
    encoder_backward(p, f.config, f.batch, dropout, cache, dlogits, now);
    std::vector<std::function<void()>> tasks;
    const Later later = [&](std::function<void()> task) { tasks.push_back(std::move(task)); };
    encoder_backward(p, f.config, f.batch, dropout, cache, dlogits, deferred, &later);
    // 4 per layer (fc2, fc1, out, qkv) and the classifier's.
    EXPECT_EQ(tasks.size(), 4u * f.config.n_layers + 1) << "dropout " << dropout;
    for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) (*it)();
    tasks.clear();
    const auto want = tensors(now), got = tensors(deferred);
    for (size_t i = 0; i < want.size(); ++i) {
      for (int64_t k = 0; k < want[i].size; ++k) {
        ASSERT_EQ(got[i].data[k], want[i].data[k])
            << want[i].name << "[" << k << "], dropout " << dropout;
      }
    }
  }
}

}  // namespace
}  // namespace router
