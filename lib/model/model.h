// A ready-to-use classifier: tokenizer + labels + weights + calibration. A loaded Model is
// read-only, so one instance serves any number of threads; each call keeps its scratch state
// on its own stack.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/config.h"
#include "nn/encoder.h"
#include "nn/params.h"
#include "text/tokenizer.h"

namespace router {

struct Prediction {
  int label = -1;            // index into Model::labels
  float confidence = 0;      // calibrated probability of `label`
  std::vector<float> probs;  // (K) calibrated probabilities, label order
  int n_tokens = 0;          // tokens the model saw (after truncation)
  bool truncated = false;    // the email had more than max_len tokens
  std::string rule;          // the mail rule that chose `other` (input/mail.h), "" if the model did
  // Less confident than the model's rejection rule: shown as Rejection::label ("none of
  // these"); `label` and `confidence` stay the model's best guess.
  bool rejected = false;
};

// "None of these": a prediction whose score is below `below` is given `label` instead, a label of
// the model (trained on out-of-scope examples) or a name of its own. Learned in training
// (--out-of-scope), kept in the model file, applied by label_emails (Model::rejects).
struct Rejection {
  // The score: the best label's probability, or, when `label` is one the model learned from
  // out-of-scope examples, the probability that the email is in scope (1 - that label's), which
  // tells out-of-scope mail apart better (docs/benchmarks.md, "None of these").
  enum class Score { kConfidence, kInScope };
  double below = 0;
  std::string label;
  Score score = Score::kConfidence;
};
// Rejection::Score as model files name it ("reject_by"): "confidence", "in_scope".
const char* to_string(Rejection::Score score);
std::optional<Rejection::Score> rejection_score_from_string(const std::string& name);
// What is wrong with `r` for a model with `labels`, if anything: `below` outside 0..1, an empty
// label, or the in-scope score with a label the model does not have. `field` is the model files'
// name of the value at fault.
struct RejectionProblem {
  const char* field;
  std::string what;
};
std::optional<RejectionProblem> rejection_problem(const Rejection& r,
                                                  const std::vector<std::string>& labels);

// The rules a model's labels and temperature obey, whichever the file format.
inline constexpr int kMaxLabels = 10000;
// At most this many members in an ensemble (Model::add_member).
inline constexpr int kMaxMembers = 8;
struct LabelProblem {
  int index;  // the label it is about, or -1 for the list as a whole
  std::string what;
};
// 2 to kMaxLabels labels, none empty, none twice; the first problem in list order, or none.
std::optional<LabelProblem> check_labels(const std::vector<std::string>& labels);
// Finite and > 0.
bool valid_temperature(double temperature);

class Model {
 public:
  Model(Config config, std::vector<std::string> labels, Tokenizer tokenizer, Params<float> params,
        double temperature = 1.0, nlohmann::json metadata = nlohmann::json::object());

  const Config& config() const { return config_; }
  const std::vector<std::string>& labels() const { return labels_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }
  // The weights. A borrowed embedding (below) is copied in on the first call. Of an ensemble,
  // the first member's.
  const Params<float>& params() const;
  // An ensemble (router train --ensemble): other members' weights, of the same architecture and
  // tokenizer. Every prediction reads the mean of the members' logits, so temperature and
  // rejection apply to the ensemble as to one model. Throws ModelError on a shape mismatch or
  // beyond kMaxMembers.
  void add_member(Params<float> params);
  int members() const { return 1 + static_cast<int>(more_.size()); }
  // Member i's weights, 0 <= i < members(); member 0 is params().
  const Params<float>& member(int i) const { return i == 0 ? params() : more_[i - 1].params; }
  // params()' weight matrices transposed, the layout predictions read (encoder_logits).
  const InferenceWeights<float>& transposed_weights() const { return weights_; }
  // Reads the embedding table, (V, D) floats, from `rows` instead of params().embed, which must
  // be empty: `rows` outlives the model (the built-in model inside the binary), so start-up
  // touches only the rows an email uses.
  void borrow_embedding(const float* rows);
  // The sinusoid table, (max_len, D), with at least its first `rows` rows filled in: rows are
  // computed on first need (a short email needs a few; the whole table costs more than
  // classifying it). Safe to call from many threads.
  const Mat<float>& positions(int rows) const;
  const Mat<float>& positions() const { return positions(config_.max_len); }
  double temperature() const { return temperature_; }
  void set_temperature(double t) { temperature_ = t; }
  const std::optional<Rejection>& rejection() const { return rejection_; }
  // Throws ModelError for a rule rejection_problem finds fault with (the readers check first, to
  // name the file and field), so that a model never holds one.
  void set_rejection(std::optional<Rejection> r);
  // True when the rejection rule sets `p` aside: its score is below the rule's threshold.
  bool rejects(const Prediction& p) const;
  // The label a prediction is shown with: the rejection label when it was rejected.
  const std::string& label_of(const Prediction& p) const {
    return p.rejected ? rejection_->label : labels_[p.label];
  }
  const nlohmann::json& metadata() const { return metadata_; }
  nlohmann::json& mutable_metadata() { return metadata_; }

