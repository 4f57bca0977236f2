#include "analysis/explain.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "base/errors.h"
#include "model/labelling.h"
#include "nn/encoder.h"

namespace router {

template <typename S>
Params<S> unrolled_params(const Params<S>& params, const std::vector<int32_t>& ids, Config& config,
                          std::vector<int32_t>& unrolled_ids) {
  const int T = static_cast<int>(ids.size());
  Params<S> p = params;
  p.embed.setZero(T + 1, params.embed.cols());
  unrolled_ids.resize(T);
  for (int t = 0; t < T; ++t) {
    p.embed.row(t + 1) = params.embed.row(ids[t]);
    unrolled_ids[t] = t + 1;
  }
  config.vocab_size = T + 1;
  return p;
}

template <typename S>
std::vector<double> gradient_x_input(const Params<S>& params, const Config& config,
                                     const Mat<S>& positions, const std::vector<int32_t>& ids,
                                     int label) {
  Config cfg = config;
  std::vector<int32_t> uids;
  const Params<S> p = unrolled_params(params, ids, cfg, uids);
  const Batch batch = make_batch({&uids});
  ForwardCache<S> cache;
  encoder_forward(p, cfg, positions, batch, 0.0, cache);
  // d logit_label / d logits is the one-hot row of `label`.
  Mat<S> dlogits = Mat<S>::Zero(1, cache.logits.cols());
  dlogits(0, label) = 1;
  Params<S> grads = zeros_like_config<S>(cfg);
  encoder_backward(p, cfg, batch, 0.0, cache, dlogits, grads);
  std::vector<double> out(ids.size());
  for (size_t t = 0; t < ids.size(); ++t) {
    // grads.embed row t + 1 is d logit / d x0_t (x0_t = embed row + position, so d x0 = d embed).
    out[t] = static_cast<double>(grads.embed.row(t + 1).dot(cache.x0.row(t)));
  }
  return out;
}

std::vector<WordEffect> word_effects(const Model& model, std::string_view text, int label) {
  std::vector<std::pair<size_t, size_t>> spans;  // [begin, end) of each word
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t begin = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > begin) spans.emplace_back(begin, i);
  }
  std::vector<WordEffect> out;
  if (spans.size() < 2) return out;
  std::vector<std::string> variants;
  for (const auto& [begin, end] : spans) {
    variants.push_back(std::string(text.substr(0, begin)) + std::string(text.substr(end)));
  }
  std::vector<Email> emails;
  for (const auto& v : variants) emails.push_back({v, ""});
  const std::vector<Labelled> labelled = label_emails(model, emails, {true, 1});
  for (size_t w = 0; w < spans.size(); ++w) {
    if (labelled[w].problem != Problem::kNone) continue;  // nothing readable left without it
    const Prediction& p = labelled[w].prediction;
    WordEffect e;
    e.word = std::string(text.substr(spans[w].first, spans[w].second - spans[w].first));
    e.index = w;
    e.without = p.probs[static_cast<size_t>(label)];
    e.label_without = p.label;
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const WordEffect& a, const WordEffect& b) { return a.without < b.without; });
  return out;
}

std::vector<HeadEffect> head_effects(const Model& model, const std::vector<int32_t>& ids,
                                     int label) {
  const Config& c = model.config();
  const int Dh = c.d_model / c.n_heads;
  Params<float> p = model.params();  // one copy: each head is zeroed, run, and put back
  const Batch batch = make_batch({&ids});
  // Of an ensemble, the first member's heads: the others' logits stay as they are.
  const int M = model.members();
  RowVec<float> others = RowVec<float>::Zero(c.num_labels);  // their logits, summed
  for (int m = 1; m < M; ++m) {
    ForwardCache<float> cache;
    encoder_forward(model.member(m), c, model.positions(), batch, 0.0, cache);
    others += cache.logits.row(0);
  }
  std::vector<HeadEffect> out;
  for (int l = 0; l < c.n_layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) {
      // out = concat W_o^T, and head h fills columns h*Dh .. (h+1)*Dh of concat.
      auto slice = p.layers[l].out_w.middleCols(h * Dh, Dh);
      const Mat<float> kept = slice;
      slice.setZero();
      ForwardCache<float> cache;
      encoder_forward(p, c, model.positions(), batch, 0.0, cache);
      slice = kept;
      RowVec<float> logits = cache.logits.row(0);
      if (M > 1) logits = (others + logits) / static_cast<float>(M);
      const Prediction q = model.finish(logits);
      out.push_back({l, h, q.probs[static_cast<size_t>(label)], q.label});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const HeadEffect& a, const HeadEffect& b) { return a.without < b.without; });
  return out;
}

