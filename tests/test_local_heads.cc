// Local heads (`router train --local-heads N`): at initialisation, head 0 of the first layer
// attends to the previous token and head 1 to the next, for any tokens, before any training.
// The attention maps are read from the encoder's own forward pass.
#include <gtest/gtest.h>

#include "base/rng.h"
#include "nn/encoder.h"
#include "nn/params.h"
#include "nn/positional.h"

namespace router {
namespace {

Config crumb_like() {
  Config c;
  c.d_model = 64, c.n_heads = 4, c.n_layers = 2, c.d_ff = 128, c.max_len = 128;
  c.vocab_size = 4000, c.num_labels = 8;
  return c;
}

// Layer 0's attention maps for one email of `n` random tokens, head by head.
std::vector<Mat<double>> first_layer_maps(const Params<double>& p, const Config& c, int n) {
  Rng rng(11);
  std::vector<int32_t> ids;
  for (int t = 0; t < n; ++t) ids.push_back(2 + static_cast<int32_t>(rng.below(c.vocab_size - 2)));
  const Batch batch = make_batch({&ids});
  const Mat<double> positions = sinusoid_table(c.max_len, c.d_model);
  ForwardCache<double> cache;
  encoder_forward(p, c, positions, batch, 0.0, cache);
  std::vector<Mat<double>> maps;
  for (int h = 0; h < c.n_heads; ++h) maps.emplace_back(cache.blocks[0].attn.prob(h));
  return maps;
}

TEST(LocalHeads, StartOnThePreviousAndTheNextToken) {
  const Config c = crumb_like();
  const int n = 100;
  for (const int local : {2, 4}) {
    Params<double> p = init_params<double>(c, 42);
    init_local_heads(p, c, local);
    const auto maps = first_layer_maps(p, c, n);
    for (int h = 0; h < local; ++h) {
      const int d = h % 2 == 0 ? -1 : 1;  // the neighbour a query should look at: i - 1, i + 1, ...
      int hits = 0;
      double on_neighbour = 0, on_its_side = 0, on_the_other = 0;
      for (int i = 2; i < n - 2; ++i) {
        Eigen::Index best = 0;
        maps[h].row(i).maxCoeff(&best);
        hits += best == i + d;
        on_neighbour += maps[h](i, i + d);
        on_its_side += maps[h](i, i) + maps[h](i, i + d) + maps[h](i, i + 2 * d);
        on_the_other += maps[h](i, i - d);
      }
      const int queries = n - 4;
      // The sinusoid's fastest pair turns by 1 radian a token, so a head cannot be sharper than
      // about a token: the neighbour gets the most, the query itself and the next one over the
      // rest (measured: 62-65% of queries on the neighbour, 0.58 of the weight, 0.97 within the
      // three).
      EXPECT_GT(hits, queries / 2) << local << " local, head " << h;
      EXPECT_GT(on_neighbour / queries, 0.5) << local << " local, head " << h;
      EXPECT_GT(on_its_side / queries, 0.9) << local << " local, head " << h;
      EXPECT_LT(on_the_other / queries, 0.02)
          << local << " local, head " << h << " looks the wrong way";
    }
    // The other heads start as usual: almost uniform.
    for (int h = local; h < c.n_heads; ++h)
      EXPECT_LT(maps[h].maxCoeff(), 3.0 / n) << local << " local, head " << h;
  }
}

TEST(LocalHeads, ZeroChangesNothingAndOnlyLayerZeroQueryKeyAndEmbeddingMove) {
  const Config c = crumb_like();
  Params<double> plain = init_params<double>(c, 42);
  Params<double> none = plain, two = plain;
  init_local_heads(none, c, 0);
  init_local_heads(two, c, 2);
  const auto a = tensors(plain), b = tensors(none), d = tensors(two);
  for (size_t i = 0; i < a.size(); ++i) {
    bool same = true, changed = false;
    for (int64_t k = 0; k < a[i].size; ++k) {
      same = same && a[i].data[k] == b[i].data[k];
      changed = changed || a[i].data[k] != d[i].data[k];
    }
    EXPECT_TRUE(same) << a[i].name;
    const bool may_change = a[i].name == "embed.weight" || a[i].name == "layers.0.attn.qkv.weight";
    EXPECT_EQ(changed, may_change) << a[i].name;
  }
  // Values (rows 2D..3D of W_qkv) and the queries and keys of heads 2 and 3 keep their start.
  const Mat<double>& W = two.layers[0].qkv_w;
  const Mat<double>& W0 = plain.layers[0].qkv_w;
  EXPECT_EQ(W.bottomRows(c.d_model), W0.bottomRows(c.d_model));
  EXPECT_EQ(W.middleRows(32, 32), W0.middleRows(32, 32));
  EXPECT_EQ(W.middleRows(64 + 32, 32), W0.middleRows(64 + 32, 32));
  // The columns the local heads read start at zero in every embedding; the rest are untouched.
  EXPECT_EQ(two.embed.leftCols(16).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(two.embed.rightCols(48), plain.embed.rightCols(48));
}

}  // namespace
}  // namespace router
