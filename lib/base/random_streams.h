// Every random stream that initialisation, training and the permutation test draw from, one
// function each: the seed of each Rng is named here and nowhere else, so no two streams share one
// by accident and a reader sees at once what a model's bits depend on. The values are fixed:
// changing one changes every model trained from then on (docs/architecture.md, "Training").
#pragma once

#include <cstdint>

#include "base/rng.h"

namespace router::streams {

// The initial weights (nn/params.cc).
inline uint64_t init(uint64_t seed) { return mix64(seed); }
// Which examples `train` holds out for validation when no --valid is given.
inline uint64_t holdout(uint64_t seed) { return mix64(seed ^ 0x5eed); }
// The order of an epoch's batches.
inline uint64_t shuffle(uint64_t seed, int epoch) {
  return mix64(seed * 0x100000001b3ULL + static_cast<uint64_t>(epoch));
}
// An epoch's BPE-dropout segmentation (SentencePiece takes a 32-bit seed).
inline uint32_t bpe_dropout(uint64_t seed, int epoch) {
  return static_cast<uint32_t>(mix64(seed ^ mix64(epoch + 0xb9eULL)));
}
// One example at one step: the key its dropout masks and word dropout are drawn from, whatever
// shard or thread runs it.
inline uint64_t example(uint64_t seed, int64_t step, int example_index) {
  return mix64(seed ^ mix64(static_cast<uint64_t>(step) * 0x9e3779b97f4a7c15ULL +
                            static_cast<uint64_t>(example_index)));
}
// The dropout mask of one example (its key) at one site of the network.
inline uint64_t dropout(uint64_t key, int site) {
  return mix64(key ^ mix64(static_cast<uint64_t>(site) + 1));
}
// Word dropout for one example (its key), apart from its dropout masks.
inline uint64_t word_dropout(uint64_t key) { return mix64(key ^ 0x746f6b656e64726fULL); }
// Masked-token pretraining: the seed its epochs' shuffles and its examples' keys are drawn
// from in place of the run's own, and, for one example (its key), which of its tokens are masked.
inline uint64_t pretraining(uint64_t seed) { return mix64(seed ^ 0x707265747261696eULL); }
inline uint64_t masking(uint64_t key) { return mix64(key ^ 0x6d61736b696e6721ULL); }
// The shuffles of `router demo`'s permutation test.
inline uint64_t permutation(uint64_t seed) { return mix64(seed); }

}  // namespace router::streams
