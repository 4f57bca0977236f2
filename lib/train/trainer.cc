#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "base/parallel.h"
#include "base/random_streams.h"
#include "base/rng.h"
#include "base/signals.h"
#include "nn/encoder.h"
#include "nn/positional.h"
#include "train/calibration.h"
#include "train/optimizer.h"

namespace router {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
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

// Batches of one epoch: shuffle, sort windows of 16 batches by length (less padding), then
// shuffle the batches themselves.
std::vector<std::vector<int>> epoch_batches(const std::vector<std::vector<int32_t>>& ids,
                                            int batch_size, Rng& rng) {
  std::vector<int> order(ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  shuffle(order, rng);
  const size_t window = static_cast<size_t>(batch_size) * 16;
  for (size_t lo = 0; lo < order.size(); lo += window) {
    const auto hi = order.begin() + std::min(order.size(), lo + window);
    std::stable_sort(order.begin() + lo, hi,
                     [&](int a, int b) { return ids[a].size() < ids[b].size(); });
  }
  std::vector<std::vector<int>> batches;
  for (size_t lo = 0; lo < order.size(); lo += batch_size) {
    batches.emplace_back(order.begin() + lo,
                         order.begin() + std::min(order.size(), lo + batch_size));
  }
  shuffle(batches, rng);
  return batches;
}

struct Eval {
  double loss = 0, accuracy = 0;
  Mat<float> logits;
};

Eval evaluate(const Params<float>& params, const Config& cfg, const Mat<float>& positions,
              const std::vector<std::vector<int32_t>>& ids, const std::vector<int>& targets,
              int threads) {
  Eval e;
  e.logits = infer_logits(params, inference_weights(params), cfg, positions, ids, threads);
  std::vector<double> conf;
  std::vector<bool> correct;
  confidences(e.logits, targets, 1.0, conf, correct);
  e.loss = nll_at_temperature(e.logits, targets, 1.0);
  e.accuracy = static_cast<double>(std::count(correct.begin(), correct.end(), true)) /
               std::max<size_t>(1, correct.size());
  return e;
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

Model train_model(const std::vector<Example>& train, const std::vector<Example>& valid,
                  const TrainOptions& o, const TrainHooks& hooks, TrainResult& result) {
  const auto t0 = Clock::now();
  // Checked before the tokenizer is trained, so a bad value fails at once.
  const int first_layer_heads = o.n_layers > 0 ? o.n_heads : 0;
  if (o.local_heads < 0 || o.local_heads > first_layer_heads) {
    throw UsageError("--local-heads " + std::to_string(o.local_heads) + ": the first layer has " +
                     std::to_string(first_layer_heads) + " heads");
  }
  if (o.local_heads > 0 && o.d_model / o.n_heads < 2) {
    throw UsageError("--local-heads: heads must be at least 2 wide (--d-model / --heads)");
  }
  const std::vector<std::string> labels = choose_labels(train, o);
  std::map<std::string, int> index;
  for (size_t i = 0; i < labels.size(); ++i) index[labels[i]] = static_cast<int>(i);
  for (const auto& e : valid) {
    if (!index.count(e.label)) {
      throw InputError(e.where + ": label '" + e.label + "' does not occur in the training data");
    }
  }
  if (valid.empty()) throw InputError("no validation examples");

  std::vector<std::string> texts;
  for (const auto& e : train) texts.push_back(e.text);
  Tokenizer tok = Tokenizer::train(texts, o.vocab_size);
  spdlog::info("vocabulary: {} pieces", tok.vocab_size());

  Config cfg;
  cfg.d_model = o.d_model;
  cfg.n_heads = o.n_heads;
  cfg.n_layers = o.n_layers;
  cfg.d_ff = o.d_ff;
  cfg.max_len = o.max_len;
  cfg.positional = o.positional;
  cfg.pooling = o.pooling;
  cfg.vocab_size = tok.vocab_size();
  cfg.num_labels = static_cast<int>(labels.size());
  try {
    validate(cfg, "options");
  } catch (const ModelError& e) {
    throw UsageError(e.what());
  }

  const auto train_ids = encode_all(tok, train, cfg.max_len, o.threads);
  const auto valid_ids = encode_all(tok, valid, cfg.max_len, o.threads);
  std::vector<std::string_view> train_texts;
  if (o.bpe_dropout > 0) {
    for (const auto& e : train) train_texts.emplace_back(e.text);
  }
  std::vector<int> train_y, valid_y;
  for (const auto& e : train) train_y.push_back(index[e.label]);
  for (const auto& e : valid) valid_y.push_back(index[e.label]);

  Params<float> params = init_params<float>(cfg, o.seed);
  init_local_heads(params, cfg, o.local_heads);
  AdamW<float> opt(cfg);
  const Mat<float> positions = sinusoid_table(cfg.max_len, cfg.d_model).cast<float>();
  const int n = static_cast<int>(train.size());
  const int steps_per_epoch = (n + o.batch_size - 1) / o.batch_size;
  const int64_t total_steps = static_cast<int64_t>(steps_per_epoch) * o.epochs;
  const int max_shards = (o.batch_size + kShard - 1) / kShard;
  std::vector<Params<float>> shard_grads;
  for (int s = 0; s < max_shards; ++s) shard_grads.push_back(zeros_like_config<float>(cfg));
  std::vector<ForwardCache<float>> caches(max_shards);
  std::vector<double> shard_loss(max_shards);
  std::vector<int> shard_correct(max_shards);
  std::vector<double> shard_busy(max_shards);
  std::vector<Mat<float>> shard_dlogits(max_shards);
  // The embedding rows a step's batch touches (its tokens, and [UNK] for word dropout): the
  // only rows of the table where its gradients are not zero.
  std::vector<char> in_batch(cfg.vocab_size, 0);
  std::vector<int32_t> batch_rows;

  // With ema, an exponential moving average of the weights is what validation judges and what
  // is kept. Its decay ramps up over the first steps, so early epochs are not stuck at the start.
  Params<float> avg;
  if (o.ema > 0) avg = params;
  Params<float> best = params;
  Eval best_eval;
  best_eval.accuracy = -1;
  int since_best = 0;
  int64_t step = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto e0 = Clock::now();
    Rng rng(streams::shuffle(o.seed, epoch));
    // With BPE-dropout, the training texts are segmented anew each epoch.
    std::vector<std::vector<int32_t>> sampled;
    if (o.bpe_dropout > 0) {
      sampled = tok.encode_sampled(train_texts, o.bpe_dropout, streams::bpe_dropout(o.seed, epoch));
      for (auto& ids : sampled) {
        if (static_cast<int>(ids.size()) > cfg.max_len) ids.resize(cfg.max_len);
      }
    }
    const auto& epoch_ids = o.bpe_dropout > 0 ? sampled : train_ids;
    const auto batches = epoch_batches(epoch_ids, o.batch_size, rng);
    double loss_sum = 0;
    int correct = 0;
    double steps_seconds = 0, busy_seconds = 0, update_seconds = 0;
    for (size_t bi = 0; bi < batches.size(); ++bi) {
      if (interrupted()) break;  // Ctrl-C: the step in progress is finished; no new one
      const auto& members = batches[bi];
      const int B = static_cast<int>(members.size());
      const int shards = (B + kShard - 1) / kShard;
      if (o.token_dropout > 0) in_batch[kUnkId] = 1;
      for (int j : members) {
        for (int32_t id : epoch_ids[j]) in_batch[id] = 1;
      }
      batch_rows.clear();
      for (int32_t id = 0; id < cfg.vocab_size; ++id) {
        if (in_batch[id]) batch_rows.push_back(id), in_batch[id] = 0;
      }
      // The optimizer puts off the other rows' updates; the ones this batch reads catch up.
      const auto c0 = Clock::now();
      opt.catch_up(params, o.ema > 0 ? &avg : nullptr, &batch_rows, o.threads);
      update_seconds += seconds_since(c0);
      const auto s0 = Clock::now();
      // A shard's weight-gradient products go to a queue, so the thread of a shorter shard
      // (each batch is sorted by length) helps the longer one's instead of waiting for it.
      WorkQueue products(shards);
      const Later later = [&products](std::function<void()> task) {
        products.push(std::move(task));
      };
      parallel_for(shards, o.threads, [&](int s) {
        const auto b0 = Clock::now();
        {
          const Producing producing(products);
          std::vector<const std::vector<int32_t>*> seqs;
          std::vector<int> targets;
          std::vector<uint64_t> keys;
          for (int j = s * kShard; j < std::min(B, (s + 1) * kShard); ++j) {
            seqs.push_back(&epoch_ids[members[j]]);
            targets.push_back(train_y[members[j]]);
            // Dropout stream of this example at this step: independent of shards and threads.
            keys.push_back(streams::example(o.seed, step, members[j]));
          }
          Batch batch = make_batch(seqs);
          batch.targets = targets;
          batch.keys = keys;
          if (o.token_dropout > 0) drop_tokens(batch, o.token_dropout);
          auto& cache = caches[s];
          encoder_forward(params, cfg, positions, batch, o.dropout, cache);
          Mat<float>& dlogits = shard_dlogits[s];  // read by the queued products
          const double loss = softmax_xent(cache.logits, targets, o.label_smoothing, dlogits);
          // The shard's mean loss -> its share of the batch mean.
          const double share = static_cast<double>(batch.B) / B;
          dlogits *= static_cast<float>(share);
          shard_loss[s] = loss * share;
          int right = 0;
          for (int b = 0; b < batch.B; ++b) {
            Eigen::Index arg;
            cache.logits.row(b).maxCoeff(&arg);
            right += arg == targets[b];
          }
          shard_correct[s] = right;
          set_zero_except_embedding(shard_grads[s]);  // its rows are cleared after each step
          encoder_backward(params, cfg, batch, o.dropout, cache, dlogits, shard_grads[s], &later);
        }
        const double own = seconds_since(b0);
        shard_busy[s] = own + products.help();
      });
      steps_seconds += seconds_since(s0);
      const auto u0 = Clock::now();
      double loss = 0;
      for (int s = 0; s < shards; ++s) {
        loss += shard_loss[s], correct += shard_correct[s], busy_seconds += shard_busy[s];
      }
      if (!std::isfinite(loss)) {
        throw Error(ExitCode::kFailure, "training diverged: the loss is " + std::to_string(loss) +
                                            " at step " + std::to_string(step + 1) + " (epoch " +
                                            std::to_string(epoch) + "); try a lower --lr");
      }
      std::vector<Params<float>*> rest;
      for (int s = 1; s < shards; ++s) rest.push_back(&shard_grads[s]);
      // Sum, norm, clip and update in two passes over the parameters.
      const double norm = add_grads(shard_grads[0], rest, o.threads, &batch_rows);
      opt.step(params, shard_grads[0], learning_rate(step, total_steps, o.warmup, o.lr),
               o.weight_decay, o.threads, clip_scale(norm, o.clip), o.ema > 0 ? &avg : nullptr,
               std::min(o.ema, (1.0 + step) / (10.0 + step)), &batch_rows);
      for (int s = 0; s < shards; ++s) {
        for (int32_t id : batch_rows) shard_grads[s].embed.row(id).setZero();
      }
      update_seconds += seconds_since(u0);
      loss_sum += loss * B;
      ++step;
      if (hooks.on_step) hooks.on_step(static_cast<int>(bi) + 1, steps_per_epoch);
    }
    if (interrupted()) {  // the best model of the epochs finished so far is kept
      result.interrupted = true;
      spdlog::warn("interrupted in epoch {}: keeping the best model so far", epoch);
      break;
    }
    const auto c0 = Clock::now();
    opt.catch_up(params, o.ema > 0 ? &avg : nullptr, nullptr, o.threads);  // every row
    update_seconds += seconds_since(c0);
    const Params<float>& judged = o.ema > 0 ? avg : params;
    const auto v0 = Clock::now();
    Eval ev = evaluate(judged, cfg, positions, valid_ids, valid_y, o.threads);
    EpochReport r;
    r.epoch = epoch;
    r.epochs = o.epochs;
    r.valid_seconds = seconds_since(v0);
    r.steps_seconds = steps_seconds;
    r.shards_busy_seconds = busy_seconds;
    r.update_seconds = update_seconds;
    r.threads_used = std::min(o.threads > 0 ? o.threads : hardware_threads(), max_shards);
    r.train_loss = loss_sum / n;
    r.train_accuracy = static_cast<double>(correct) / n;
    r.valid_loss = ev.loss;
    r.valid_accuracy = ev.accuracy;
    r.examples_per_second = n / std::max(1e-9, seconds_since(e0));
    r.elapsed = seconds_since(t0);
    r.eta = r.elapsed / epoch * (o.epochs - epoch);
    // Best = higher validation accuracy; on a tie, lower validation loss.
    r.best = ev.accuracy > best_eval.accuracy ||
             (ev.accuracy == best_eval.accuracy && ev.loss < best_eval.loss);
    if (r.best) {
      best = judged;
      best_eval = std::move(ev);
      result.best_epoch = epoch;
      since_best = 0;
    } else {
      ++since_best;
    }
    result.epochs_run = epoch;
    if (hooks.on_epoch) hooks.on_epoch(r);
    if (since_best >= o.patience) {
      spdlog::info("early stop: no better validation accuracy for {} epochs", o.patience);
      break;
    }
  }

  if (best_eval.accuracy < 0) throw InterruptedError();  // not one epoch finished: nothing to keep
  result.valid_accuracy = best_eval.accuracy;
  result.valid_loss = best_eval.loss;
  std::vector<double> conf;
  std::vector<bool> right;
  confidences(best_eval.logits, valid_y, 1.0, conf, right);
  result.ece_before = expected_calibration_error(conf, right);
  result.calibration = choose_temperature(best_eval.logits, valid_y);
  result.temperature = result.calibration.temperature;
  confidences(best_eval.logits, valid_y, result.temperature, conf, right);
  result.ece_after = expected_calibration_error(conf, right);
  result.seconds = seconds_since(t0);
  return Model(cfg, labels, std::move(tok), std::move(best), result.temperature);
}

nlohmann::json options_json(const TrainOptions& o) {
  return {{"d_model", o.d_model},
          {"n_heads", o.n_heads},
          {"n_layers", o.n_layers},
          {"d_ff", o.d_ff},
          {"max_len", o.max_len},
          {"positional", to_string(o.positional)},
          {"pooling", to_string(o.pooling)},
          {"local_heads", o.local_heads},
          {"vocab_size", o.vocab_size},
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
          {"seed", o.seed}};
}

}  // namespace router
