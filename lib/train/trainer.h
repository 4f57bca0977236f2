// Training a model from labelled examples: learn the subword vocabulary, initialise from the
// seed, run mini-batch AdamW with warm-up + cosine decay, dropout and clipping, keep the epoch
// with the best validation accuracy (early stopping), and fit a calibration temperature.
// Deterministic: the batches and their split into shards depend only on the data and the seed;
// threads only decide who computes which shard, and shard gradients are summed in index order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/dataset.h"
#include "model/model.h"
#include "nn/config.h"
#include "nn/tensor.h"
#include "train/calibration.h"

namespace router {

// Examples per shard, the unit of parallel work inside a batch: half the batch, from 8 to 16
// examples, so that from batch 16 up a step has a shard for each of two cores, and no shard is so
// small that its matrix products stop paying. Of the batch size alone, so that the summation order
// of gradients never depends on the number of threads.
constexpr int shard_size(int batch_size) { return std::clamp(batch_size / 2, 8, 16); }

inline constexpr int kMinAutoLen = 64, kMaxAutoLen = 512;

// The defaults are the best recipe measured (docs/benchmarks.md, "Training"): a wide model, kept
// from overfitting by dropout, word dropout and BPE-dropout, judged on a moving average of its
// weights, trained for about kDefaultSteps steps.
inline constexpr int kDefaultEpochs = 80;
inline constexpr int64_t kDefaultSteps = 75000;

struct TrainOptions {
  // The architecture. vocab_size is the vocabulary asked for (the tokenizer may learn fewer
  // pieces); num_labels comes from the data.
  // max_len 0: from the data (the 99th percentile of the training emails' token counts, rounded up
  // to a power of two, kMinAutoLen to kMaxAutoLen).
  Config config{.d_model = 128, .n_heads = 8, .d_ff = 512, .max_len = 0, .vocab_size = 4000};
  int local_heads = 0;  // heads of layer 0 that start on the previous / next token
  // 0: from the data, kDefaultEpochs or as many as make kDefaultSteps steps if that is fewer
  // (default_epochs), so that a large data set takes no longer than a small one.
  int epochs = 0;
  // Epochs of masked-token pretraining before the labelled ones (0 = none): the encoder first
  // learns to predict masked tokens of the training emails from the words around them
  // (kMaskRate of each email's tokens, read as [UNK]); then the optimizer, the schedule and the
  // classifier start afresh. Not with --time-budget, which plans the labelled epochs only.
  int pretrain_epochs = 0;
  int batch_size = 16;
  // Labelled epochs keep the examples that share a pair id (Example::pair: the two sides of a
  // swap pair, and copies of them) in one batch, so that a step's gradient holds both sides and
  // what tells them apart. Pretraining batches as without it.
  bool pair_batches = false;
  double lr = 2e-3;
  double weight_decay = 0.01;
  double dropout = 0.2;
  double token_dropout = 0.2;  // share of training tokens read as [UNK] (word dropout)
  double bpe_dropout = 0.1;    // share of BPE merges skipped when training texts are encoded
  double label_smoothing = 0.1;
  double ema = 0.999;    // decay of the weights' moving average, judged and kept; 0 = off
  double warmup = 0.05;  // share of all steps spent warming up
  // Epochs without a better validation accuracy before stopping; 0 = never stop early (the
  // default: the learning rate's decay makes the last epochs the best, so a plateau halfway
  // through a long schedule is no reason to stop).
  int patience = 0;
  double clip = 1.0;  // max global gradient norm; 0 = off
  uint64_t seed = 42;
  int threads = 0;                  // 0 = all cores
  std::vector<std::string> labels;  // label order; empty = sorted
  // "None of these" (Rejection in model/model.h): the label of out-of-scope mail, which the
  // training data may have (then it is learned as a label too), the validation data may have, or
  // neither; a rejection threshold is learned on validation data (choose_rejection). "": none.
  std::string out_of_scope;
  // Files, not part of the recipe (options_json): where to keep the run's state at the end of
  // every epoch, and a state to continue from (train/checkpoint.h); "" for none.
  std::string checkpoint, resume;
  // Seconds for the whole run (> 0): the epochs are then as many as fit, at most `epochs`,
  // planned from a probe of this machine's speed (plan_budget); with `ensemble` 0, a budget that
  // holds two or more whole runs is spent on that many members instead. Not part of the recipe:
  // what it plans is (TrainResult::options), so --config repeats the run exactly.
  double time_budget = 0;
  // Members of an ensemble (Model::add_member), trained one after another with seeds seed,
  // seed + 1, ...: each run is the recipe's, and the model averages their logits. 0: as many as
  // a --time-budget holds (at most kBudgetMembers); with no budget, kOutOfScopeMembers when
  // the training data has examples of `out_of_scope`, else one.
  int ensemble = 0;
  // Knowledge distillation: the models whose predictions on the training emails (a Teaching,
  // given to train_model) are mixed into the targets, named here for the recipe; each target
  // is (1 - teacher_weight) * the label-smoothed label + teacher_weight * their probabilities.
  std::vector<std::string> teachers;
  double teacher_weight = 0.5;
};

// What the teachers say about the training emails: probs (n, K), row i for training example i,
// columns in the order of `labels`, which must be the training data's labels in any order.
struct Teaching {
  std::vector<std::string> labels;
  Mat<float> probs;
};

// The share of each email's tokens masked in a pretraining epoch (at least one), as BERT's.
inline constexpr double kMaskRate = 0.15;

// The most members a --time-budget plans on its own: each one costs every prediction a pass.
inline constexpr int kBudgetMembers = 4;
// Members when "none of these" is learned from out-of-scope training examples: one model's
// rule costs too much in-scope accuracy, a pair's does not (docs/benchmarks.md, "None of
// these, again").
inline constexpr int kOutOfScopeMembers = 2;

// One line of progress per epoch.
struct EpochReport {
  int epoch = 0, epochs = 0;
  double train_loss = 0, train_accuracy = 0;
  double valid_loss = 0, valid_accuracy = 0;
  double examples_per_second = 0, elapsed = 0, eta = 0;
  bool best = false;
  // Where the epoch's time went: the forward and backward passes (wall), the time the shards
  // of those passes computed (summed over shards, so threads * steps_seconds when no thread
  // waits), the gradient sum and optimizer update, and the validation pass.
  double steps_seconds = 0, shards_busy_seconds = 0, update_seconds = 0, valid_seconds = 0;
  int threads_used = 1;         // threads the shards ran on: min(--threads, shards per step)
  int member = 1, members = 1;  // of an ensemble, counted from 1
};

struct TrainHooks {
  std::function<void(const EpochReport&)> on_epoch;
  // Called after each step with (step within epoch, steps per epoch), pretraining's too.
  std::function<void(int, int)> on_step;
  // After each pretraining epoch: (epoch, epochs, mean masked-token loss, share predicted right).
  std::function<void(int, int, double, double)> on_pretrain_epoch;
};

struct TrainResult {
  int best_epoch = 0;
  double valid_accuracy = 0, valid_loss = 0;
  double ece_before = 0, ece_after = 0, temperature = 1;
  TemperatureChoice calibration;       // whether temperature scaling was applied, and why
  std::optional<Rejection> rejection;  // with --out-of-scope
  // On validation data with the rejection applied: in-scope accuracy and out-of-scope recall
  // (-1 when there is no out-of-scope example).
  double reject_in_scope_accuracy = 0, reject_recall = -1;
  double in_scope_accuracy_without = 0;  // the same in-scope mail, no rejection
  double seconds = 0;
  // The options as run: max_len chosen from the data and the epochs --time-budget planned, if
  // they were left to them. Its options_json is what --config repeats the run with.
  TrainOptions options;
  int epochs_run = 0;  // fewer than options.epochs after an early stop or an interrupt
  bool budget_shortened =
      false;                 // --time-budget planned fewer epochs than --epochs or the default's
  bool interrupted = false;  // Ctrl-C: the model is the best of the epochs finished before it
  bool interrupted_first_member = false;  // of an ensemble: Ctrl-C came before one had finished
  // Of an ensemble, each member's seed, best epoch and validation accuracy alone; best_epoch
  // and epochs_run above are then the last member's, valid_accuracy the ensemble's.
  struct Member {
    uint64_t seed = 0;
    int best_epoch = 0;
    double valid_accuracy = 0;
  };
  std::vector<Member> members;
};

// The small recipe that was the default before (`router train --preset fast`): d_model 64, batch
// 32, 20 epochs, no word dropout, BPE-dropout or averaging; about 3 points less on CLINC150 in a
// twentieth of the time (docs/benchmarks.md, "Training").
TrainOptions fast_options();

// The epochs of epochs = 0: kDefaultEpochs, fewer when `examples` make more than kDefaultSteps
// steps of `batch_size` in that many (at least one).
int default_epochs(size_t examples, int batch_size);

// The label of `train` or `valid` whose name says "none of these" (oos, out_of_scope,
// out-of-scope, in any case), for --out-of-scope when it is not given; "" if there is none.
std::string out_of_scope_by_name(const std::vector<Example>& train,
                                 const std::vector<Example>& valid);

// Splits off a seeded share of `all` for validation (stratified by label; at least one example
// per label stays in training).
void holdout_split(std::vector<Example>& all, double share, uint64_t seed,
                   std::vector<Example>& valid);

// Throws InputError for unusable data (fewer than two labels, a validation label unknown to the
// training data, ...) before any training starts. On SIGINT or SIGTERM (base/signals.h) the step
// in progress is finished and the best model of the epochs finished so far is returned, with
// result.interrupted set (of an ensemble: the members finished before it, or the first
// member's best so far); InterruptedError if no epoch had finished.
// With `teaching`, the targets are mixed with its probabilities (TrainOptions::teacher_weight).
Model train_model(const std::vector<Example>& train, const std::vector<Example>& valid,
                  const TrainOptions& options, const TrainHooks& hooks, TrainResult& result,
                  const Teaching* teaching = nullptr);

// The options as JSON, for the model file's metadata.
nlohmann::json options_json(const TrainOptions& options);

}  // namespace router
