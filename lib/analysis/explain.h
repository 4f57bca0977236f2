// Why the model labelled an email the way it did: the tokens it saw, every layer's and head's
// attention map, the strongest links of each head, the heads that matter (each switched off in
// turn), and a per-token importance score (gradient x input). Dropout off. Legend: T tokens, D
// d_model, H heads, L layers, K labels.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace router {

// What one attention head does to the prediction: the email read again with that head switched
// off (its slice of the heads' concatenated output zeroed before the output projection).
struct HeadEffect {
  int layer = 0, head = 0;  // numbered from 0
  float without = 0;        // the predicted label's probability without this head
  int label_without = -1;   // the label predicted without it
};

struct Explanation {
  std::vector<std::string> tokens;  // (T) subword pieces as the model sees them
  std::vector<int32_t> ids;         // (T)
  bool truncated = false;           // the email had more than max_len tokens
  Prediction prediction;
  // attention[l][h]: (T, T); row i is how query token i spreads its attention over keys j. Of an
  // ensemble, the first member's, as are `heads`; the importance is the ensemble's (the mean of
  // the members').
  std::vector<std::vector<Mat<float>>> attention;
  std::vector<double> raw_importance;  // (T) (d logit_c / d x0_t) . x0_t, c the predicted label
  std::vector<double> importance;      // (T) raw / sum |raw|, so |importance| sums to 1
  std::vector<HeadEffect> heads;       // (L*H) head_effects for the predicted label
  int members = 1;                     // of the model: above 1, an ensemble (see `attention`)
};

// What one word does to the prediction: the email without it, read again.
struct WordEffect {
  std::string word;        // as written in the email (split on white space)
  size_t index = 0;        // its place among the email's words, from 0
  float without = 0;       // the predicted label's probability without this word
  int label_without = -1;  // the label predicted without it
};

// Leave-one-word-out for the label `label` of `text`: each word removed in turn, the rest read by
// the model. Sorted by how far the label's probability falls, most first (ties: earlier word
// first). A word-level view a reader can check directly ("without 'cake', refund_item falls from
// 0.97 to 0.12"). One forward pass per word. An email of one word gives no effects.
std::vector<WordEffect> word_effects(const Model& model, std::string_view text, int label);

// Every head switched off in turn for the label `label` of the encoded email `ids`, sorted by
// how far the label's probability falls, most first (ties: lower layer, then lower head first).
// One forward pass per head. Of an ensemble, the first member's heads, the others unchanged.
std::vector<HeadEffect> head_effects(const Model& model, const std::vector<int32_t>& ids,
                                     int label);

// How a probability moved, to 4 decimals: "falls from 0.9671 to 0.4755", "rises from ... to
// ...", or "stays at 0.9671" when both round to the same number.
std::string change_words(float from, float to);

// One email -> explanation. Throws InputError for an empty email and UsageError when the model
// has no attention layer (n_layers 0).
Explanation explain(const Model& model, std::string_view text);

// Gradient x input of logit `label` for one encoded email, in S precision:
// ids: (T) -> (T) values (d logit / d x0_t) . x0_t, where x0 = E[ids] + positions.
// Repeated ids get separate scores (each position has its own x0 row).
template <typename S>
std::vector<double> gradient_x_input(const Params<S>& params, const Config& config,
                                     const Mat<S>& positions, const std::vector<int32_t>& ids,
                                     int label);

// The same model, with an embedding table of one row per position of `ids` (row t + 1 holds
// E[ids[t]]; row 0 is unused), and the ids (1 .. T) that select those rows. Running it gives the
// same logits as the original; its embedding gradient is the gradient w.r.t. each x0 row.
template <typename S>
Params<S> unrolled_params(const Params<S>& params, const std::vector<int32_t>& ids, Config& config,
                          std::vector<int32_t>& unrolled_ids);

struct Link {
  int from = 0, to = 0;  // query token -> key token
  float weight = 0;
};

// The k heaviest off-diagonal entries of an attention map (T, T), heaviest first (ties: lower
// row, then lower column first). Self links are left out: they say little about word pairs.
std::vector<Link> top_links(const Mat<float>& attention, int k);

// Mean over query rows of the row entropy, in nats; 0 = every token looks at one token,
// log(T) = uniform attention.
double mean_entropy(const Mat<float>& attention);

// A token for display: SentencePiece's word-start mark U+2581 dropped ("▁cake" -> "cake");
// a piece that is only the mark stays as is.
std::string display_token(const std::string& piece);

}  // namespace router
