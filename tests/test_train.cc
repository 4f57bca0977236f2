// End-to-end training on a small task that a bag of words cannot solve: which of two words comes
// first. A tiny model must learn it in a few seconds, and training must be reproducible: the
// same data and seed give byte-identical model files for 1 and 2 threads.
#include <functional>
#include <sstream>
#include <string>

#include "base/errors.h"
#include "base/rng.h"
#include "model/json_format.h"
#include "nn/params.h"
#include "order_task.h"
#include "test_support.h"
#include "train/optimizer.h"
#include "train/trainer.h"

namespace router {
namespace {

using test::order_task;

TrainOptions tiny_options(int threads) { return test::order_task_options(threads); }

TEST(Train, LearnsWordOrderAndIsReproducibleAcrossThreads) {
  const auto train = order_task(600, 1), valid = order_task(200, 2);
  TrainResult r1, r2;
  const Model m1 = train_model(train, valid, tiny_options(1), {}, r1);
  const Model m2 = train_model(train, valid, tiny_options(2), {}, r2);
  EXPECT_GE(r1.valid_accuracy, 0.9) << "a tiny model should learn which word comes first";
  EXPECT_EQ(model_to_json(m1), model_to_json(m2)) << "1 and 2 threads gave different models";
  // Calibration is fitted and improves (or keeps) the validation ECE.
  EXPECT_GT(r1.temperature, 0.0);
  EXPECT_LE(r1.ece_after, r1.ece_before + 1e-9);
}

// The defaults' epochs (epochs = 0): 80, or as many as make 75,000 steps when that is fewer, at
// least one; the run records the number it chose.
TEST(Train, DefaultEpochsAreEightyOrSeventyFiveThousandSteps) {
  EXPECT_EQ(default_epochs(60, 16), 80);
  EXPECT_EQ(default_epochs(15000, 16), 80);  // CLINC150: 938 steps an epoch
  EXPECT_EQ(default_epochs(30000, 16), 40);
  EXPECT_EQ(default_epochs(1000000, 16), 2);
  EXPECT_EQ(default_epochs(100000000, 16), 1);
  EXPECT_EQ(TrainOptions{}.epochs, 0);
  EXPECT_EQ(TrainOptions{}.patience, 0) << "the default never stops early";
  TrainOptions o = tiny_options(1);
  o.epochs = 0, o.patience = 0;
  TrainResult r;
  train_model(order_task(40, 1), order_task(10, 2), o, {}, r);
  EXPECT_EQ(r.options.epochs, 80);
  EXPECT_EQ(r.epochs_run, 80);
}

// Trains the order task with `set` applied to the options, on 1 and 2 threads, and once more
// without it (2 threads): an option that draws its own randomness or changes what is kept must
// still give one model for any thread count, and a different one from training without it.
struct OptionRuns {
  TrainOptions options;
  TrainResult result;
  std::string one_thread, two_threads, without;
};
OptionRuns train_with(const std::function<void(TrainOptions&)>& set) {
  const auto train = order_task(600, 1), valid = order_task(200, 2);
  OptionRuns runs;
  TrainOptions o2 = tiny_options(2);
  runs.options = tiny_options(1);
  set(runs.options);
  set(o2);
  TrainResult r2, r0;
  runs.one_thread = model_to_json(train_model(train, valid, runs.options, {}, runs.result));
  runs.two_threads = model_to_json(train_model(train, valid, o2, {}, r2));
  runs.without = model_to_json(train_model(train, valid, tiny_options(2), {}, r0));
  return runs;
}

// What every such option must keep: one model for 1 and 2 threads, a different one from training
// without it, and its value in the model's metadata.
void expect_reproducible_and_recorded(const OptionRuns& runs, const char* key, double value) {
  EXPECT_EQ(runs.one_thread, runs.two_threads) << key << ": 1 and 2 threads gave different models";
  EXPECT_NE(runs.one_thread, runs.without) << key;
  EXPECT_EQ(options_json(runs.options)[key], value) << key;
}

// Word dropout draws from each example's own stream: still one model for any thread count, and
// a different one from training without it. The order task is still learned with a tenth of the
// words lost.
TEST(Train, TokenDropoutIsReproducibleAcrossThreads) {
  const OptionRuns runs = train_with([](TrainOptions& o) { o.token_dropout = 0.1; });
  expect_reproducible_and_recorded(runs, "token_dropout", 0.1);
  EXPECT_GE(runs.result.valid_accuracy, 0.7) << "chance is 0.5";
}

// BPE-dropout segments the training texts anew each epoch on SentencePiece's sampler, seeded
// per epoch: still one model for any thread count, and the task is still learned.
TEST(Train, BpeDropoutIsReproducibleAcrossThreads) {
  const OptionRuns runs = train_with([](TrainOptions& o) { o.bpe_dropout = 0.05; });
  expect_reproducible_and_recorded(runs, "bpe_dropout", 0.05);
  EXPECT_GE(runs.result.valid_accuracy, 0.7) << "chance is 0.5";
}

// Local heads only change the starting point: still one model for any thread count, recorded,
// and the order task is learnt. More local heads than the first layer has are refused up front.
TEST(Train, LocalHeadsAreReproducibleAcrossThreads) {
  const OptionRuns runs = train_with([](TrainOptions& o) { o.local_heads = 2; });
  expect_reproducible_and_recorded(runs, "local_heads", 2);
  EXPECT_GE(runs.result.valid_accuracy, 0.9) << "which word comes first";
  const auto train = order_task(60, 1), valid = order_task(20, 2);
  TrainOptions o = tiny_options(1);
  TrainResult r;
  o.local_heads = 3;
  EXPECT_THROW(train_model(train, valid, o, {}, r), UsageError) << "2 heads, 3 local heads";
  o.local_heads = 1, o.config.n_layers = 0;
  EXPECT_THROW(train_model(train, valid, o, {}, r), UsageError) << "no layer to start";
}

// Attention pooling's query is trained like every other tensor: one model for any thread count,
// recorded, and the order task is learnt.
TEST(Train, AttentionPoolingIsReproducibleAcrossThreads) {
  const OptionRuns runs =
      train_with([](TrainOptions& o) { o.config.pooling = Pooling::kAttention; });
  EXPECT_EQ(runs.one_thread, runs.two_threads) << "1 and 2 threads gave different models";
  EXPECT_NE(runs.one_thread, runs.without);
  EXPECT_EQ(options_json(runs.options)["pooling"], "attention");
  EXPECT_GE(runs.result.valid_accuracy, 0.9) << "which word comes first";
}

TEST(Train, UpdateAverageMovesEveryValueTowardTheWeights) {
  Config c;
  c.d_model = 8, c.n_heads = 2, c.n_layers = 1, c.d_ff = 16, c.vocab_size = 300, c.num_labels = 3;
  Params<double> w = init_params<double>(c, 1), a1 = init_params<double>(c, 2), a2 = a1;
  Params<double> before = a1;
  update_average(a1, w, 0.75, 1);
  update_average(a2, w, 0.75, 2);
  const auto tw = tensors(w), t1 = tensors(a1), t2 = tensors(a2);
  const auto t0 = tensors(before);
  for (size_t i = 0; i < tw.size(); ++i)
    for (int64_t k = 0; k < tw[i].size; ++k) {
      EXPECT_NEAR(t1[i].data[k], 0.75 * t0[i].data[k] + 0.25 * tw[i].data[k], 1e-15) << tw[i].name;
      EXPECT_EQ(t1[i].data[k], t2[i].data[k]) << tw[i].name << ": threads changed the average";
    }
}

// The weights' moving average is computed value by value, so it too gives one model for any
// thread count; it is what gets judged and saved, so the file differs from training without it.
TEST(Train, WeightAverageIsReproducibleAcrossThreads) {
  const OptionRuns runs = train_with([](TrainOptions& o) { o.ema = 0.99; });
  expect_reproducible_and_recorded(runs, "ema", 0.99);
  EXPECT_GE(runs.result.valid_accuracy, 0.9)
      << "the average must still know which word comes first";
}

TEST(Train, EpochReportsSayWhereTheTimeWent) {
  const auto train = order_task(200, 1), valid = order_task(100, 2);
  TrainOptions o = tiny_options(2);
  o.epochs = 2;
  o.batch_size = 32;  // two shards a step, one per thread
  std::vector<EpochReport> reports;
  TrainHooks hooks;
  hooks.on_epoch = [&](const EpochReport& r) { reports.push_back(r); };
  TrainResult result;
  train_model(train, valid, o, hooks, result);
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& r : reports) {
    EXPECT_EQ(r.threads_used, 2);
    EXPECT_GT(r.steps_seconds, 0);
    EXPECT_GT(r.shards_busy_seconds, 0);
    EXPECT_GT(r.update_seconds, 0);
    EXPECT_GT(r.valid_seconds, 0);
    // Busy time is what the shards computed inside the passes: never more than every thread
    // for the whole of them.
    EXPECT_LE(r.shards_busy_seconds, r.threads_used * r.steps_seconds * 1.001);
    EXPECT_LE(r.steps_seconds + r.update_seconds + r.valid_seconds, r.elapsed);
  }
}

TEST(Train, WithoutPositionsItCannotBeatChance) {
  const auto train = order_task(600, 1), valid = order_task(200, 2);
  TrainOptions o = tiny_options(2);
  o.config.positional = Positional::kNone;
  o.epochs = 6;
  TrainResult r;
  train_model(train, valid, o, {}, r);
  EXPECT_LE(r.valid_accuracy, 0.65) << "order is invisible without positions";
}

// Masked-token pretraining draws its batches and masks from streams of its own: one model for
// any thread count, recorded, and the order task is still learnt from the weights it leaves.
// With --time-budget, which plans the labelled epochs only, it is refused up front.
TEST(Train, PretrainingIsReproducibleAcrossThreads) {
  const OptionRuns runs = train_with([](TrainOptions& o) { o.pretrain_epochs = 2; });
  expect_reproducible_and_recorded(runs, "pretrain_epochs", 2);
  EXPECT_GE(runs.result.valid_accuracy, 0.9) << "which word comes first";
  EXPECT_FALSE(options_json(tiny_options(1)).contains("pretrain_epochs"))
      << "a model trained without it records nothing: older recipes keep their bytes";
  TrainOptions o = tiny_options(1);
  o.pretrain_epochs = 1, o.time_budget = 60;
  TrainResult r;
  EXPECT_THROW(train_model(order_task(60, 1), order_task(20, 2), o, {}, r), UsageError);
}

// The order task in swap pairs: each email and the same words with "refund" and "replace"
// traded, which flips the label.
std::vector<Example> paired_order_task(int pairs, uint64_t seed) {
  std::vector<Example> out;
  for (const Example& e : order_task(pairs, seed)) {
    Example swapped = e;
    swapped.text.clear();
    std::istringstream words(e.text);
    for (std::string w; words >> w;) {
      if (w == "refund" || w == "replace") w = w == "refund" ? "replace" : "refund";
      swapped.text += (swapped.text.empty() ? "" : " ") + w;
    }
    swapped.label = e.label == "refund_first" ? "replace_first" : "refund_first";
    swapped.pair = e.where;
    Example first = e;
    first.pair = e.where;
    out.push_back(std::move(first));
    out.push_back(std::move(swapped));
  }
  return out;
}

// --pair-batches only changes which examples share a batch: one model for any thread count, a
// different one from training without it, recorded, and the order task is learnt. Data with no
// pair id is refused.
TEST(Train, PairBatchesAreReproducibleAcrossThreads) {
  const auto train = paired_order_task(300, 1), valid = order_task(200, 2);
  ASSERT_EQ(train[1].text.find("refund") < train[1].text.find("replace"),
            train[1].label == "refund_first");
  TrainOptions o = tiny_options(1), o2 = tiny_options(2);
  o.pair_batches = o2.pair_batches = true;
  TrainResult r, r2, r0;
  const std::string one = model_to_json(train_model(train, valid, o, {}, r));
  EXPECT_EQ(one, model_to_json(train_model(train, valid, o2, {}, r2)));
  EXPECT_NE(one, model_to_json(train_model(train, valid, tiny_options(2), {}, r0)));
  EXPECT_EQ(options_json(o)["pair_batches"], true);
  EXPECT_FALSE(options_json(tiny_options(1)).contains("pair_batches"))
      << "a model trained without it records nothing: older recipes keep their bytes";
  EXPECT_GE(r.valid_accuracy, 0.9) << "which word comes first";
  EXPECT_THROW(train_model(order_task(60, 1), order_task(20, 2), o, {}, r), InputError);
}

TEST(Train, RejectsUnusableData) {
  auto train = order_task(20, 1), valid = order_task(10, 2);
  for (auto& e : train) e.label = "one_label";
  TrainResult r;
  EXPECT_THROW(train_model(train, valid, tiny_options(1), {}, r), InputError);
  train = order_task(20, 1);
  valid[3].label = "unseen";
  try {
    train_model(train, valid, tiny_options(1), {}, r);
    FAIL() << "a validation label unknown to training must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("order_task:4"), std::string::npos) << e.what();
  }
}

TEST(Train, HoldoutSplitIsSeededAndStratified) {
  auto a = order_task(200, 5), b = order_task(200, 5);
  std::vector<Example> va, vb;
  holdout_split(a, 0.1, 9, va);
  holdout_split(b, 0.1, 9, vb);
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) EXPECT_EQ(va[i].text, vb[i].text);
  EXPECT_NEAR(static_cast<double>(va.size()), 20.0, 2.0);
  EXPECT_EQ(a.size() + va.size(), 200u);
}

}  // namespace
}  // namespace router
