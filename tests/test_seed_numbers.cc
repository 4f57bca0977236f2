// The seed numbers of the project: the sinusoid table, the attention parameter counts, and the
// permutation test (attention without positions is permutation-equivariant; with positions
// added to the slots after shuffling, it is not).
#include <algorithm>
#include <numeric>
#include <thread>

#include "base/rng.h"
#include "model/json_format.h"
#include "nn/layers.h"
#include "nn/params.h"
#include "nn/positional.h"
#include "test_support.h"

namespace router {
namespace {

TEST(Sinusoid, CourseTableAtDModel4) {
  const Mat<double> t = sinusoid_table(45, 4);
  const double want[5][4] = {{0.000, 1.000, 0.000, 1.000},
                             {0.841, 0.540, 0.010, 1.000},
                             {0.909, -0.416, 0.020, 1.000},
                             {0.141, -0.990, 0.030, 1.000},
                             {0.018, 1.000, 0.426, 0.905}};
  const int positions[5] = {0, 1, 2, 3, 44};
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 4; ++c) {
      EXPECT_NEAR(t(positions[r], c), want[r][c], 0.0005)
          << "position " << positions[r] << ", dim " << c;
    }
  }
}

TEST(Sinusoid, Position1AtDModel16) {
  const Mat<double> t = sinusoid_table(2, 16);
  const double want[4] = {0.8415, 0.5403, 0.3110, 0.9504};
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(t(1, c), want[c], 0.00005) << "dim " << c;
}

TEST(Sinusoid, MatchesReferenceAndNaiveLoop) {
  const auto j = test::load_json("tests/fixtures/parity/sinusoid.json");
  for (const auto& entry : j["tables"]) {
    const int d = entry["d_model"], n = entry["n_positions"];
    EXPECT_TRUE(test::all_close("sinusoid d_model " + std::to_string(d), sinusoid_table(n, d),
                                test::as_matrix<double>(entry["table"]), 1e-12));
  }
}

TEST(Sinusoid, BuiltInPiecesGivesTheWholeTable) {
  const Mat<double> whole = sinusoid_table(50, 7);
  for (const int first : {0, 1, 13, 49}) {
    const Mat<double> part = sinusoid_table(50 - first, 7, first);
    EXPECT_EQ(part, whole.bottomRows(50 - first)) << "from position " << first;
  }
}

// A model fills its table on first need, from any number of threads at once; whatever the order,
// the rows are the bits of the table computed whole.
TEST(Sinusoid, ModelTableGrowsToTheSameBits) {
  const Model model = load_model(test::source_path("tests/fixtures/models/tiny.json"));
  const int n = model.config().max_len, d = model.config().d_model;
  const Mat<float> want = sinusoid_table(n, d).cast<float>();
  EXPECT_EQ(model.positions(3).topRows(3), want.topRows(3));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rows = 1 + t; rows <= n; rows += 4) {
        EXPECT_EQ(model.positions(rows).topRows(rows), want.topRows(rows));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(model.positions(), want);
  (void)model.predict("where is my order");  // a short email needs no more rows than it has
  EXPECT_EQ(model.positions(), want);
}

TEST(ParameterCount, AttentionBlock) {
  EXPECT_EQ(attention_param_count(64, 8), 16384);
  EXPECT_EQ(attention_param_count(512, 8), 1048576);
  // Equal to one full-width head (Q, K, V: 3 D^2) plus W_o (D^2), whatever the number of heads.
  for (int heads : {1, 2, 4, 8, 16}) EXPECT_EQ(attention_param_count(512, heads), 4 * 512 * 512);
  EXPECT_THROW(attention_param_count(64, 7), std::exception);
}

TEST(ParameterCount, ModelTensorsMatchConfig) {
  Config c;
  c.d_model = 64, c.n_heads = 8, c.n_layers = 1, c.d_ff = 128, c.vocab_size = 100, c.num_labels = 5;
  Params<float> p = zeros_like_config<float>(c);
  int64_t attention = 0;
  for (const auto& t : tensors(p)) {
    if (t.name.find(".attn.") != std::string::npos) attention += t.size;
  }
  EXPECT_EQ(attention, 16384);
  EXPECT_EQ(count_params(p),
            100 * 64 + 16384 + 4 * 64 + 64 * 128 + 128 + 128 * 64 + 64 + 2 * 64 + 5 * 64 + 5);
  // Attention pooling adds one query of d_model values, between the final norm and the classifier.
  const int64_t mean_pooled = count_params(p);
  c.pooling = Pooling::kAttention;
  p = zeros_like_config<float>(c);
  EXPECT_EQ(count_params(p), mean_pooled + 64);
  const auto names = tensors(p);
  EXPECT_EQ(names[names.size() - 3].name, "pool.query");
  EXPECT_FALSE(names[names.size() - 3].decay);
}

// A training shard's gradient is cleared except its embedding table, which keeps its values.
TEST(ParameterCount, SetZeroExceptEmbeddingKeepsOnlyTheTable) {
  Config c;
  c.d_model = 16, c.n_heads = 4, c.n_layers = 1, c.d_ff = 32, c.vocab_size = 10, c.num_labels = 3;
  Params<float> p = zeros_like_config<float>(c);
  for (const auto& t : tensors(p)) std::fill(t.data, t.data + t.size, 1.0f);
  set_zero_except_embedding(p);
  for (const auto& t : tensors(p)) {
    const float want = t.data == p.embed.data() ? 1.0f : 0.0f;
    EXPECT_TRUE(std::all_of(t.data, t.data + t.size, [&](float v) { return v == want; })) << t.name;
  }
}

struct Permutation : ::testing::Test {
  static constexpr int T = 10, D = 16, H = 4;
  Mat<double> tokens, Wqkv, Wo;
  std::vector<int> perm;
  void SetUp() override {
    Rng rng(7);
    auto fill = [&](Mat<double>& m, int r, int c, double s) {
      m.resize(r, c);
      for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal() * s;
    };
    fill(tokens, T, D, 1.0);
    fill(Wqkv, 3 * D, D, 0.3);
    fill(Wo, D, D, 0.3);
    perm.resize(T);
    std::iota(perm.begin(), perm.end(), 0);
    std::reverse(perm.begin(), perm.end());
    std::swap(perm[0], perm[3]);
  }
  Mat<double> attend(const Mat<double>& x) {
    Mat<double> out;
    AttentionCache<double> cache;
    attention_forward(x, Wqkv, Wo, H, T, {T}, DropoutSpec{0.0, nullptr}, 0, out, cache);
    return out;
  }
  Mat<double> shuffled(const Mat<double>& x) {
    Mat<double> y(x.rows(), x.cols());
    for (int i = 0; i < T; ++i) y.row(i) = x.row(perm[i]);
    return y;
  }
};

TEST_F(Permutation, WithoutPositionsOutputsShuffleWithInputs) {
  // attention(shuffle(x)) == shuffle(attention(x))
  EXPECT_TRUE(test::all_close("shuffled output", attend(shuffled(tokens)), shuffled(attend(tokens)),
                              1e-12));
}

TEST_F(Permutation, WithPositionsTheyDoNot) {
  const Mat<double> pe = sinusoid_table(T, D);
  // Positions belong to slots: they are added after the tokens are shuffled.
  const Mat<double> a = attend(shuffled(tokens) + pe);
  const Mat<double> b = shuffled(attend(tokens + pe));
  EXPECT_GT((a - b).cwiseAbs().maxCoeff(), 1e-3);
}

}  // namespace
}  // namespace router
