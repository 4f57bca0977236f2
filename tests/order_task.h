// A small task that a bag of words cannot solve, for training tests: which of "refund" and
// "replace" comes first among random filler words. Deterministic in (n, seed).
#pragma once

#include <string>
#include <vector>

#include "base/rng.h"
#include "input/dataset.h"
#include "train/trainer.h"

namespace router::test {

inline std::vector<Example> order_task(int n, uint64_t seed) {
  static const char* kWords[] = {"please", "my",   "order", "the",    "cake",  "today",
                                 "was",    "late", "hello", "thanks", "rider", "box",
                                 "sweet",  "call", "now",   "soon"};
  Rng rng(seed);
  std::vector<Example> out;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> words;
    for (int k = 0; k < 6; ++k) words.push_back(kWords[rng.below(16)]);
    const bool refund_first = rng.below(2) == 0;
    const size_t a = rng.below(words.size() + 1);
    words.insert(words.begin() + a, refund_first ? "refund" : "replace");
    const size_t b = a + 1 + rng.below(words.size() - a);
    words.insert(words.begin() + b, refund_first ? "replace" : "refund");
    Example e;
    for (const auto& w : words) e.text += (e.text.empty() ? "" : " ") + w;
    e.label = refund_first ? "refund_first" : "replace_first";
    e.where = "order_task:" + std::to_string(i + 1);
    out.push_back(std::move(e));
  }
  return out;
}

// A tiny model that learns the order task in a few seconds on `threads` threads (0: all cores).
inline TrainOptions order_task_options(int threads) {
  TrainOptions o = fast_options();
  o.config.d_model = 16, o.config.n_heads = 2, o.config.n_layers = 1, o.config.d_ff = 32;
  o.config.max_len = 64, o.config.vocab_size = 400;
  o.epochs = 12, o.batch_size = 16, o.lr = 1e-2, o.dropout = 0.1;
  o.patience = 12, o.seed = 3, o.threads = threads;
  return o;
}

}  // namespace router::test