  // Token ids of one email, cut to the first max_len tokens. Throws InputError if the email has
  // no tokens at all (empty or white space only).
  std::vector<int32_t> encode(std::string_view text, bool* truncated = nullptr) const;

  // One email -> prediction: encode() then predict_encoded() on it alone.
  Prediction predict(std::string_view text) const;
  // Already-encoded emails (each 1..max_len ids, from encode()) -> raw logits (B, K), uncalibrated,
  // in one forward pass.
  Mat<float> logits(const std::vector<const std::vector<int32_t>*>& sequences) const;
  // Already-encoded emails (each 1..max_len ids) -> raw logits (n, K) in input order, on
  // `threads` threads, of an ensemble the mean of its members': what predict_encoded finishes,
  // and what training calibrates on. Rows depend neither on the others nor on `threads`.
  Mat<float> infer(const std::vector<std::vector<int32_t>>& ids, int threads) const;
  // Already-encoded emails -> predictions in input order, on `threads` threads: the forward pass
  // of every prediction (model/labelling.h). Emails of similar length share a pass; an email's
  // result depends neither on the others nor on `threads`. n_tokens is set, truncated is not.
  std::vector<Prediction> predict_encoded(const std::vector<std::vector<int32_t>>& ids,
                                          int threads) const;
  // Calibrated probabilities from raw logits.
  Prediction finish(const Eigen::Ref<const RowVec<float>>& logits) const;

 private:
  Config config_;
  std::vector<std::string> labels_;
  Tokenizer tokenizer_;
  const float* embed_rows() const {
    return borrowed_embed_ ? borrowed_embed_ : params_.embed.data();
  }
  // The mean over the members of `run(params, weights, embed_rows)`, logits (n, K): what every
  // prediction of an ensemble reads, whichever forward pass computes it.
  template <class Run>
  Mat<float> member_mean(const Run& run) const {
    Mat<float> sum = run(params_, weights_, embed_rows());
    for (const Member& m : more_) sum += run(m.params, m.weights, nullptr);
    if (!more_.empty()) sum /= static_cast<float>(members());
    return sum;
  }

  mutable Params<float> params_;     // mutable: params() may copy a borrowed embedding in
  InferenceWeights<float> weights_;  // inference_weights(params_): the weights never change
  struct Member {
    Params<float> params;
    InferenceWeights<float> weights;
  };
  std::vector<Member> more_;  // the ensemble's members after the first
  const float* borrowed_embed_ = nullptr;
  std::unique_ptr<std::once_flag> embed_copied_ = std::make_unique<std::once_flag>();
  struct Positions {
    std::mutex grow;
    std::atomic<int> rows{0};  // rows of `table` filled in
    Mat<float> table;          // (max_len, D)
  };
  std::unique_ptr<Positions> positions_ = std::make_unique<Positions>();
  double temperature_;
  std::optional<Rejection> rejection_;
  size_t reject_index_ = 0;  // of rejection_->label among labels_, for the in-scope score
  nlohmann::json metadata_;
};

}  // namespace router
