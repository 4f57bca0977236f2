// Classification metrics (see metrics.h). Ratios that are 0/0 count as 0, as scikit-learn's
// zero_division default does; the text layouts follow classification_report exactly so that a
// reader can set router's numbers beside a Python notebook's.
#include "analysis/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace router {

namespace {

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

MetricsAccumulator::MetricsAccumulator(std::vector<std::string> labels,
                                       std::optional<double> min_confidence, int top_k)
    : labels_(std::move(labels)),
      threshold_(min_confidence),
      top_k_(top_k),
      confusion_(labels_.size(), std::vector<int64_t>(labels_.size(), 0)) {
  for (size_t i = 0; i < labels_.size(); ++i) index_[labels_[i]] = static_cast<int>(i);
}

int MetricsAccumulator::index_of(const std::string& label) const {
  auto it = index_.find(label);
  return it == index_.end() ? -1 : it->second;
}

void MetricsAccumulator::add(const std::string& truth, int predicted, double confidence,
                             const std::string& pair, int truth_rank) {
  auto it = index_.find(truth);
  if (it == index_.end()) {
    ++unknown_[truth];
    ++n_unknown_;
    return;
  }
  const int t = it->second;
  const bool right = t == predicted;
  ++n_;
  ++confusion_[t][predicted];
  if (top_k_ > 0 && truth_rank >= 0 && truth_rank < top_k_) ++top_k_right_;
  ece_.add(confidence, right);
  if (threshold_ && confidence >= *threshold_) {
    ++covered_;
    covered_right_ += right;
  }
  if (!pair.empty()) {
    auto& [members, all_right] = pairs_.try_emplace(pair, 0, true).first->second;
    ++members;
    all_right = all_right && right;
  }
}

Evaluation MetricsAccumulator::finish() const {
  Evaluation e;
  const size_t K = labels_.size();
  e.labels = labels_;
  e.n = n_;
  e.confusion = confusion_;
  e.per_label = label_scores(confusion_);
  e.reported.assign(K, false);
  for (size_t i = 0; i < K; ++i) {
    e.right += confusion_[i][i];
    for (size_t j = 0; j < K; ++j) {
      if (confusion_[i][j] > 0) e.reported[i] = e.reported[j] = true;
    }
  }
  e.accuracy = ratio(static_cast<double>(e.right), static_cast<double>(n_));
  e.macro = average_scores(e.per_label, e.reported, false);
  e.weighted = average_scores(e.per_label, e.reported, true);
  for (const auto& [id, group] : pairs_) {
    // A pair id carried by one record only is no pair: its partner is missing from the data.
    if (group.first < 2) continue;
    ++e.pair_groups;
    e.pair_groups_right += group.second;
  }
  if (e.pair_groups > 0) {
    e.pair_accuracy = static_cast<double>(e.pair_groups_right) / static_cast<double>(e.pair_groups);
  }
  e.ece = ece_.error();
  if (threshold_) {
    Coverage c;
    c.threshold = *threshold_;
    c.covered = covered_;
    c.covered_right = covered_right_;
    c.coverage = ratio(static_cast<double>(covered_), static_cast<double>(n_));
    if (covered_ > 0) c.accuracy = static_cast<double>(covered_right_) / covered_;
    e.coverage = c;
  }
  if (const int o = index_of(out_of_scope_); o >= 0) {
    OutOfScope s;
    s.label = out_of_scope_;
    s.out_of_scope = e.per_label[o].support;
    s.recalled = confusion_[o][o];
    s.in_scope = n_ - s.out_of_scope;
    s.in_scope_right = e.right - s.recalled;
    s.in_scope_accuracy =
        ratio(static_cast<double>(s.in_scope_right), static_cast<double>(s.in_scope));
    s.recall = ratio(static_cast<double>(s.recalled), static_cast<double>(s.out_of_scope));
    e.out_of_scope = s;
  }
  e.top_k = top_k_;
  e.top_k_right = top_k_right_;
  e.top_k_accuracy = ratio(static_cast<double>(top_k_right_), static_cast<double>(n_));
  e.unknown_labels = unknown_;
  e.n_unknown = n_unknown_;
  return e;
}

int rank_of(const std::vector<float>& probs, int index) {
  int rank = 0;
  for (int j = 0; j < static_cast<int>(probs.size()); ++j) {
    if (probs[j] > probs[index] || (probs[j] == probs[index] && j < index)) ++rank;
  }
  return rank;
}

std::vector<LabelScores> label_scores(const std::vector<std::vector<int64_t>>& confusion) {
  const size_t K = confusion.size();
  std::vector<LabelScores> out(K);
  for (size_t k = 0; k < K; ++k) {
    int64_t tp = confusion[k][k], support = 0, predicted = 0;
    for (size_t j = 0; j < K; ++j) {
      support += confusion[k][j];
      predicted += confusion[j][k];
    }
    LabelScores& s = out[k];
    s.support = support;
    s.precision = ratio(static_cast<double>(tp), static_cast<double>(predicted));
    s.recall = ratio(static_cast<double>(tp), static_cast<double>(support));
    s.f1 = ratio(2 * s.precision * s.recall, s.precision + s.recall);
  }
  return out;
}

LabelScores average_scores(const std::vector<LabelScores>& scores, const std::vector<bool>& include,
                           bool weighted) {
  LabelScores avg;
  double total_weight = 0;
  for (size_t k = 0; k < scores.size(); ++k) {
    if (!include[k]) continue;
    const double w = weighted ? static_cast<double>(scores[k].support) : 1.0;
    avg.precision += w * scores[k].precision;
    avg.recall += w * scores[k].recall;
    avg.f1 += w * scores[k].f1;
    avg.support += scores[k].support;
    total_weight += w;
  }
  avg.precision = ratio(avg.precision, total_weight);
  avg.recall = ratio(avg.recall, total_weight);
  avg.f1 = ratio(avg.f1, total_weight);
  return avg;
}

// The layout of sklearn.metrics.classification_report (scikit-learn 1.x), character for
// character: names right-aligned to the longest name (at least "weighted avg"), then four
// 9-wide columns, each preceded by one space.
std::string classification_report(const Evaluation& e, int digits) {
  const std::string kLongestAvg = "weighted avg";
  size_t width = std::max<size_t>(kLongestAvg.size(), static_cast<size_t>(digits));
  for (size_t k = 0; k < e.labels.size(); ++k) {
    if (e.reported[k]) width = std::max(width, e.labels[k].size());
  }
  auto row = [&](const std::string& name, const LabelScores& s) {
    return pad_left(name, width) + " " + " " + pad_left(fixed(s.precision, digits), 9) + " " +
           pad_left(fixed(s.recall, digits), 9) + " " + pad_left(fixed(s.f1, digits), 9) + " " +
           pad_left(std::to_string(s.support), 9) + "\n";
  };
  std::string out = std::string(width, ' ') + " " + " " + pad_left("precision", 9) + " " +
                    pad_left("recall", 9) + " " + pad_left("f1-score", 9) + " " +
                    pad_left("support", 9) + "\n\n";
  for (size_t k = 0; k < e.labels.size(); ++k) {
    if (e.reported[k]) out += row(e.labels[k], e.per_label[k]);
  }
  out += "\n";
  out += pad_left("accuracy", width) + " " + " " + std::string(9, ' ') + " " + std::string(9, ' ') +
         " " + pad_left(fixed(e.accuracy, digits), 9) + " " + pad_left(std::to_string(e.n), 9) +
         "\n";
  out += row("macro avg", e.macro);
  out += row("weighted avg", e.weighted);
  return out;
}

std::string confusion_text(const Evaluation& e) {
  // Columns are numbered as the rows are, so the table stays about as wide as its counts, not
  // nine label names side by side (187 columns for Crumb's).
  const size_t K = e.labels.size();
  size_t name_width = 0, cell = std::to_string(K).size() + 2;
  for (size_t i = 0; i < K; ++i) {
    name_width = std::max(name_width, e.labels[i].size());
    for (size_t j = 0; j < K; ++j) cell = std::max(cell, std::to_string(e.confusion[i][j]).size());
  }
  const size_t number_width = std::to_string(K).size() + 2;
  // "(i)" built by appending: GCC 12 warns (-Wrestrict, a false positive) on "(" + to_string().
  auto numbered = [](size_t i) {
    std::string n = "(";
    n += std::to_string(i + 1);
    return n += ')';
  };
  auto number = [&](size_t i) { return pad_left(numbered(i), number_width); };
  std::string out =
      "confusion matrix (rows: true label; columns: predicted label, numbered as the rows)\n";
  out += std::string(number_width + 1 + name_width, ' ');
  for (size_t j = 0; j < K; ++j) out += "  " + pad_left(numbered(j), cell);
  out += "\n";
  for (size_t i = 0; i < K; ++i) {
    out += number(i) + " " + pad_right(e.labels[i], name_width);
    for (size_t j = 0; j < K; ++j) out += "  " + pad_left(std::to_string(e.confusion[i][j]), cell);
    out += "\n";
  }
  return out;
}

std::string evaluation_text(const Evaluation& e, int digits) {
  std::string out = classification_report(e, digits) + "\n" + confusion_text(e) + "\n";
  if (e.pair_accuracy) {
    out += "swap-pair accuracy: " + fixed(*e.pair_accuracy, digits) + " (" +
           std::to_string(e.pair_groups_right) + " of " + std::to_string(e.pair_groups) +
           " pair groups entirely right)\n";
  } else {
    out += "swap-pair accuracy: n/a (no \"pair\" id is shared by two or more records)\n";
  }
  if (e.top_k > 0) {
    out += "top-" + std::to_string(e.top_k) + " accuracy: " + fixed(e.top_k_accuracy, digits) +
           " (" + std::to_string(e.top_k_right) + " of " + std::to_string(e.n) + ")\n";
  }
  out += "expected calibration error (" + std::to_string(kEceBins) +
         " bins): " + fixed(e.ece, digits) + "\n";
  if (e.coverage) {
    const Coverage& c = *e.coverage;
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%g", c.threshold);
    out += "coverage at confidence >= " + std::string(threshold) + ": " +
           fixed(c.coverage, digits) + " (" + std::to_string(c.covered) + " of " +
           std::to_string(e.n) + "); accuracy on covered: " +
           (c.accuracy ? fixed(*c.accuracy, digits) : std::string("n/a")) + "\n";
  }
  if (e.out_of_scope) {
    const OutOfScope& s = *e.out_of_scope;
    out += "in-scope accuracy: " + fixed(s.in_scope_accuracy, digits) + " (" +
           std::to_string(s.in_scope_right) + " of " + std::to_string(s.in_scope) + "); \"" +
           s.label + "\" recall: " + fixed(s.recall, digits) + " (" + std::to_string(s.recalled) +
           " of " + std::to_string(s.out_of_scope) + ")\n";
  }
  if (e.n_unknown > 0) {
    out += "not scored: " + std::to_string(e.n_unknown) + " record(s) whose label the model lacks:";
    for (const auto& [label, count] : e.unknown_labels) {
      out += " \"" + label + "\" (" + std::to_string(count) + ")";
    }
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json evaluation_json(const Evaluation& e) {
  using ojson = nlohmann::ordered_json;
  auto scores = [](const LabelScores& s) {
    return ojson{
        {"precision", s.precision}, {"recall", s.recall}, {"f1", s.f1}, {"support", s.support}};
  };
  ojson j;
  j["n"] = e.n;
  j["accuracy"] = e.accuracy;
  j["macro_f1"] = e.macro.f1;
  j["weighted_f1"] = e.weighted.f1;
  j["pair_accuracy"] = e.pair_accuracy ? ojson(*e.pair_accuracy) : ojson(nullptr);
  j["pair_groups"] = e.pair_groups;
  j["pair_groups_right"] = e.pair_groups_right;
  j["ece"] = e.ece;
  j["labels"] = e.labels;
  ojson per_label = ojson::object();
  for (size_t k = 0; k < e.labels.size(); ++k) {
    if (e.reported[k]) per_label[e.labels[k]] = scores(e.per_label[k]);
  }
  j["per_label"] = per_label;
  j["macro_avg"] = scores(e.macro);
  j["weighted_avg"] = scores(e.weighted);
  j["confusion"] = e.confusion;
  if (e.coverage) {
    const Coverage& c = *e.coverage;
    j["coverage"] = {{"min_confidence", c.threshold},
                     {"coverage", c.coverage},
                     {"covered", c.covered},
                     {"accuracy", c.accuracy ? ojson(*c.accuracy) : ojson(nullptr)}};
  } else {
    j["coverage"] = nullptr;
  }
  if (e.top_k > 0) {
    j["top_k_accuracy"] = {{"k", e.top_k}, {"accuracy", e.top_k_accuracy}};
  } else {
    j["top_k_accuracy"] = nullptr;
  }
  if (e.out_of_scope) {
    const OutOfScope& s = *e.out_of_scope;
    j["out_of_scope"] = {{"label", s.label},
                         {"in_scope_accuracy", s.in_scope_accuracy},
                         {"in_scope", s.in_scope},
                         {"recall", s.recall},
                         {"out_of_scope", s.out_of_scope}};
  }
  j["n_unknown"] = e.n_unknown;
  j["unknown_labels"] = ojson::object();
  for (const auto& [label, count] : e.unknown_labels) j["unknown_labels"][label] = count;
  return j;
}

}  // namespace router
