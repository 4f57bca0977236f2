#include "model/model.h"

#include <algorithm>

#include "base/errors.h"
#include "base/parallel.h"
#include "nn/positional.h"

namespace router {

static_assert(kPaddingId == kPadId, "the encoder pads with the tokenizer's [PAD] id");

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

void Model::borrow_embedding(const float* rows) {
  if (params_.embed.size() != 0) throw Error(ExitCode::kFailure, "borrow_embedding: embed is set");
  borrowed_embed_ = rows;
}

std::vector<int32_t> Model::encode(std::string_view text, bool* truncated) const {
  std::vector<int32_t> ids = tokenizer_.encode(text);
  if (ids.empty()) throw InputError("the email is empty (no text after normalisation)");
  const bool cut = static_cast<int>(ids.size()) > config_.max_len;
  if (cut) ids.resize(config_.max_len);  // documented rule: keep the first max_len tokens
  if (truncated) *truncated = cut;
  return ids;
}

Mat<float> Model::logits(const std::vector<const std::vector<int32_t>*>& sequences) const {
  const Batch batch = make_batch(sequences);
  return encoder_logits(params_, weights_, config_, positions(batch.T), batch, embed_rows());
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
  std::vector<int32_t> ids = encode(text, &truncated);
  Mat<float> l = logits({&ids});
  Prediction p = finish(l.row(0));
  p.n_tokens = static_cast<int>(ids.size());
  p.truncated = truncated;
  return p;
}

std::vector<Prediction> Model::predict_many(const std::vector<std::string>& texts,
                                            int threads) const {
  const int n = static_cast<int>(texts.size());
  std::vector<std::vector<int32_t>> ids(n);
  std::vector<char> truncated(n, 0);
  parallel_for(n, threads, [&](int i) {
    ids[i] = tokenizer_.encode(texts[i]);
    truncated[i] = static_cast<int>(ids[i].size()) > config_.max_len;
    if (truncated[i]) ids[i].resize(config_.max_len);  // the rule of encode()
  });
  // The first empty email in input order, whichever thread found it.
  for (int i = 0; i < n; ++i) {
    if (ids[i].empty()) {
      throw InputError("email " + std::to_string(i + 1) + " is empty (nothing but white space)");
    }
  }
  size_t longest = 0;
  for (const auto& e : ids) longest = std::max(longest, e.size());
  const Mat<float> l = infer_logits(
      params_, weights_, config_, positions(static_cast<int>(longest)), ids, threads, embed_rows());
  std::vector<Prediction> out(n);
  for (int i = 0; i < n; ++i) {
    out[i] = finish(l.row(i));
    out[i].n_tokens = static_cast<int>(ids[i].size());
    out[i].truncated = truncated[i];
  }
  return out;
}

}  // namespace router
