// Classification metrics against numbers computed by hand and against scikit-learn's documented
// classification_report example, character for character; ECE against lib/train/calibration.h.
#include "analysis/metrics.h"

#include <random>

#include <gtest/gtest.h>

#include "train/calibration.h"

namespace router {
namespace {

// sklearn's docstring example: y_true = [0, 1, 2, 2, 2], y_pred = [0, 0, 2, 2, 1].
Evaluation sklearn_example() {
  MetricsAccumulator m({"class 0", "class 1", "class 2"});
  const int truth[] = {0, 1, 2, 2, 2}, pred[] = {0, 0, 2, 2, 1};
  const std::string names[] = {"class 0", "class 1", "class 2"};
  for (int i = 0; i < 5; ++i) m.add(names[truth[i]], pred[i], 0.9);
  return m.finish();
}

TEST(Metrics, PerLabelScoresByHand) {
  const Evaluation e = sklearn_example();
  EXPECT_EQ(e.n, 5);
  EXPECT_DOUBLE_EQ(e.accuracy, 0.6);
  // class 0: tp 1, predicted 2, support 1.
  EXPECT_DOUBLE_EQ(e.per_label[0].precision, 0.5);
  EXPECT_DOUBLE_EQ(e.per_label[0].recall, 1.0);
  EXPECT_NEAR(e.per_label[0].f1, 2.0 / 3.0, 1e-12);
  EXPECT_EQ(e.per_label[0].support, 1);
  // class 1: tp 0, predicted 1, support 1: all zero, not NaN.
  EXPECT_EQ(e.per_label[1].precision, 0.0);
  EXPECT_EQ(e.per_label[1].recall, 0.0);
  EXPECT_EQ(e.per_label[1].f1, 0.0);
  // class 2: tp 2, predicted 2, support 3.
  EXPECT_DOUBLE_EQ(e.per_label[2].precision, 1.0);
  EXPECT_NEAR(e.per_label[2].recall, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(e.per_label[2].f1, 0.8, 1e-12);
  EXPECT_NEAR(e.macro.precision, 0.5, 1e-12);
  EXPECT_NEAR(e.macro.recall, (1 + 0 + 2.0 / 3) / 3, 1e-12);
  EXPECT_NEAR(e.macro.f1, (2.0 / 3 + 0 + 0.8) / 3, 1e-12);
  EXPECT_NEAR(e.weighted.precision, (0.5 + 0 + 3) / 5, 1e-12);
  EXPECT_NEAR(e.weighted.recall, 0.6, 1e-12);
  EXPECT_NEAR(e.weighted.f1, (2.0 / 3 + 0 + 2.4) / 5, 1e-12);
  EXPECT_EQ(e.weighted.support, 5);
  const std::vector<std::vector<int64_t>> want = {{1, 0, 0}, {1, 0, 0}, {0, 1, 2}};
  EXPECT_EQ(e.confusion, want);
}

TEST(Metrics, ReportMatchesSklearnLayout) {
  // Verbatim from the scikit-learn documentation of classification_report.
  const std::string want =
      "              precision    recall  f1-score   support\n"
      "\n"
      "     class 0       0.50      1.00      0.67         1\n"
      "     class 1       0.00      0.00      0.00         1\n"
      "     class 2       1.00      0.67      0.80         3\n"
      "\n"
      "    accuracy                           0.60         5\n"
      "   macro avg       0.50      0.56      0.49         5\n"
      "weighted avg       0.70      0.60      0.61         5\n";
  EXPECT_EQ(classification_report(sklearn_example(), 2), want);
}

TEST(Metrics, ReportWidensForLongLabelsAndDigits) {
  MetricsAccumulator m({"a", "a_rather_long_label"});
  m.add("a", 0, 0.9);
  m.add("a_rather_long_label", 1, 0.9);
  const std::string report = classification_report(m.finish(), 4);
  // Names are right-aligned to the longest (19 characters), numbers 9 wide with 4 decimals.
  EXPECT_NE(report.find("\n                  a     1.0000    1.0000    1.0000         1\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.substr(0, 21 + 9), std::string(21, ' ') + "precision");
}

TEST(Metrics, LabelsWithoutSupportOrPredictionsAreLeftOut) {
  // "c" occurs neither as a true label nor as a prediction: like sklearn (labels=None), it has
  // no row and does not pull the macro average down.
  MetricsAccumulator m({"a", "b", "c"});
  m.add("a", 0, 0.9);
  m.add("b", 1, 0.9);
  const Evaluation e = m.finish();
  EXPECT_EQ(e.reported, (std::vector<bool>{true, true, false}));
  EXPECT_DOUBLE_EQ(e.macro.f1, 1.0);
  EXPECT_EQ(classification_report(e).find("  c "), std::string::npos);
  EXPECT_EQ(e.confusion.size(), 3u);  // the matrix keeps every model label
}

TEST(Metrics, PairAccuracyCountsAGroupRightOnlyIfEveryMemberIs) {
  MetricsAccumulator m({"x", "y"});
  m.add("x", 0, 0.9, "p1");  // p1: both right
  m.add("y", 1, 0.9, "p1");
  m.add("x", 0, 0.9, "p2");  // p2: one wrong
  m.add("y", 0, 0.9, "p2");
  m.add("x", 0, 0.9, "p3");  // p3: three members, all right
  m.add("x", 0, 0.9, "p3");
  m.add("y", 1, 0.9, "p3");
  m.add("y", 0, 0.9, "p4");  // p4: a lone member (wrong) is no pair and is ignored
  m.add("x", 0, 0.9);        // no pair id
  const Evaluation e = m.finish();
  EXPECT_EQ(e.pair_groups, 3);
  EXPECT_EQ(e.pair_groups_right, 2);
  ASSERT_TRUE(e.pair_accuracy.has_value());
  EXPECT_NEAR(*e.pair_accuracy, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(e.accuracy, 7.0 / 9.0, 1e-12);
}

TEST(Metrics, NoPairsGiveNullPairAccuracy) {
  MetricsAccumulator m({"x"});
  m.add("x", 0, 0.9);
  const Evaluation e = m.finish();
  EXPECT_FALSE(e.pair_accuracy.has_value());
  EXPECT_TRUE(evaluation_json(e)["pair_accuracy"].is_null());
}

TEST(Metrics, EceByHand) {
  // Bins of width 1/15: 0.9 -> bin 13 (acc 1/2, conf 0.9), 0.6 -> bin 8, 0.3 -> bin 4.
  // ECE = (|1 - 1.8| + |1 - 0.6| + |0 - 0.3|) / 4 = 1.5 / 4.
  MetricsAccumulator m({"x", "y"});
  m.add("x", 0, 0.9);
  m.add("y", 0, 0.9);
  m.add("x", 0, 0.6);
  m.add("y", 0, 0.3);
  EXPECT_NEAR(m.finish().ece, 0.375, 1e-12);
}

TEST(Metrics, EceEqualsCalibrationModule) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  MetricsAccumulator m({"x", "y"});
  std::vector<double> confidence;
  std::vector<bool> correct;
  for (int i = 0; i < 5000; ++i) {
    // Include the bin edges and 0 and 1 themselves.
    const double c = i % 50 == 0 ? (i % 16) / 15.0 : u(rng);
    const bool right = u(rng) < c;
    m.add("x", right ? 0 : 1, c);
    confidence.push_back(c);
    correct.push_back(right);
  }
  EXPECT_DOUBLE_EQ(m.finish().ece, expected_calibration_error(confidence, correct, kEceBins));
}

TEST(Metrics, CoverageAtThreshold) {
  MetricsAccumulator m({"x", "y"}, 0.5);
  m.add("x", 0, 0.9);  // covered, right
  m.add("y", 0, 0.9);  // covered, wrong
  m.add("x", 0, 0.5);  // covered (>= is covered), right
  m.add("y", 1, 0.3);  // not covered
  const Evaluation e = m.finish();
  ASSERT_TRUE(e.coverage.has_value());
  EXPECT_EQ(e.coverage->covered, 3);
  EXPECT_DOUBLE_EQ(e.coverage->coverage, 0.75);
  ASSERT_TRUE(e.coverage->accuracy.has_value());
  EXPECT_NEAR(*e.coverage->accuracy, 2.0 / 3.0, 1e-12);

  MetricsAccumulator none({"x"}, 0.99);
  none.add("x", 0, 0.5);
  const Evaluation n = none.finish();
  EXPECT_EQ(n.coverage->coverage, 0.0);
  EXPECT_FALSE(n.coverage->accuracy.has_value());
  EXPECT_FALSE(MetricsAccumulator({"x"}).finish().coverage.has_value());
}

TEST(Metrics, UnknownLabelsAreCountedNotScored) {
  MetricsAccumulator m({"x", "y"});
  m.add("x", 0, 0.9);
  m.add("refund", 0, 0.9);
  m.add("refund", 1, 0.9);
  m.add("other", 1, 0.9);
  const Evaluation e = m.finish();
  EXPECT_EQ(e.n, 1);
  EXPECT_EQ(e.n_unknown, 3);
  EXPECT_DOUBLE_EQ(e.accuracy, 1.0);
  EXPECT_EQ(e.unknown_labels.at("refund"), 2);
  EXPECT_EQ(e.unknown_labels.at("other"), 1);
  EXPECT_NE(evaluation_text(e).find("\"refund\" (2)"), std::string::npos);
}

TEST(Metrics, RankAndTopK) {
  const std::vector<float> probs = {0.2f, 0.5f, 0.2f, 0.1f};
  EXPECT_EQ(rank_of(probs, 1), 0);
  EXPECT_EQ(rank_of(probs, 0), 1);  // ties: the lower index ranks first
  EXPECT_EQ(rank_of(probs, 2), 2);
  EXPECT_EQ(rank_of(probs, 3), 3);
  MetricsAccumulator m({"a", "b", "c", "d"}, std::nullopt, 2);
  m.add("a", 1, 0.5, "", rank_of(probs, 0));  // in the top 2
  m.add("c", 1, 0.5, "", rank_of(probs, 2));  // third
  const Evaluation e = m.finish();
  EXPECT_EQ(e.top_k_right, 1);
  EXPECT_DOUBLE_EQ(e.top_k_accuracy, 0.5);
}

TEST(Metrics, JsonHasTheDocumentedKeys) {
  const auto j = evaluation_json(sklearn_example());
  for (const char* key : {"n", "accuracy", "macro_f1", "weighted_f1", "pair_accuracy", "ece",
                          "labels", "per_label", "macro_avg", "weighted_avg", "confusion",
                          "coverage", "top_k_accuracy", "n_unknown", "unknown_labels"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["n"], 5);
  EXPECT_DOUBLE_EQ(j["accuracy"].get<double>(), 0.6);
  EXPECT_NEAR(j["per_label"]["class 2"]["f1"].get<double>(), 0.8, 1e-12);
  EXPECT_EQ(j["per_label"]["class 2"]["support"], 3);
  EXPECT_EQ(j["confusion"][2][1], 1);
}

// Rows are true labels, numbered; columns carry the numbers, so the width follows the counts.
TEST(Metrics, ConfusionTextRowsAreTrueLabels) {
  const std::string text = confusion_text(sklearn_example());
  EXPECT_NE(text.find("        (1)  (2)  (3)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(3) class 2    0    1    2\n"), std::string::npos) << text;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    EXPECT_LE(end - start, 100u) << text;
  }
}

}  // namespace
}  // namespace router
