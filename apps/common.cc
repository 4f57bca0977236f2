#include "common.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "base/errors.h"
#include "input/headers.h"
#include "model/builtin_model.h"
#include "model/json_format.h"

namespace router::app {

void add_model_option(CLI::App& cmd, std::string& path) {
  cmd.add_option("-m,--model", path,
                 "Model file (JSON), or a built-in model by name: crumb (the default) or "
                 "crumb-nopos (router info --list)");
}

Model load_model_or_default(const std::string& path) {
  const bool builtin_name = path.empty() || ((path == "crumb" || path == "crumb-nopos") &&
                                             !std::filesystem::exists(path));
  if (!builtin_name) return load_model(path);
  if (auto model = builtin_model(path.empty() ? "crumb" : path)) return std::move(*model);
  throw UsageError("no model: this router has no built-in models; pass -m/--model FILE");
}

void add_threads_option(CLI::App& cmd, int& threads) {
  cmd.add_option("--threads", threads, "Threads (0 = all cores); never changes the output")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
}

void add_top_k_option(CLI::App& cmd, int& k, const std::string& help) {
  cmd.add_option("-k,--top-k", k, help)->check(CLI::Range(1, 10000));
}

void add_min_confidence_option(CLI::App& cmd, double& min_confidence, const std::string& help) {
  cmd.add_option("--min-confidence", min_confidence, help)->check(CLI::Range(0.0, 1.0));
}

bool needs_review(const Prediction& p, double min_confidence) {
  return min_confidence >= 0 && p.rule.empty() && !p.rejected && p.confidence < min_confidence;
}

std::string shown_label(const Model& model, const Prediction& p, double min_confidence) {
  return needs_review(p, min_confidence) ? kNeedsReview : model.label_of(p);
}

std::vector<std::string> scored_labels(const Model& model) {
  std::vector<std::string> labels = model.labels();
  const auto& reject = model.rejection();
  if (reject && std::find(labels.begin(), labels.end(), reject->label) == labels.end()) {
    labels.push_back(reject->label);
  }
  return labels;
}

MetricsAccumulator model_metrics(const Model& model, std::optional<double> min_confidence, int k) {
  MetricsAccumulator metrics(scored_labels(model), min_confidence, k);
  if (const auto& reject = model.rejection()) metrics.set_out_of_scope(reject->label);
  return metrics;
}

int scored_label(const Model& model, const Prediction& p) {
  if (!p.rejected) return p.label;
  const auto& labels = model.labels();
  return static_cast<int>(std::find(labels.begin(), labels.end(), model.rejection()->label) -
                          labels.begin());  // labels.size(): the label of its own, last
}

int truth_rank(const Prediction& p, int t) {
  return t >= 0 && t < static_cast<int>(p.probs.size()) ? rank_of(p.probs, t) : -1;
}

void add_field_options(CLI::App& cmd, Fields& fields) {
  cmd.add_option("--text-field", fields.text,
                 "The member (or dotted path, e.g. message.body) holding each record's text; the "
                 "CSV/TSV column")
      ->capture_default_str();
  cmd.add_option("--label-field", fields.label,
                 "The member (or dotted path) holding each record's label")
      ->capture_default_str();
}

std::string float_text(float v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

double float_value(float v) { return std::strtod(float_text(v).c_str(), nullptr); }

std::string prediction_text(const Model& model, const Prediction& p, int k,
                            const std::string& label) {
  const auto& labels = model.labels();
  std::string out =
      "{\"label\":" + nlohmann::json(label.empty() ? model.label_of(p) : label).dump() +
      ",\"confidence\":" + float_text(p.confidence) + ",\"top_k\":[";
  const auto top = top_k(p, k);
  for (size_t j = 0; j < top.size(); ++j) {
    out += (j ? ",{\"label\":" : "{\"label\":") + nlohmann::json(labels[top[j]]).dump() +
           ",\"score\":" + float_text(p.probs[top[j]]) + "}";
  }
  out += ']';
  if (p.truncated) out += ",\"truncated\":true";
  if (!p.rule.empty()) out += ",\"rule\":" + nlohmann::json(p.rule).dump();
  if (p.rejected) out += ",\"rejected\":true";
  return out + '}';
}

std::string record_with_prediction(nlohmann::ordered_json& value, const std::string& prediction) {
  if (!value.contains("prediction")) value["prediction"] = nullptr;
  std::string out = "{";
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it != value.begin()) out += ',';
    out += nlohmann::ordered_json(it.key()).dump() + ':' +
           (it.key() == "prediction" ? prediction : it.value().dump());
  }
  return out + '}';
}

