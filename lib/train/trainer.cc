#include "train/trainer.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "base/parallel.h"
#include "base/random_streams.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "base/signals.h"
#include "nn/encoder.h"
#include "nn/positional.h"
#include "train/batches.h"
#include "train/calibration.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"

namespace router {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Word dropout, in place on a packed batch: each of an email's tokens becomes [UNK] with
// probability `rate`, drawn from its stream at this step (batch.keys, mixed apart from the
// stream the dropout masks use). The model learns not to lean on any single word; lengths and
// positions stay as they are.
void drop_tokens(Batch& batch, double rate) {
  for (int b = 0; b < batch.B; ++b) {
    Rng rng(streams::word_dropout(batch.keys[b]));
    int32_t* ids = batch.ids.data() + static_cast<size_t>(b) * batch.T;
    for (int t = 0; t < batch.lengths[b]; ++t) {
      if (rng.uniform() < rate) ids[t] = kUnkId;
    }
  }
}

// Masked-token pretraining's input, in place on a packed batch: each of an email's tokens is
// masked ([UNK]) with probability kMaskRate, and one at random if none was, drawn from its stream
// at this step. rows gets each masked token's row in the batch, targets its id before.
void mask_tokens(Batch& batch, std::vector<int>& rows, std::vector<int>& targets) {
  for (int b = 0; b < batch.B; ++b) {
    Rng rng(streams::masking(batch.keys[b]));
    int32_t* ids = batch.ids.data() + static_cast<size_t>(b) * batch.T;
    const size_t before = rows.size();
    auto mask = [&](int t) {
      rows.push_back(b * batch.T + t), targets.push_back(ids[t]);
      ids[t] = kUnkId;
    };
    for (int t = 0; t < batch.lengths[b]; ++t) {
      if (rng.uniform() < kMaskRate) mask(t);
    }
    if (rows.size() == before) mask(static_cast<int>(rng.below(batch.lengths[b])));
  }
}

struct Eval {
  double loss = 0, accuracy = 0;
  Mat<float> logits;
};

Eval judge_logits(Mat<float> logits, const std::vector<int>& targets) {
  Eval e;
  e.logits = std::move(logits);
  std::vector<double> conf;
  std::vector<bool> correct;
  confidences(e.logits, targets, 1.0, conf, correct);
  e.loss = nll_at_temperature(e.logits, targets, 1.0);
  e.accuracy = static_cast<double>(std::count(correct.begin(), correct.end(), true)) /
               std::max<size_t>(1, correct.size());
  return e;
}

Eval evaluate(const Params<float>& params, const Config& cfg, const Mat<float>& positions,
              const std::vector<std::vector<int32_t>>& ids, const std::vector<int>& targets,
              int threads) {
  return judge_logits(infer_logits(params, inference_weights(params), cfg, positions, ids, threads),
                      targets);
}

std::vector<std::string> choose_labels(const std::vector<Example>& train, const TrainOptions& o) {
  std::set<std::string> seen;
  for (const auto& e : train) seen.insert(e.label);
  std::vector<std::string> labels = o.labels;
  if (labels.empty()) {
    labels.assign(seen.begin(), seen.end());
  } else {
    std::set<std::string> given(labels.begin(), labels.end());
    if (given.size() != labels.size()) throw UsageError("--labels: a label is listed twice");
    for (const auto& e : train) {
      if (!given.count(e.label)) {
        throw InputError(e.where + ": label '" + e.label + "' is not in --labels");
      }
    }
  }
  if (labels.size() < 2) {
    throw InputError((train.empty() ? std::string("training data") : train[0].where) +
                     ": needs at least two labels, found " + std::to_string(seen.size()));
  }
  return labels;
}

std::vector<std::vector<int32_t>> encode_all(const Tokenizer& tok,
                                             const std::vector<Example>& examples, int max_len,
                                             int threads) {
  std::vector<std::vector<int32_t>> ids(examples.size());
  parallel_for(static_cast<int>(examples.size()), threads, [&](int i) {
    ids[i] = tok.encode(examples[i].text);
    if (ids[i].empty()) throw InputError(examples[i].where + ": \"text\" has no tokens");
    if (static_cast<int>(ids[i].size()) > max_len) ids[i].resize(max_len);
  });
  return ids;
}

}  // namespace

void holdout_split(std::vector<Example>& all, double share, uint64_t seed,
                   std::vector<Example>& valid) {
  std::map<std::string, std::vector<size_t>> by_label;
  for (size_t i = 0; i < all.size(); ++i) by_label[all[i].label].push_back(i);
  Rng rng(streams::holdout(seed));
  std::vector<char> take(all.size(), 0);
  for (auto& [label, idx] : by_label) {
    shuffle(idx, rng);
    const size_t n = std::min(idx.size() - 1, static_cast<size_t>(std::round(share * idx.size())));
    for (size_t k = 0; k < n; ++k) take[idx[k]] = 1;
  }
  std::vector<Example> keep;
  for (size_t i = 0; i < all.size(); ++i) (take[i] ? valid : keep).push_back(std::move(all[i]));
  all = std::move(keep);
}

