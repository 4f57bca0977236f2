#include "analysis/permutation_test.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/errors.h"
#include "base/random_streams.h"
#include "base/rng.h"
#include "nn/encoder.h"

namespace router {

namespace {

// The first block's attention output (T, D) for `ids` under the given positional setting.
Mat<float> first_attention(const Model& model, const std::vector<int32_t>& ids, Positional pos) {
  Config cfg = model.config();
  cfg.positional = pos;
  cfg.n_layers = 1;  // only the first block is needed
  Params<float> p = model.params();
  p.layers.resize(1);
  ForwardCache<float> cache;
  encoder_forward(p, cfg, model.positions(), make_batch({&ids}), 0.0, cache);
  return cache.blocks[0].attn_out;
}

}  // namespace

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  }
  return m;
}

PermutationReport permutation_test(const Model& model, std::string_view text, uint64_t seed) {
  if (model.config().n_layers < 1) throw UsageError("the model has no attention layer");
  PermutationReport r;
  r.pieces = model.tokenizer().encode_pieces(text);
  const std::vector<int32_t> ids = model.encode(text);
  r.pieces.resize(ids.size());
  const int T = static_cast<int>(ids.size());
  r.perm.resize(T);
  std::iota(r.perm.begin(), r.perm.end(), 0);
  Rng rng(streams::permutation(seed));
  for (int attempt = 0; attempt < 16; ++attempt) {
    for (int i = T - 1; i > 0; --i) std::swap(r.perm[i], r.perm[rng.below(i + 1)]);
    bool moved = false;
    for (int i = 0; i < T; ++i) moved = moved || ids[r.perm[i]] != ids[i];
    if (moved) break;
  }
  std::vector<int32_t> shuffled(T);
  for (int i = 0; i < T; ++i) shuffled[i] = ids[r.perm[i]];
  for (Positional pos : {Positional::kNone, Positional::kSinusoidal}) {
    const Mat<float> a = first_attention(model, shuffled, pos);
    const Mat<float> b = first_attention(model, ids, pos);
    double diff = 0;
    for (int i = 0; i < T; ++i) {
      diff =
          std::max(diff, static_cast<double>((a.row(i) - b.row(r.perm[i])).cwiseAbs().maxCoeff()));
    }
    (pos == Positional::kNone ? r.max_diff_without_positions : r.max_diff_with_positions) = diff;
  }
  return r;
}

}  // namespace router
