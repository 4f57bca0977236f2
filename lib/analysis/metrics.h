// Classification metrics for `router eval` and `router batch`: accuracy, per-label precision /
// recall / F1 / support with macro and weighted averages (scikit-learn's definitions and its
// classification_report layout), the confusion matrix, swap-pair accuracy, expected calibration
// error and coverage at a confidence threshold. Records are added one at a time, so memory does
// not grow with the number of records (only with the number of distinct pair ids).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/calibration.h"

namespace router {

struct LabelScores {
  double precision = 0, recall = 0, f1 = 0;  // 0 where the ratio is 0/0 (sklearn's default)
  int64_t support = 0;                       // records whose true label this is
};

struct Coverage {
  double threshold = 0;  // a record is covered when its confidence >= threshold
  int64_t covered = 0;   // covered records
  int64_t covered_right = 0;
  double coverage = 0;             // covered / n
  std::optional<double> accuracy;  // covered_right / covered; empty when nothing is covered
};

// "None of these" scored as the CLINC150 paper does (Larson et al., 2019): accuracy on the records
// whose true label is not the out-of-scope one, and the recall of that label.
struct OutOfScope {
  std::string label;
  int64_t in_scope = 0, in_scope_right = 0, out_of_scope = 0, recalled = 0;
  double in_scope_accuracy = 0, recall = 0;
};

struct Evaluation {
  std::vector<std::string> labels;  // (K) the model's labels: confusion axes
  std::vector<bool> reported;       // (K) true label or prediction of some record
  int64_t n = 0;                    // scored records (true label known to the model)
  int64_t right = 0;
  double accuracy = 0;
  std::vector<LabelScores> per_label;           // (K)
  LabelScores macro, weighted;                  // over the reported labels only, as sklearn does
  std::vector<std::vector<int64_t>> confusion;  // (K, K): [true][predicted]
  int64_t pair_groups = 0, pair_groups_right = 0;
  std::optional<double> pair_accuracy;     // empty when no pair id is shared by 2+ records
  double ece = 0;                          // 15 equal-width bins
  std::optional<Coverage> coverage;        // with a threshold only
  std::optional<OutOfScope> out_of_scope;  // with an out-of-scope label only
  int top_k = 0;                           // 0: top-k accuracy not asked for
  int64_t top_k_right = 0;                 // true label among the top_k best
  double top_k_accuracy = 0;
  std::map<std::string, int64_t> unknown_labels;  // label the model lacks -> records (not scored)
  int64_t n_unknown = 0;
};

// Collects (true label, prediction, confidence, pair) one record at a time.
class MetricsAccumulator {
 public:
  // labels: (K) the model's labels. min_confidence: coverage threshold, or empty for none.
  // top_k > 0 also counts how often the true label is among the top_k best.
  explicit MetricsAccumulator(std::vector<std::string> labels,
                              std::optional<double> min_confidence = std::nullopt, int top_k = 0);

  // truth: label name from the data. A name not among the labels is counted in unknown_labels
  // and scored nowhere else. predicted: (0..K-1). pair: "" when the record has none.
  // truth_rank: 0-based place of the true label in the model's ranking (see rank_of), needed
  // only with top_k.
  void add(const std::string& truth, int predicted, double confidence, const std::string& pair = "",
           int truth_rank = -1);

  // Also score `label` as the out-of-scope one (Evaluation::out_of_scope); one of the labels.
  void set_out_of_scope(const std::string& label) { out_of_scope_ = label; }

  // Index of `label` in the labels, or -1.
  int index_of(const std::string& label) const;

  int64_t records() const { return n_ + n_unknown_; }
  Evaluation finish() const;

 private:
  std::vector<std::string> labels_;
  std::map<std::string, int> index_;
  std::optional<double> threshold_;
  std::string out_of_scope_;
  int top_k_ = 0;
  int64_t top_k_right_ = 0;
  std::vector<std::vector<int64_t>> confusion_;
  int64_t n_ = 0, n_unknown_ = 0, covered_ = 0, covered_right_ = 0;
  CalibrationBins ece_;
  std::map<std::string, std::pair<int64_t, bool>> pairs_;  // pair id -> (members, all right)
  std::map<std::string, int64_t> unknown_;
};

// Place of label `index` when labels are sorted by probability, best first, ties broken by the
// lower index (the order of top_k in apps/common.h). probs: (K).
int rank_of(const std::vector<float>& probs, int index);

// Per-label scores from a (K, K) confusion matrix, [true][predicted].
std::vector<LabelScores> label_scores(const std::vector<std::vector<int64_t>>& confusion);

// Unweighted (macro) or support-weighted mean of the scores whose `include` is true; the
// support of the result is the total support of the included labels.
LabelScores average_scores(const std::vector<LabelScores>& scores, const std::vector<bool>& include,
                           bool weighted);

// scikit-learn's classification_report text for the reported labels: a header, one row per
// label, then accuracy, macro avg and weighted avg, numbers with `digits` decimals.
std::string classification_report(const Evaluation& e, int digits = 2);

// The confusion matrix as aligned text; rows are true labels, columns predictions.
std::string confusion_text(const Evaluation& e);

// Everything: the classification report, the confusion matrix, pair accuracy, ECE, coverage and
// the labels the model lacks.
std::string evaluation_text(const Evaluation& e, int digits = 4);

// One JSON object: n, accuracy, macro_f1, weighted_f1, pair_accuracy (null without pairs),
// pair_groups, pair_groups_right, ece, labels, per_label {label: {precision, recall, f1,
// support}}, macro_avg, weighted_avg, confusion, coverage (null without a threshold),
// top_k_accuracy (null without top_k, else {k, accuracy}), n_unknown, unknown_labels.
nlohmann::ordered_json evaluation_json(const Evaluation& e);

}  // namespace router