namespace {

// Checked before the tokenizer is trained, so a bad value fails at once.
void check_options(const TrainOptions& o) {
  if (o.ensemble < 0 || o.ensemble > kMaxMembers) {
    throw UsageError("--ensemble " + std::to_string(o.ensemble) + ": expected 1 to " +
                     std::to_string(kMaxMembers) + " members (0: as --time-budget plans)");
  }
  if (o.ensemble > 1 && (!o.checkpoint.empty() || !o.resume.empty())) {
    throw UsageError("--checkpoint and --resume keep one run's state, not an ensemble's");
  }
  if (o.pretrain_epochs < 0) {
    throw UsageError("--pretrain-epochs " + std::to_string(o.pretrain_epochs) +
                     ": expected 0 or more");
  }
  if (o.pretrain_epochs > 0 && o.time_budget > 0) {
    throw UsageError(
        "--pretrain-epochs and --time-budget: the budget plans the labelled epochs only; give "
        "--epochs instead");
  }
  if (o.time_budget > 0 && !o.resume.empty()) {
    throw UsageError(
        "--resume continues the epochs its run planned: give them with --epochs "
        "(the model's metadata.options.epochs) instead of --time-budget");
  }
  if (!(o.teacher_weight >= 0 && o.teacher_weight <= 1)) {
    throw UsageError("--teacher-weight " + std::to_string(o.teacher_weight) +
                     ": expected a share from 0 to 1");
  }
  const int first_layer_heads = o.config.n_layers > 0 ? o.config.n_heads : 0;
  if (o.local_heads < 0 || o.local_heads > first_layer_heads) {
    throw UsageError("--local-heads " + std::to_string(o.local_heads) + ": the first layer has " +
                     std::to_string(first_layer_heads) + " heads");
  }
  if (o.local_heads > 0 && o.config.head_dim() < 2) {
    throw UsageError("--local-heads: heads must be at least 2 wide (--d-model / --heads)");
  }
}

// The data as the model reads it: the labels, the tokenizer learned from the training texts, the
// config, and every example encoded.
struct Prepared {
  Prepared(std::vector<std::string> l, Tokenizer t) : labels(std::move(l)), tok(std::move(t)) {}
  std::vector<std::string> labels;
  Tokenizer tok;
  Config cfg;
  std::vector<std::vector<int32_t>> train_ids, valid_ids;
  // Validation examples of an out-of-scope label that training lacks: they only choose the
  // rejection threshold.
  std::vector<std::vector<int32_t>> valid_out_ids;
  std::vector<std::string_view> train_texts;  // only with BPE-dropout, which segments anew
  std::vector<int> train_y, valid_y;
  // With --pair-batches: the training examples that go into batches together (pair_units).
  std::vector<std::vector<int>> train_units;
  // With a Teaching: its probabilities, (n_train, K) in `labels` order; otherwise empty.
  Mat<double> teacher;
};

// --max-len from the data: the 99th percentile of the training emails' token counts, rounded up
// to a power of two, from kMinAutoLen to kMaxAutoLen.
int max_len_for(const std::vector<std::vector<int32_t>>& ids) {
  std::vector<size_t> lengths;
  for (const auto& e : ids) lengths.push_back(e.size());
  if (lengths.empty()) return kMinAutoLen;
  const size_t at = std::min(lengths.size() - 1, lengths.size() * 99 / 100);
  std::nth_element(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(at),
                   lengths.end());
  int len = kMinAutoLen;
  while (len < kMaxAutoLen && static_cast<size_t>(len) < lengths[at]) len *= 2;
  return len;
}

Config config_of(const TrainOptions& o, int vocab_size, int num_labels) {
  Config cfg = o.config;
  cfg.vocab_size = vocab_size;
  cfg.num_labels = num_labels;
  try {
    validate(cfg, "options");
  } catch (const ModelError& e) {
    throw UsageError(e.what());
  }
  return cfg;
}

// The teacher's probabilities with their columns in the order of `labels`.
Mat<double> teacher_rows(const Teaching& t, const std::vector<std::string>& labels, size_t n) {
  if (static_cast<size_t>(t.probs.rows()) != n ||
      t.probs.cols() != static_cast<Eigen::Index>(t.labels.size())) {
    throw UsageError("the teachers' probabilities are " + std::to_string(t.probs.rows()) + " by " +
                     std::to_string(t.probs.cols()) + ", not one row per training example and " +
                     "one column per label");
  }
  if (t.labels.size() != labels.size()) {
    throw UsageError("the teachers have " + std::to_string(t.labels.size()) +
                     " labels, the training data " + std::to_string(labels.size()));
  }
  Mat<double> rows(t.probs.rows(), t.probs.cols());
  for (size_t k = 0; k < labels.size(); ++k) {
    const auto it = std::find(t.labels.begin(), t.labels.end(), labels[k]);
    if (it == t.labels.end()) throw UsageError("the teachers have no label '" + labels[k] + "'");
    rows.col(static_cast<Eigen::Index>(k)) = t.probs.col(it - t.labels.begin()).cast<double>();
  }
  return rows;
}

// The data as the model reads it; a max_len left to the data (0) is chosen here, into `o`.
Prepared prepare(const std::vector<Example>& train, const std::vector<Example>& valid,
                 TrainOptions& o, const Teaching* teaching) {
  std::vector<std::string> labels = choose_labels(train, o);
  std::map<std::string, int> index;
  for (size_t i = 0; i < labels.size(); ++i) index[labels[i]] = static_cast<int>(i);
  for (const auto& e : valid) {
    if (!index.count(e.label) && e.label != o.out_of_scope) {
      throw InputError(e.where + ": label '" + e.label + "' does not occur in the training data");
    }
  }
  if (valid.empty()) throw InputError("no validation examples");

  // Before the tokenizer is trained: data with no pair id fails at once.
  auto units = o.pair_batches ? pair_units(train) : std::vector<std::vector<int>>{};
  std::vector<std::string> texts;
  for (const auto& e : train) texts.push_back(e.text);
  Prepared d(std::move(labels), Tokenizer::train(texts, o.config.vocab_size));
  d.train_units = std::move(units);
  spdlog::info("vocabulary: {} pieces", d.tok.vocab_size());
  d.train_ids = encode_all(d.tok, train, std::numeric_limits<int>::max(), o.threads);
  if (o.config.max_len == 0) {
    o.config.max_len = max_len_for(d.train_ids);
    spdlog::info("max_len {}: 99% of the training emails have at most that many tokens",
                 o.config.max_len);
  }
  d.cfg = config_of(o, d.tok.vocab_size(), static_cast<int>(d.labels.size()));
  for (auto& ids : d.train_ids) {
    if (static_cast<int>(ids.size()) > d.cfg.max_len) ids.resize(d.cfg.max_len);
  }
  // Validation examples of an out-of-scope label training lacks go apart; without one (the
  // common case) the validation data is used as it is, not copied.
  std::vector<Example> in_labels, out;
  if (!o.out_of_scope.empty()) {
    for (const auto& e : valid) (index.count(e.label) ? in_labels : out).push_back(e);
    if (in_labels.empty()) throw InputError("no validation examples with a training label");
  }
  const std::vector<Example>& scored = o.out_of_scope.empty() ? valid : in_labels;
  d.valid_ids = encode_all(d.tok, scored, d.cfg.max_len, o.threads);
  d.valid_out_ids = encode_all(d.tok, out, d.cfg.max_len, o.threads);
  if (o.bpe_dropout > 0) {
    for (const auto& e : train) d.train_texts.emplace_back(e.text);
  }
  for (const auto& e : train) d.train_y.push_back(index[e.label]);
  for (const auto& e : scored) d.valid_y.push_back(index[e.label]);
  if (teaching) d.teacher = teacher_rows(*teaching, d.labels, train.size());
  return d;
}

// What the steps of one epoch add up to.
struct EpochTotals {
  double loss_sum = 0;
  int correct = 0;
  int masked = 0;  // in pretraining: the tokens predicted (correct counts the right ones)
  double steps_seconds = 0, busy_seconds = 0, update_seconds = 0;
};

// One training run: the weights, the optimizer, the best weights so far, and the work space of
// the shards each step is cut into. An epoch is its steps; a step is one shard pass per shard,
// in parallel, then one update.
class Training {
 public:
  // `member` of `members` (counted from 1), after `epochs_before` epochs of earlier members and
  // `pretrained_before` seconds of their pretraining: for the progress reports.
  Training(const Prepared& d, const TrainOptions& o, const TrainHooks& hooks, int member = 1,
           int members = 1, int epochs_before = 0, double pretrained_before = 0)
      : member_(member),
        members_(members),
        epochs_before_(epochs_before),
        pretrained_before_(pretrained_before),
        d_(d),
        o_(o),
        hooks_(hooks),
        cfg_(d.cfg),
        params_(init_params<float>(cfg_, o.seed)),
        opt_(cfg_),
        positions_(sinusoid_table(cfg_.max_len, cfg_.d_model).cast<float>()),
        n_(static_cast<int>(d.train_ids.size())),
        steps_per_epoch_((n_ + o.batch_size - 1) / o.batch_size),
        total_steps_(static_cast<int64_t>(steps_per_epoch_) * o.epochs),
        schedule_steps_(total_steps_),
        shard_(shard_size(o.batch_size)),
        max_shards_((o.batch_size + shard_ - 1) / shard_),
        caches_(max_shards_),
        shard_loss_(max_shards_),
        shard_correct_(max_shards_),
        shard_masked_(max_shards_),
        shard_busy_(max_shards_),
        shard_dlogits_(max_shards_),
        in_batch_(cfg_.vocab_size, 0) {
    init_local_heads(params_, cfg_, o.local_heads);
    for (int s = 0; s < max_shards_; ++s) shard_grads_.push_back(zeros_like_config<float>(cfg_));
    // With ema, an exponential moving average of the weights is what validation judges and
    // what is kept. Its decay ramps up over the first steps, so early epochs are not stuck at
    // the start.
    if (o.ema > 0) avg_ = params_;
    best_ = params_;
    best_eval_.accuracy = -1;
  }