Explanation explain(const Model& model, std::string_view text) {
  if (model.config().n_layers < 1) {
    throw UsageError("the model has no attention layer (n_layers 0): nothing to explain");
  }
  Explanation e;
  e.ids = model.encode(text, &e.truncated);
  const int T = static_cast<int>(e.ids.size());
  e.tokens = model.tokenizer().encode_pieces(text);
  e.tokens.resize(T);

  // The prediction is classify's own (Model::logits); the attention maps come from the training
  // forward, which keeps them, and agree with it up to float rounding.
  e.prediction = model.finish(model.logits({&e.ids}).row(0));
  ForwardCache<float> cache;
  encoder_forward(model.params(), model.config(), model.positions(), make_batch({&e.ids}), 0.0,
                  cache);
  e.prediction.n_tokens = T;
  e.prediction.truncated = e.truncated;
  const int L = model.config().n_layers, H = model.config().n_heads;
  e.attention.resize(L);
  for (int l = 0; l < L; ++l) {
    for (int h = 0; h < H; ++h) e.attention[l].push_back(cache.blocks[l].attn.prob(h));
  }

  e.members = model.members();
  e.heads = head_effects(model, e.ids, e.prediction.label);
  // The ensemble's logit is the mean of its members', and so is its gradient x input.
  e.raw_importance.assign(T, 0.0);
  for (int m = 0; m < model.members(); ++m) {
    const auto one = gradient_x_input(model.member(m), model.config(), model.positions(), e.ids,
                                      e.prediction.label);
    for (int t = 0; t < T; ++t) e.raw_importance[t] += one[t] / model.members();
  }
  double total = 0;
  for (double v : e.raw_importance) total += std::abs(v);
  e.importance.assign(T, 0.0);
  if (total > 0) {
    for (int t = 0; t < T; ++t) e.importance[t] = e.raw_importance[t] / total;
  }
  return e;
}

std::string change_words(float from, float to) {
  char a[32], b[32];
  std::snprintf(a, sizeof a, "%.4f", static_cast<double>(from));
  std::snprintf(b, sizeof b, "%.4f", static_cast<double>(to));
  if (std::string(a) == b) return std::string("stays at ") + a;
  return std::string(to < from ? "falls" : "rises") + " from " + a + " to " + b;
}

std::vector<Link> top_links(const Mat<float>& a, int k) {
  std::vector<Link> links;
  for (int i = 0; i < a.rows(); ++i) {
    for (int j = 0; j < a.cols(); ++j) {
      if (i != j) links.push_back({i, j, a(i, j)});
    }
  }
  std::stable_sort(links.begin(), links.end(),
                   [](const Link& x, const Link& y) { return x.weight > y.weight; });
  links.resize(std::min<size_t>(links.size(), static_cast<size_t>(std::max(k, 0))));
  return links;
}

double mean_entropy(const Mat<float>& a) {
  if (a.rows() == 0) return 0;
  double sum = 0;
  for (int i = 0; i < a.rows(); ++i) {
    for (int j = 0; j < a.cols(); ++j) {
      const double p = a(i, j);
      if (p > 0) sum -= p * std::log(p);
    }
  }
  return sum / static_cast<double>(a.rows());
}

std::string display_token(const std::string& piece) {
  static const std::string kMark = "\xE2\x96\x81";  // U+2581
  if (piece.size() > kMark.size() && piece.compare(0, kMark.size(), kMark) == 0) {
    return piece.substr(kMark.size());
  }
  return piece;
}

template std::vector<double> gradient_x_input<float>(const Params<float>&, const Config&,
                                                     const Mat<float>&, const std::vector<int32_t>&,
                                                     int);
template std::vector<double> gradient_x_input<double>(const Params<double>&, const Config&,
                                                      const Mat<double>&,
                                                      const std::vector<int32_t>&, int);
template Params<float> unrolled_params<float>(const Params<float>&, const std::vector<int32_t>&,
                                              Config&, std::vector<int32_t>&);
template Params<double> unrolled_params<double>(const Params<double>&, const std::vector<int32_t>&,
                                                Config&, std::vector<int32_t>&);

}  // namespace router
