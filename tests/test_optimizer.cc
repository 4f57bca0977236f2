// AdamW's put-off embedding rows: training updates only the rows a batch touches and replays the
// others' steps when they are next read. The weights, the moments' effect on them and the
// weight average must be the same bits as updating every row every step.
#include <gtest/gtest.h>

#include <vector>

#include "base/rng.h"
#include "train/optimizer.h"

namespace router {
namespace {

Config small_config() {
  Config c;
  c.d_model = 8, c.n_heads = 2, c.n_layers = 1, c.d_ff = 16, c.max_len = 16;
  c.vocab_size = 40, c.num_labels = 3;
  return c;
}

void fill(Params<float>& p, Rng& rng, float scale) {
  for (auto& t : tensors(p)) {
    for (int64_t i = 0; i < t.size; ++i) t.data[i] = static_cast<float>(rng.normal()) * scale;
  }
}

void expect_same_bits(Params<float>& want, Params<float>& got, const char* what, int step) {
  const auto w = tensors(want), g = tensors(got);
  for (size_t i = 0; i < w.size(); ++i) {
    for (int64_t k = 0; k < w[i].size; ++k) {
      ASSERT_EQ(g[i].data[k], w[i].data[k])
          << what << " " << w[i].name << "[" << k << "] after step " << step;
    }
  }
}

TEST(AdamW, PutOffEmbeddingRowsGiveTheSameBitsAsUpdatingEveryRow) {
  const Config c = small_config();
  Rng rng(17);
  Params<float> every = zeros_like_config<float>(c);
  fill(every, rng, 0.1f);
  Params<float> lazy = every, every_avg = every, lazy_avg = every;
  AdamW<float> eager_opt(c), lazy_opt(c);
  int64_t kept = 0;
  for (int step = 1; step <= 40; ++step) {
    // A batch's rows: a few of the table's, sorted; zero gradient on the others.
    std::vector<int32_t> rows;
    for (int32_t r = 0; r < c.vocab_size; ++r) {
      if (rng.uniform() < 0.2) rows.push_back(r);
    }
    Params<float> g = zeros_like_config<float>(c);
    fill(g, rng, 1.0f);
    std::vector<char> in(c.vocab_size, 0);
    for (int32_t r : rows) in[r] = 1;
    for (int32_t r = 0; r < c.vocab_size; ++r) {
      if (!in[r]) g.embed.row(r).setZero();
    }
    const double lr = 1e-2 * (1 + step % 3), scale = step % 4 == 0 ? 0.6 : 1.0;
    const double decay = std::min(0.99, (1.0 + step) / (10.0 + step));
    const bool averaged = step > 5;  // the average may start late
    eager_opt.step(every, g, lr, 0.1, 2, scale, averaged ? &every_avg : nullptr, decay);
    lazy_opt.catch_up(lazy, &lazy_avg, &rows, 2);  // what the forward pass would read
    // Step 25 updates every row at once (no rows given), as a caller without the lists would.
    lazy_opt.step(lazy, g, lr, 0.1, 2, scale, averaged ? &lazy_avg : nullptr, decay,
                  step == 25 ? nullptr : &rows);
    // The constants of the steps since every row was last up to date, and no more.
    kept = step == 25 ? 0 : kept + 1;
    EXPECT_EQ(lazy_opt.steps_kept(), kept) << "step " << step;
    if (step % 10 == 0) {
      lazy_opt.catch_up(lazy, &lazy_avg, nullptr, 1);
      kept = 0;
      EXPECT_EQ(lazy_opt.steps_kept(), 0) << "every row is up to date after step " << step;
      expect_same_bits(every, lazy, "weights", step);
      expect_same_bits(every_avg, lazy_avg, "average", step);
    }
  }
  // And at the end, every row caught up.
  lazy_opt.catch_up(lazy, &lazy_avg, nullptr, 2);
  expect_same_bits(every, lazy, "weights", 40);
  expect_same_bits(every_avg, lazy_avg, "average", 40);
}

}  // namespace
}  // namespace router