  // Runs epoch `epoch` and judges it; false when training is to stop (no improvement for
  // --patience epochs, or a signal, which leaves the epoch unjudged).
  bool epoch(int epoch, Clock::time_point t0, TrainResult& result) {
    const auto e0 = Clock::now();
    std::vector<std::vector<int32_t>> sampled;
    const auto& epoch_ids = ids_of(epoch, sampled);
    Rng rng(streams::shuffle(o_.seed, epoch));
    const auto batches = epoch_batches(epoch_ids, d_.train_units, o_.batch_size, rng);
    EpochTotals totals;
    for (size_t bi = 0; bi < batches.size(); ++bi) {
      if (interrupted()) break;  // Ctrl-C: the step in progress is finished; no new one
      step(batches[bi], epoch_ids, epoch, totals);
      if (hooks_.on_step) hooks_.on_step(static_cast<int>(bi) + 1, steps_per_epoch_);
    }
    if (interrupted()) {  // the best model of the epochs finished so far is kept
      result.interrupted = true;
      spdlog::warn("interrupted in epoch {}: keeping the best model so far", epoch);
      return false;
    }
    return judge(epoch, totals, e0, t0, result);
  }

  // --pretrain-epochs: masked-token epochs over the training emails, on a schedule of their
  // own and with the embedding table as the output layer; then the optimizer, the step count and
  // the classifier (and pooling query) start afresh, as if the encoder had been initialised so.
  // A signal stops it early; epoch() then stops at once too.
  void pretrain(int epochs) {
    const auto p0 = Clock::now();
    pretraining_ = true;
    schedule_steps_ = static_cast<int64_t>(steps_per_epoch_) * epochs;
    for (int e = 1; e <= epochs && !interrupted(); ++e) {
      std::vector<std::vector<int32_t>> sampled;
      const auto& ids = ids_of(e, sampled);
      Rng rng(streams::shuffle(streams::pretraining(o_.seed), e));
      const auto batches = epoch_batches(ids, {}, o_.batch_size, rng);
      EpochTotals totals;
      for (size_t bi = 0; bi < batches.size() && !interrupted(); ++bi) {
        step(batches[bi], ids, e, totals);
        if (hooks_.on_step) hooks_.on_step(static_cast<int>(bi) + 1, steps_per_epoch_);
      }
      if (hooks_.on_pretrain_epoch && !interrupted()) {
        hooks_.on_pretrain_epoch(e, epochs, totals.loss_sum / n_,
                                 static_cast<double>(totals.correct) / std::max(1, totals.masked));
      }
    }
    const Params<float> fresh = init_params<float>(cfg_, o_.seed);
    params_.cls_w = fresh.cls_w, params_.cls_b = fresh.cls_b, params_.pool_q = fresh.pool_q;
    opt_ = AdamW<float>(cfg_);
    step_ = 0;
    schedule_steps_ = total_steps_;
    pretraining_ = false;
    if (o_.ema > 0) avg_ = params_;
    best_ = params_;
    pretrain_seconds_ = seconds_since(p0);
  }