std::string record_with_error(nlohmann::ordered_json value, const std::string& error) {
  if (!value.is_object()) value = nlohmann::ordered_json::object();
  value.erase("prediction");
  value["error"] = error;
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<int> top_k(const Prediction& p, int k) {
  std::vector<int> order(p.probs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return p.probs[a] > p.probs[b]; });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(std::max(k, 0))));
  return order;
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

nlohmann::json prediction_json(const Model& model, const Prediction& p, int k) {
  nlohmann::json top = nlohmann::json::array();
  for (int i : top_k(p, k)) {
    top.push_back({{"label", model.labels()[i]}, {"score", float_value(p.probs[i])}});
  }
  nlohmann::json out = {
      {"label", model.label_of(p)}, {"confidence", float_value(p.confidence)}, {"top_k", top}};
  if (p.truncated) out["truncated"] = true;
  if (!p.rule.empty()) out["rule"] = p.rule;
  if (p.rejected) out["rejected"] = true;
  return out;
}

MailText email_text(std::string raw, const std::string& where, const std::string& format) {
  if (format == "eml" || (format == "auto" && looks_like_message(raw))) {
    return parse_message(raw, where);
  }
  MailText m;
  m.text = std::move(raw);
  return m;
}

void add_header_rules_option(CLI::App& cmd, bool& off) {
  cmd.add_flag("--no-header-rules", off,
               "Let the model label automatic and bulk mail too (by default a message with "
               "Auto-Submitted other than \"no\", Precedence: bulk, list or junk, List-Id or "
               "List-Unsubscribe is labelled `other`, with the rule named)");
}

Prediction label_message(const Model& model, const MailText& mail, bool header_rules,
                         const std::string& where) {
  const Email email{mail.text, mail.rule};
  Labelled l = std::move(label_emails(model, {&email, 1}, {header_rules, 1}).front());
  if (l.problem != Problem::kNone) throw InputError(where + ": " + problem_text(l.problem, true));
  return std::move(l.prediction);
}

Filtered filter_message(const std::string& message, const std::function<const Model&()>& model,
                        int k, bool header_rules) {
  Filtered f;
  std::vector<std::string> fields;
  try {
    const MailText mail = parse_message(message, "the message");
    const Model& m = model();
    const Prediction p = label_message(m, mail, header_rules, "the message");
    fields = {"X-Router-Label: " + m.label_of(p),
              "X-Router-Confidence: " + format_fixed(p.confidence, 4)};
    if (!p.rule.empty()) fields.push_back("X-Router-Rule: " + header_value(p.rule));
    if (k > 0) {
      std::string top;
      for (int i : top_k(p, k)) {
        top += (top.empty() ? "" : ", ") + m.labels()[i] + " " + format_fixed(p.probs[i], 4);
      }
      fields.push_back("X-Router-Top-K: " + top);
    }
    f.label = scored_label(m, p);
  } catch (const std::exception& e) {  // a filter passes every message through
    f.error = e.what();
    fields = {"X-Router-Error: " + header_value(f.error)};
  }
  f.message = stamp_headers(message, "X-Router-", fields);
  return f;
}

std::string problem_text(Problem problem, bool mail, const std::string& field) {
  if (problem == Problem::kNoText) return "the message has no text (no text part, no subject)";
  return mail ? "the message is empty (no words to classify)"
              : "\"" + field + "\" is empty (nothing but white space)";
}

}  // namespace router::app
