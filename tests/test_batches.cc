// How an epoch's examples become batches: every example once, a seeded order, and with
// --pair-batches the two sides of a swap pair in one batch unless a batch boundary falls between
// them.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/errors.h"
#include "train/batches.h"

namespace router {
namespace {

// n emails of 1 to 40 tokens, lengths drawn from `seed`.
std::vector<std::vector<int32_t>> emails(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int32_t>> ids(n);
  for (auto& e : ids) e.assign(1 + rng.below(40), 5);
  return ids;
}

// n examples; the first `paired` of them in pairs (0 and 1, 2 and 3, ...), each pair twice over
// when `copies` is 2, as the built-in models' training file has its hand-written mail.
std::vector<Example> examples(int n, int paired, int copies = 1) {
  const std::string labels[] = {"a", "b"};
  std::vector<Example> out;
  for (int c = 0; c < copies; ++c) {
    for (int i = 0; i < n; ++i) {
      Example e;
      e.text = std::to_string(i);
      e.label = labels[i % 2];
      if (i < paired) e.pair = std::to_string(i / 2);
      out.push_back(e);
    }
  }
  return out;
}

std::vector<int> sorted_indices(const std::vector<std::vector<int>>& batches) {
  std::vector<int> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(Batches, EveryExampleOnceInBatchesOfTheSize) {
  const auto ids = emails(1000, 1);
  Rng rng(7);
  const auto batches = epoch_batches(ids, {}, 32, rng);
  ASSERT_EQ(batches.size(), 32u);  // 31 of 32 and one of 8
  int short_ones = 0;
  for (const auto& b : batches) short_ones += b.size() != 32;
  EXPECT_EQ(short_ones, 1);
  EXPECT_EQ(sorted_indices(batches), iota(1000));
  Rng again(7), other(8);
  EXPECT_EQ(epoch_batches(ids, {}, 32, again), batches) << "the seed decides the order";
  EXPECT_NE(epoch_batches(ids, {}, 32, other), batches);
}

// Units of one example are the default itself: the batches of every model trained before
// --pair-batches existed stay what they were.
TEST(Batches, SingleExampleUnitsAreTheDefault) {
  const auto ids = emails(777, 2);
  std::vector<std::vector<int>> singles;
  for (int i = 0; i < 777; ++i) singles.push_back({i});
  Rng a(3), b(3);
  EXPECT_EQ(epoch_batches(ids, singles, 16, a), epoch_batches(ids, {}, 16, b));
}

// The batches every model before --pair-batches was trained on, written down from that code:
// 40 emails, batches of 2 (windows of 32 and 8 emails), seed 11.
TEST(Batches, TheOrderEarlierModelsWereTrainedOn) {
  std::vector<std::vector<int32_t>> ids(40);
  for (int i = 0; i < 40; ++i) ids[i].assign((i * 7) % 5 + 1, 5);
  Rng rng(11);
  const std::vector<std::vector<int>> expected = {{20, 10}, {13, 38}, {9, 29},  {12, 27}, {17, 32},
                                                  {35, 0},  {37, 7},  {25, 15}, {1, 6},   {34, 24},
                                                  {5, 30},  {16, 19}, {11, 36}, {31, 21}, {39, 14},
                                                  {18, 28}, {33, 8},  {26, 4},  {22, 2},  {23, 3}};
  EXPECT_EQ(epoch_batches(ids, {}, 2, rng), expected);
}

// A window of 16 batches is sorted by length, so a batch holds emails of similar lengths.
TEST(Batches, BatchesAreSortedWithinWindows) {
  const auto ids = emails(16 * 8 * 4, 4);  // four windows of 16 batches of 8
  Rng rng(5);
  const auto batches = epoch_batches(ids, {}, 8, rng);
  int spread_sum = 0;
  for (const auto& b : batches) {
    size_t lo = 99, hi = 0;
    for (int i : b) lo = std::min(lo, ids[i].size()), hi = std::max(hi, ids[i].size());
    spread_sum += static_cast<int>(hi - lo);
  }
  EXPECT_LT(spread_sum / static_cast<int>(batches.size()), 8) << "lengths are 1 to 40";
}

TEST(Batches, PairsShareABatchUnlessABoundaryCutsThem) {
  const auto train = examples(1000, 600, 2);  // 300 pairs, each twice over: units of 4
  const auto units = pair_units(train);
  ASSERT_EQ(units.size(), 300u + 2 * 400u);
  EXPECT_EQ(units[0], (std::vector<int>{0, 1, 1000, 1001})) << "first appearance, file order";
  const auto ids = emails(2000, 6);
  Rng rng(9);
  const auto batches = epoch_batches(ids, units, 32, rng);
  EXPECT_EQ(sorted_indices(batches), iota(2000));
  std::map<int, int> batch_of;
  for (size_t b = 0; b < batches.size(); ++b) {
    for (int i : batches[b]) batch_of[i] = static_cast<int>(b);
  }
  int cut = 0;
  for (const auto& u : units) {
    for (int i : u) cut += batch_of[i] != batch_of[u[0]] ? 1 : 0;
  }
  // At most one unit is cut at each of the 62 boundaries between batches, each at most 3 ways.
  EXPECT_LE(cut, 62 * 3);
  int together = 0;
  for (const auto& u : units) {
    if (u.size() == 4 && batch_of[u[0]] == batch_of[u[1]]) ++together;
  }
  EXPECT_GE(together, 300 - 62) << "both sides of a pair in one batch";
}

TEST(Batches, PairBatchesNeedPairIds) {
  try {
    pair_units(examples(10, 0));
    FAIL() << "no pair ids";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--pair-batches"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace router