  Params<float>& best() { return best_; }
  double pretrain_seconds() const { return pretrain_seconds_; }
  const Eval& best_eval() const { return best_eval_; }

  // What an epoch costs here, in seconds, from up to `steps` steps of the first epoch and one
  // validation pass: what --time-budget plans with. Changes the weights: a probe's own run.
  double epoch_seconds(int steps) {
    std::vector<std::vector<int32_t>> sampled;
    const auto& ids = ids_of(1, sampled);
    Rng rng(streams::shuffle(o_.seed, 1));
    const auto batches = epoch_batches(ids, d_.train_units, o_.batch_size, rng);
    const int n = std::min<int>(steps, static_cast<int>(batches.size()));
    EpochTotals totals;
    const auto s0 = Clock::now();
    for (int bi = 0; bi < n; ++bi) step(batches[bi], ids, 1, totals);
    const double per_step = seconds_since(s0) / std::max(1, n);
    const auto v0 = Clock::now();
    evaluate(params_, cfg_, positions_, d_.valid_ids, d_.valid_y, o_.threads);
    return per_step * static_cast<double>(batches.size()) + seconds_since(v0);
  }
  // False once early stopping has decided (a resumed run that had stopped).
  bool stopped() const { return o_.patience > 0 && since_best_ >= o_.patience; }

  // The state after epoch `epoch`, judged (every embedding row is then up to date).
  void save(const std::string& path, int epoch, const std::string& fingerprint,
            const TrainResult& result) const {
    Checkpoint c;
    c.fingerprint = fingerprint;
    c.epoch = epoch;
    c.step = step_;
    c.best_epoch = result.best_epoch;
    c.since_best = since_best_;
    c.params = params_;
    c.first_moments = opt_.first_moments();
    c.second_moments = opt_.second_moments();
    if (o_.ema > 0) c.average = avg_;
    c.best = best_;
    write_checkpoint(path, c);
  }

  // Continues from a checkpoint of this run; returns the epochs it had finished.
  int restore(const std::string& path, const std::string& fingerprint, TrainResult& result) {
    Checkpoint c = read_checkpoint(path, cfg_);
    if (c.fingerprint != fingerprint) {
      throw InputError(path +
                       ": a checkpoint of another run (other data or options); resume "
                       "with the data and options that wrote it");
    }
    if (c.average.layers.empty() != (o_.ema == 0)) {
      throw InputError(path + ": a checkpoint of another run (--ema differs)");
    }
    params_ = std::move(c.params);
    opt_.restore(std::move(c.first_moments), std::move(c.second_moments), c.step);
    if (o_.ema > 0) avg_ = std::move(c.average);
    best_ = std::move(c.best);
    best_eval_ = evaluate(best_, cfg_, positions_, d_.valid_ids, d_.valid_y, o_.threads);
    step_ = c.step;
    since_best_ = c.since_best;
    result.best_epoch = c.best_epoch;
    result.epochs_run = c.epoch;
    spdlog::info("resuming after epoch {} of {} (best so far: epoch {}, valid acc {:.4f})", c.epoch,
                 o_.epochs, c.best_epoch, best_eval_.accuracy);
    return c.epoch;
  }

 private:
  // The training examples' ids in epoch `epoch`: with BPE-dropout, the texts segmented anew into
  // `sampled`; otherwise the ids of prepare().
  const std::vector<std::vector<int32_t>>& ids_of(
      int epoch, std::vector<std::vector<int32_t>>& sampled) const {
    if (o_.bpe_dropout <= 0) return d_.train_ids;
    sampled =
        d_.tok.encode_sampled(d_.train_texts, o_.bpe_dropout, streams::bpe_dropout(o_.seed, epoch));
    for (auto& ids : sampled) {
      if (static_cast<int>(ids.size()) > cfg_.max_len) ids.resize(cfg_.max_len);
    }
    return sampled;
  }

