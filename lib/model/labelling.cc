#include "model/labelling.h"

#include <algorithm>
#include <optional>
#include <string>

#include "base/errors.h"
#include "base/parallel.h"

namespace router {

namespace {

// The rule that decides `e` without the model, or "" when the model must read it.
std::string_view rule_for(const Email& e, bool header_rules) {
  std::string_view rule = header_rules || e.rule == "no text" ? e.rule : "";
  if (e.text.empty() && !e.rule.empty() && rule.empty()) rule = "no text";
  return rule;
}

// Confidence 1 on `other` (index `other`), the rule named.
Prediction rule_prediction(size_t n_labels, int other, std::string_view rule) {
  Prediction p;
  p.label = other;
  p.confidence = 1;
  p.probs.assign(n_labels, 0.0f);
  p.probs[other] = 1;
  p.rule = std::string(rule);
  return p;
}

}  // namespace

std::vector<Labelled> label_emails(const Model& model, std::span<const Email> emails,
                                   const LabelOptions& options) {
  const auto& labels = model.labels();
  const auto found = std::find(labels.begin(), labels.end(), "other");
  const std::optional<int> other =
      found == labels.end() ? std::nullopt
                            : std::optional<int>(static_cast<int>(found - labels.begin()));
  const int n = static_cast<int>(emails.size());
  std::vector<Labelled> out(n);
  std::vector<std::vector<int32_t>> ids(n);
  std::vector<char> truncated(n, 0);
  parallel_for(n, options.threads, [&](int i) {
    const Email& e = emails[i];
    const std::string_view rule = rule_for(e, options.header_rules);
    if (!rule.empty() && other) {
      out[i].prediction = rule_prediction(labels.size(), *other, rule);
    } else if (!rule.empty() && e.text.empty()) {
      out[i].problem = Problem::kNoText;
    } else {
      bool cut = false;
      try {
        ids[i] = model.encode(e.text, &cut);
      } catch (const InputError&) {
        out[i].problem = Problem::kNoWords;
      }
      truncated[i] = cut;
    }
  });
  // The model reads the emails that have ids, all in one call.
  std::vector<int> modelled;
  std::vector<std::vector<int32_t>> batch;
  for (int i = 0; i < n; ++i) {
    if (ids[i].empty()) continue;
    modelled.push_back(i);
    batch.push_back(std::move(ids[i]));
  }
  std::vector<Prediction> preds = model.predict_encoded(batch, options.threads);
  for (size_t j = 0; j < modelled.size(); ++j) {
    const int i = modelled[j];
    out[i].prediction = std::move(preds[j]);
    out[i].prediction.truncated = truncated[i];
    out[i].prediction.rejected = model.rejects(out[i].prediction);
  }
  return out;
}

}  // namespace router
