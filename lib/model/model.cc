#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "base/errors.h"
#include "nn/positional.h"

namespace router {

static_assert(kPaddingId == kPadId, "the encoder pads with the tokenizer's [PAD] id");

std::optional<LabelProblem> check_labels(const std::vector<std::string>& labels) {
  if (labels.size() < 2 || labels.size() > kMaxLabels) {
    return LabelProblem{-1, "expected 2 to " + std::to_string(kMaxLabels) + " labels, got " +
                                std::to_string(labels.size())};
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].empty()) return LabelProblem{static_cast<int>(i), "empty label"};
    if (!seen.insert(labels[i]).second) {
      return LabelProblem{static_cast<int>(i), "duplicate label '" + labels[i] + "'"};
    }
  }
  return std::nullopt;
}

bool valid_temperature(double temperature) { return std::isfinite(temperature) && temperature > 0; }

const char* to_string(Rejection::Score score) {
  return score == Rejection::Score::kInScope ? "in_scope" : "confidence";
}

std::optional<Rejection::Score> rejection_score_from_string(const std::string& name) {
  if (name == "confidence") return Rejection::Score::kConfidence;
  if (name == "in_scope") return Rejection::Score::kInScope;
  return std::nullopt;
}

std::optional<RejectionProblem> rejection_problem(const Rejection& r,
                                                  const std::vector<std::string>& labels) {
  if (!(r.below >= 0 && r.below <= 1)) {
    return RejectionProblem{"reject_below", "expected a number from 0 to 1"};
  }
  if (r.label.empty()) return RejectionProblem{"reject_label", "empty label"};
  if (r.score == Rejection::Score::kInScope &&
      std::find(labels.begin(), labels.end(), r.label) == labels.end()) {
    return RejectionProblem{
        "reject_by", "in_scope needs reject_label '" + r.label + "' to be one of the labels"};
  }
  return std::nullopt;
}

void Model::set_rejection(std::optional<Rejection> r) {
  if (r) {
    if (const auto problem = rejection_problem(*r, labels_)) {
      throw ModelError(std::string("rejection rule: ") + problem->field + ": " + problem->what);
    }
    reject_index_ =
        static_cast<size_t>(std::find(labels_.begin(), labels_.end(), r->label) - labels_.begin());
  }
  rejection_ = std::move(r);
}

bool Model::rejects(const Prediction& p) const {
  if (!rejection_) return false;
  if (rejection_->score == Rejection::Score::kConfidence) return p.confidence < rejection_->below;
  return 1.0 - p.probs[reject_index_] < rejection_->below;
}

Model::Model(Config config, std::vector<std::string> labels, Tokenizer tokenizer,
             Params<float> params, double temperature, nlohmann::json metadata)
    : config_(config),
      labels_(std::move(labels)),
      tokenizer_(std::move(tokenizer)),
      params_(std::move(params)),
      weights_(inference_weights(params_)),
      temperature_(temperature),
      metadata_(std::move(metadata)) {
  positions_->table.resize(config_.max_len, config_.d_model);
}

const Mat<float>& Model::positions(int rows) const {
  Positions& p = *positions_;
  if (p.rows.load(std::memory_order_acquire) < rows) {
    std::lock_guard<std::mutex> lock(p.grow);
    const int have = p.rows.load(std::memory_order_relaxed);
    if (have < rows) {
      // Readers use only rows below `have`; these are new, so nobody reads them yet.
      p.table.middleRows(have, rows - have) =
          sinusoid_table(rows - have, config_.d_model, have).cast<float>();
      p.rows.store(rows, std::memory_order_release);
    }
  }
  return p.table;
}

const Params<float>& Model::params() const {
  if (borrowed_embed_) {
    std::call_once(*embed_copied_, [&] {
      params_.embed =
          Eigen::Map<const Mat<float>>(borrowed_embed_, config_.vocab_size, config_.d_model);
    });
  }
  return params_;
}

void Model::add_member(Params<float> params) {
  // A borrowed embedding is not in params_, and a built-in model is never an ensemble.
  if (borrowed_embed_) throw ModelError("a model that borrows its embedding takes no members");
  const auto want = tensors(std::as_const(params_));
  const auto got = tensors(std::as_const(params));
  bool same = want.size() == got.size();
  for (size_t i = 0; same && i < want.size(); ++i) same = want[i].shape == got[i].shape;
  if (!same) throw ModelError("an ensemble member has other shapes than the model");
  if (members() >= kMaxMembers) {
    throw ModelError("an ensemble has at most " + std::to_string(kMaxMembers) + " members");
  }
  InferenceWeights<float> weights = inference_weights(params);
  more_.push_back({std::move(params), std::move(weights)});
}

void Model::borrow_embedding(const float* rows) {
  if (params_.embed.size() != 0) throw Error(ExitCode::kFailure, "borrow_embedding: embed is set");
  borrowed_embed_ = rows;
}

std::vector<int32_t> Model::encode(std::string_view text, bool* truncated) const {
  std::vector<int32_t> ids = tokenizer_.encode(text, static_cast<size_t>(config_.max_len));
  if (ids.empty()) throw InputError("the email is empty (no text after normalisation)");
  const bool cut = static_cast<int>(ids.size()) > config_.max_len;
  if (cut) ids.resize(config_.max_len);  // documented rule: keep the first max_len tokens
  if (truncated) *truncated = cut;
  return ids;
}

Mat<float> Model::logits(const std::vector<const std::vector<int32_t>*>& sequences) const {
  const Batch batch = make_batch(sequences);
  const Mat<float>& table = positions(batch.T);
  return member_mean(
      [&](const Params<float>& p, const InferenceWeights<float>& w, const float* rows) {
        return encoder_logits(p, w, config_, table, batch, rows);
      });
}

Prediction Model::finish(const Eigen::Ref<const RowVec<float>>& logits) const {
  Prediction p;
  Vec<float> probs = softmax<float>(logits.transpose(), temperature_);
  p.probs.assign(probs.data(), probs.data() + probs.size());
  p.label = static_cast<int>(std::max_element(p.probs.begin(), p.probs.end()) - p.probs.begin());
  p.confidence = p.probs[p.label];
  return p;
}

Prediction Model::predict(std::string_view text) const {
  bool truncated = false;
  std::vector<std::vector<int32_t>> ids{encode(text, &truncated)};
  Prediction p = std::move(predict_encoded(ids, 1).front());
  p.truncated = truncated;
  return p;
}

Mat<float> Model::infer(const std::vector<std::vector<int32_t>>& ids, int threads) const {
  size_t longest = 0;
  for (const auto& e : ids) longest = std::max(longest, e.size());
  const Mat<float>& table = positions(static_cast<int>(longest));
  return member_mean(
      [&](const Params<float>& p, const InferenceWeights<float>& w, const float* rows) {
        return infer_logits(p, w, config_, table, ids, threads, rows);
      });
}

std::vector<Prediction> Model::predict_encoded(const std::vector<std::vector<int32_t>>& ids,
                                               int threads) const {
  const Mat<float> l = infer(ids, threads);
  std::vector<Prediction> out(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    out[i] = finish(l.row(static_cast<Eigen::Index>(i)));
    out[i].n_tokens = static_cast<int>(ids[i].size());
  }
  return out;
}

}  // namespace router