  // One step: the batch `members` cut into shards, each shard's forward and backward pass in
  // parallel, then the gradients summed, clipped and applied.
  void step(const std::vector<int>& members, const std::vector<std::vector<int32_t>>& epoch_ids,
            int epoch, EpochTotals& totals) {
    const int B = static_cast<int>(members.size());
    const int shards = (B + shard_ - 1) / shard_;
    batch_rows_.clear();
    if (pretraining_) {  // its output layer is the whole table: every row has a gradient
      for (int32_t id = 0; id < cfg_.vocab_size; ++id) batch_rows_.push_back(id);
    } else {
      if (o_.token_dropout > 0) in_batch_[kUnkId] = 1;
      for (int j : members) {
        for (int32_t id : epoch_ids[j]) in_batch_[id] = 1;
      }
      for (int32_t id = 0; id < cfg_.vocab_size; ++id) {
        if (!in_batch_[id]) continue;
        batch_rows_.push_back(id);
        in_batch_[id] = 0;
      }
    }
    // The optimizer puts off the other rows' updates; the ones this batch reads catch up.
    const auto c0 = Clock::now();
    opt_.catch_up(params_, o_.ema > 0 ? &avg_ : nullptr, &batch_rows_, o_.threads);
    totals.update_seconds += seconds_since(c0);
    const auto s0 = Clock::now();
    // A shard's weight-gradient products go to a queue, so the thread of a shorter shard
    // (each batch is sorted by length) helps the longer one's instead of waiting for it.
    WorkQueue products(shards);
    const Later later = [&products](std::function<void()> task) { products.push(std::move(task)); };
    parallel_for(shards, o_.threads, [&](int s) {
      const auto b0 = Clock::now();
      shard_pass(s, members, epoch_ids, products, later);
      const double own = seconds_since(b0);
      shard_busy_[s] = own + products.help();
    });
    totals.steps_seconds += seconds_since(s0);
    update(shards, B, epoch, totals);
  }

  // Shard `s` of a step's batch: forward, loss and backward, its weight-gradient products
  // handed to `later`.
  void shard_pass(int s, const std::vector<int>& members,
                  const std::vector<std::vector<int32_t>>& epoch_ids, WorkQueue& products,
                  const Later& later) {
    const Producing producing(products);
    const int B = static_cast<int>(members.size());
    std::vector<const std::vector<int32_t>*> seqs;
    std::vector<int> targets;
    std::vector<uint64_t> keys;
    const uint64_t seed = pretraining_ ? streams::pretraining(o_.seed) : o_.seed;
    for (int j = s * shard_; j < std::min(B, (s + 1) * shard_); ++j) {
      seqs.push_back(&epoch_ids[members[j]]);
      targets.push_back(d_.train_y[members[j]]);
      // Dropout stream of this example at this step: independent of shards and threads.
      keys.push_back(streams::example(seed, step_, members[j]));
    }
    Batch batch = make_batch(seqs);
    batch.targets = targets;
    batch.keys = keys;
    if (pretraining_) {
      masked_pass(s, B, batch, later);
      return;
    }
    if (o_.token_dropout > 0) drop_tokens(batch, o_.token_dropout);
    auto& cache = caches_[s];
    encoder_forward(params_, cfg_, positions_, batch, o_.dropout, cache);
    Mat<float>& dlogits = shard_dlogits_[s];  // read by the queued products
    const double loss =
        d_.teacher.size() == 0
            ? softmax_xent(cache.logits, targets, o_.label_smoothing, dlogits)
            : softmax_xent(cache.logits, taught_targets(members, s, targets), dlogits);
    // The shard's mean loss -> its share of the batch mean.
    const double share = static_cast<double>(batch.B) / B;
    dlogits *= static_cast<float>(share);
    shard_loss_[s] = loss * share;
    int right = 0;
    for (int b = 0; b < batch.B; ++b) {
      Eigen::Index arg;
      cache.logits.row(b).maxCoeff(&arg);
      right += arg == targets[b];
    }
    shard_correct_[s] = right;
    set_zero_except_embedding(shard_grads_[s]);  // its rows are cleared after each step
    encoder_backward(params_, cfg_, batch, o_.dropout, cache, dlogits, shard_grads_[s], &later);
  }

  // A pretraining shard: its tokens masked, the masked ones predicted, and the gradient of that
  // sent down from the final norm (the classifier gets none).
  void masked_pass(int s, int B, Batch& batch, const Later& later) {
    std::vector<int> rows, ids;
    mask_tokens(batch, rows, ids);
    auto& cache = caches_[s];
    encoder_forward(params_, cfg_, positions_, batch, o_.dropout, cache);
    set_zero_except_embedding(shard_grads_[s]);  // update() cleared the table after the last step
    const double share = static_cast<double>(batch.B) / B;
    Mat<float> dz = Mat<float>::Zero(cache.z.rows(), cache.z.cols());
    int right = 0;
    shard_loss_[s] = share * masked_token_loss(cache.z, params_.embed, rows, ids, share, dz,
                                               shard_grads_[s].embed, &right);
    shard_correct_[s] = right;
    shard_masked_[s] = static_cast<int>(rows.size());
    encoder_backward_from_z(params_, cfg_, batch, cache, dz, shard_grads_[s], &later);
  }

  // Shard `s`'s targets with teachers: the smoothed labels mixed with their probabilities.
  Mat<double> taught_targets(const std::vector<int>& members, int s,
                             const std::vector<int>& targets) const {
    Mat<double> q = smoothed_targets(targets, cfg_.num_labels, o_.label_smoothing);
    const double w = o_.teacher_weight;
    for (Eigen::Index r = 0; r < q.rows(); ++r) {
      q.row(r) = (1 - w) * q.row(r) + w * d_.teacher.row(members[s * shard_ + r]);
    }
    return q;
  }

  // The shards' gradients summed, clipped and applied; the step's loss and counts added up.
  void update(int shards, int B, int epoch, EpochTotals& totals) {
    const auto u0 = Clock::now();
    double loss = 0;
    for (int s = 0; s < shards; ++s) {
      loss += shard_loss_[s], totals.correct += shard_correct_[s],
          totals.busy_seconds += shard_busy_[s];
      if (pretraining_) totals.masked += shard_masked_[s];
    }
    if (!std::isfinite(loss)) {
      throw Error(ExitCode::kFailure, "training diverged: the loss is " + std::to_string(loss) +
                                          " at step " + std::to_string(step_ + 1) + " (epoch " +
                                          std::to_string(epoch) + "); try a lower --lr");
    }
    std::vector<Params<float>*> rest;
    for (int s = 1; s < shards; ++s) rest.push_back(&shard_grads_[s]);
    // Sum, norm, clip and update in two passes over the parameters.
    const double norm = add_grads(shard_grads_[0], rest, o_.threads, &batch_rows_);
    const bool average = o_.ema > 0 && !pretraining_;
    opt_.step(params_, shard_grads_[0], learning_rate(step_, schedule_steps_, o_.warmup, o_.lr),
              o_.weight_decay, o_.threads, clip_scale(norm, o_.clip), average ? &avg_ : nullptr,
              std::min(o_.ema, (1.0 + step_) / (10.0 + step_)), &batch_rows_);
    for (int s = 0; s < shards; ++s) {
      for (int32_t id : batch_rows_) shard_grads_[s].embed.row(id).setZero();
    }
    totals.update_seconds += seconds_since(u0);
    totals.loss_sum += loss * B;
    ++step_;
  }

  // The epoch judged on the validation data: the report, and the best weights kept.
  bool judge(int epoch, EpochTotals& t, Clock::time_point e0, Clock::time_point t0,
             TrainResult& result) {
    const auto c0 = Clock::now();
    opt_.catch_up(params_, o_.ema > 0 ? &avg_ : nullptr, nullptr, o_.threads);  // every row
    t.update_seconds += seconds_since(c0);
    const Params<float>& judged = o_.ema > 0 ? avg_ : params_;
    const auto v0 = Clock::now();
    Eval ev = evaluate(judged, cfg_, positions_, d_.valid_ids, d_.valid_y, o_.threads);
    EpochReport r;
    r.epoch = epoch;
    r.epochs = o_.epochs;
    r.valid_seconds = seconds_since(v0);
    r.steps_seconds = t.steps_seconds;
    r.shards_busy_seconds = t.busy_seconds;
    r.update_seconds = t.update_seconds;
    r.threads_used = std::min(o_.threads > 0 ? o_.threads : hardware_threads(), max_shards_);
    r.train_loss = t.loss_sum / n_;
    r.train_accuracy = static_cast<double>(t.correct) / n_;
    r.valid_loss = ev.loss;
    r.valid_accuracy = ev.accuracy;
    r.examples_per_second = n_ / std::max(1e-9, seconds_since(e0));
    r.elapsed = seconds_since(t0);
    r.member = member_;
    r.members = members_;
    const int done = epochs_before_ + epoch, all = o_.epochs * members_;
    // The labelled epochs' pace, and the pretraining of the members still to come as long as
    // this member's took.
    const double labelled = r.elapsed - pretrained_before_ - pretrain_seconds_;
    r.eta = labelled / done * (all - done) + pretrain_seconds_ * (members_ - member_);
    // Best = higher validation accuracy; on a tie, lower validation loss.
    r.best = ev.accuracy > best_eval_.accuracy ||
             (ev.accuracy == best_eval_.accuracy && ev.loss < best_eval_.loss);
    if (r.best) {
      best_ = judged;
      best_eval_ = std::move(ev);
      result.best_epoch = epoch;
      since_best_ = 0;
    } else {
      ++since_best_;
    }
    result.epochs_run = epoch;
    if (hooks_.on_epoch) hooks_.on_epoch(r);
    if (stopped()) {
      spdlog::info("early stop: no better validation accuracy for {} epochs", o_.patience);
      return false;
    }
    return true;
  }

  const int member_, members_, epochs_before_;
  const double pretrained_before_;
  const Prepared& d_;
  const TrainOptions& o_;
  const TrainHooks& hooks_;
  const Config& cfg_;
  Params<float> params_;
  AdamW<float> opt_;
  const Mat<float> positions_;
  const int n_, steps_per_epoch_;
  const int64_t total_steps_;
  int64_t schedule_steps_;  // the steps the learning rate's schedule spans: total_steps_, or
                            // pretraining's while it runs
  bool pretraining_ = false;
  double pretrain_seconds_ = 0;   // what pretrain() took: not part of the labelled epochs' pace
  const int shard_, max_shards_;  // examples per shard (shard_size), shards per full batch
  std::vector<Params<float>> shard_grads_;
  std::vector<ForwardCache<float>> caches_;
  std::vector<double> shard_loss_;
  std::vector<int> shard_correct_;
  std::vector<int> shard_masked_;
  std::vector<double> shard_busy_;
  std::vector<Mat<float>> shard_dlogits_;
  // The embedding rows a step's batch touches (its tokens, and [UNK] for word dropout): the
  // only rows of the table where its gradients are not zero.
  std::vector<char> in_batch_;
  std::vector<int32_t> batch_rows_;
  Params<float> avg_;
  Params<float> best_;
  Eval best_eval_;
  int since_best_ = 0;
  int64_t step_ = 0;
};

// The out-of-scope label's index among the model's labels; -1 when there is none or the model
// does not learn it (its examples are then only in the validation data).
int out_of_scope_index(const Prepared& d, const TrainOptions& o) {
  if (o.out_of_scope.empty()) return -1;
  const auto it = std::find(d.labels.begin(), d.labels.end(), o.out_of_scope);
  return it == d.labels.end() ? -1 : static_cast<int>(it - d.labels.begin());
}

// The rejection rule of --out-of-scope, learned on the validation data at the chosen temperature:
// `valid_logits` are `model`'s on the validation examples with a training label. A
// model that learned the out-of-scope label scores by the probability of being in scope, any
// other by its confidence (Rejection::Score).
void learn_rejection(const Prepared& d, const Model& model, const Mat<float>& valid_logits,
                     const TrainOptions& o, TrainResult& result) {
  const int oos = out_of_scope_index(d, o);
  const double T = result.temperature;
  std::vector<std::pair<double, bool>> in_scope, out_of_scope;
  std::vector<double> conf;
  std::vector<bool> right;
  confidences(valid_logits, d.valid_y, T, conf, right);
  if (oos >= 0) conf = in_scope_probabilities(valid_logits, oos, T);
  for (size_t i = 0; i < conf.size(); ++i) {
    (d.valid_y[i] == oos ? out_of_scope : in_scope).emplace_back(conf[i], right[i]);
  }
  if (!d.valid_out_ids.empty()) {
    const Mat<float> logits = model.infer(d.valid_out_ids, o.threads);
    confidences(logits, std::vector<int>(d.valid_out_ids.size(), -1), T, conf, right);
    for (double c : conf) out_of_scope.emplace_back(c, false);  // no label to be caught by
  }
  const double below = choose_rejection(in_scope, out_of_scope);
  result.rejection = Rejection{
      below, o.out_of_scope, oos >= 0 ? Rejection::Score::kInScope : Rejection::Score::kConfidence};
  double kept_right = 0, caught = 0, right_without = 0;
  for (const auto& [c, r] : in_scope) kept_right += r && c >= below, right_without += r;
  result.in_scope_accuracy_without = right_without / std::max<size_t>(1, in_scope.size());
  for (const auto& [c, k] : out_of_scope) caught += k || c < below;
  result.reject_in_scope_accuracy = kept_right / std::max<size_t>(1, in_scope.size());
  result.reject_recall =
      out_of_scope.empty() ? -1 : caught / static_cast<double>(out_of_scope.size());
}

// --time-budget: what fits in what is left of it since `t0`, from a probe's cost of an epoch
// (kProbeSteps steps of the first epoch and a validation pass, on a run of its own). With
// `ensemble` 0, as many whole runs of `epochs` as fit, from 1 to kBudgetMembers; then (or with
// --ensemble given) as many epochs per member as fit, at least 1, at most `epochs`.
constexpr int kProbeSteps = 20;
void plan_budget(const Prepared& d, TrainOptions& o, Clock::time_point t0) {
  static const TrainHooks kNoHooks;
  Training probe(d, o, kNoHooks);
  const double per_epoch = probe.epoch_seconds(kProbeSteps);
  const double left = o.time_budget - seconds_since(t0);
  if (o.ensemble == 0) {
    const int runs = static_cast<int>(left / (per_epoch * o.epochs));
    o.ensemble = o.checkpoint.empty() ? std::clamp(runs, 1, kBudgetMembers) : 1;
  }
  o.epochs = std::clamp(static_cast<int>(left / (per_epoch * o.ensemble)), 1, o.epochs);
  spdlog::info("time budget {:.0f}s: an epoch takes about {:.1f}s here, so {}{} epochs",
               o.time_budget, per_epoch,
               o.ensemble > 1 ? fmt::format("{} members of ", o.ensemble) : "", o.epochs);
}

// --ensemble 0 with no --time-budget: kOutOfScopeMembers when the model learns the out-of-scope
// label from training examples, else one. A checkpoint keeps one run's state, so with
// --checkpoint or --resume it is one.
int default_members(const Prepared& d, const TrainOptions& o) {
  if (out_of_scope_index(d, o) < 0) return 1;
  if (!o.checkpoint.empty() || !o.resume.empty()) {
    spdlog::info(
        "one model: a checkpoint keeps one run's state ({} members would tell '{}' "
        "apart better)",
        kOutOfScopeMembers, o.out_of_scope);
    return 1;
  }
  spdlog::info(
      "'{}' in the training data: {} members, which tell it apart better than one "
      "(--ensemble 1 for one, in half the time)",
      o.out_of_scope, kOutOfScopeMembers);
  return kOutOfScopeMembers;
}

// What a checkpoint must match to be resumed: the recipe, the teachers' probabilities and every
// example, in order.
std::string run_fingerprint(const std::vector<Example>& train, const std::vector<Example>& valid,
                            const TrainOptions& o, const Mat<double>& teacher) {
  Sha256 h;
  h.update(options_json(o).dump());
  h.update(std::string_view(reinterpret_cast<const char*>(teacher.data()),
                            sizeof(double) * static_cast<size_t>(teacher.size())));
  for (const auto* set : {&train, &valid}) {
    h.update("\n--\n");
    for (const Example& e : *set) {
      h.update(e.label);
      h.update(std::string_view("\0", 1));
      h.update(e.text);
      h.update("\n");
    }
  }
  return h.hex_digest();
}

}  // namespace

std::string out_of_scope_by_name(const std::vector<Example>& train,
                                 const std::vector<Example>& valid) {
  static const std::set<std::string> kNames = {"oos", "out_of_scope", "out-of-scope"};
  for (const auto* set : {&train, &valid}) {
    for (const auto& e : *set) {
      std::string name = e.label;
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (kNames.count(name)) return e.label;
    }
  }
  return "";
}

TrainOptions fast_options() {
  TrainOptions o;
  o.config.d_model = 64, o.config.n_heads = 4, o.config.d_ff = 256;
  o.epochs = 20, o.batch_size = 32, o.patience = 5;
  o.dropout = 0.1, o.token_dropout = 0, o.bpe_dropout = 0, o.ema = 0;
  return o;
}

int default_epochs(size_t examples, int batch_size) {
  const int64_t steps = (static_cast<int64_t>(examples) + batch_size - 1) / batch_size;
  const int64_t epochs = (kDefaultSteps + steps - 1) / std::max<int64_t>(1, steps);
  return static_cast<int>(std::clamp<int64_t>(epochs, 1, kDefaultEpochs));
}

Model train_model(const std::vector<Example>& train, const std::vector<Example>& valid,
                  const TrainOptions& given, const TrainHooks& hooks, TrainResult& result,
                  const Teaching* teaching) {
  const auto t0 = Clock::now();
  check_options(given);
  TrainOptions o = given;  // what the data and the time decide is filled in here
  if (o.epochs == 0) o.epochs = default_epochs(train.size(), o.batch_size);
  Prepared d = prepare(train, valid, o, teaching);
  if (o.time_budget > 0) {
    const int epochs = o.epochs;
    plan_budget(d, o, t0);
    result.budget_shortened = o.epochs < epochs;
  }
  if (o.ensemble == 0) o.ensemble = default_members(d, o);
  result.options = o;
  const std::string fingerprint =
      o.checkpoint.empty() && o.resume.empty() ? "" : run_fingerprint(train, valid, o, d.teacher);
  std::vector<Params<float>> members;
  Eval best;
  double pretrained = 0;  // seconds the members so far spent pretraining
  for (int m = 0; m < o.ensemble; ++m) {
    TrainOptions member = o;
    member.seed = o.seed + static_cast<uint64_t>(m);
    Training run(d, member, hooks, m + 1, o.ensemble, m * o.epochs, pretrained);
    // A resumed run's checkpoint holds the weights pretraining led to.
    if (o.pretrain_epochs > 0 && o.resume.empty()) run.pretrain(o.pretrain_epochs);
    pretrained += run.pretrain_seconds();
    const int done = o.resume.empty() ? 0 : run.restore(o.resume, fingerprint, result);
    for (int epoch = done + 1; epoch <= o.epochs && !run.stopped(); ++epoch) {
      const bool go_on = run.epoch(epoch, t0, result);
      if (!o.checkpoint.empty() && !result.interrupted) {
        run.save(o.checkpoint, epoch, fingerprint, result);
      }
      if (!go_on) break;
    }
    // A member cut short by Ctrl-C would weaken the ensemble: only the first is kept so.
    if (run.best_eval().accuracy < 0 || (result.interrupted && m > 0)) break;
    result.members.push_back({member.seed, result.best_epoch, run.best_eval().accuracy});
    members.push_back(std::move(run.best()));
    if (m == 0) best = run.best_eval();
    result.interrupted_first_member = result.interrupted;
    if (result.interrupted) break;
  }
  if (members.empty()) throw InterruptedError();         // not one epoch finished: nothing to keep
  result.best_epoch = result.members.back().best_epoch;  // not that of a member left out
  const size_t n_members = members.size();
  Model model(d.cfg, d.labels, std::move(d.tok), std::move(members.front()));
  for (size_t m = 1; m < n_members; ++m) model.add_member(std::move(members[m]));
  if (n_members > 1) {
    best = judge_logits(model.infer(d.valid_ids, o.threads), d.valid_y);
  } else {
    result.members.clear();  // one model: its numbers are the result's own
  }
  result.valid_accuracy = best.accuracy;
  result.valid_loss = best.loss;
  std::vector<double> conf;
  std::vector<bool> right;
  confidences(best.logits, d.valid_y, 1.0, conf, right);
  result.ece_before = expected_calibration_error(conf, right);
  result.calibration = choose_temperature(best.logits, d.valid_y);
  result.temperature = result.calibration.temperature;
  confidences(best.logits, d.valid_y, result.temperature, conf, right);
  result.ece_after = expected_calibration_error(conf, right);
  model.set_temperature(result.temperature);
  if (!o.out_of_scope.empty()) learn_rejection(d, model, best.logits, o, result);
  result.seconds = seconds_since(t0);
  model.set_rejection(result.rejection);
  return model;
}

nlohmann::json options_json(const TrainOptions& o) {
  nlohmann::json j = config_json(o.config);
  j.update({{"local_heads", o.local_heads},
            {"vocab_size", o.config.vocab_size},
            {"epochs", o.epochs},
            {"batch_size", o.batch_size},
            {"lr", o.lr},
            {"weight_decay", o.weight_decay},
            {"dropout", o.dropout},
            {"token_dropout", o.token_dropout},
            {"bpe_dropout", o.bpe_dropout},
            {"label_smoothing", o.label_smoothing},
            {"ema", o.ema},
            {"warmup", o.warmup},
            {"patience", o.patience},
            {"clip", o.clip},
            {"seed", o.seed}});
  if (!o.out_of_scope.empty()) j["out_of_scope"] = o.out_of_scope;
  // With "none of these" even one member is recorded: no flag may mean two (default_members).
  if (o.ensemble > 1 || !o.out_of_scope.empty()) j["ensemble"] = o.ensemble;
  if (o.pretrain_epochs > 0) j["pretrain_epochs"] = o.pretrain_epochs;
  if (o.pair_batches) j["pair_batches"] = true;
  if (!o.teachers.empty())
    j.update({{"teachers", o.teachers}, {"teacher_weight", o.teacher_weight}});
  return j;
}

}  // namespace router
