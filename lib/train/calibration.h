// Confidence calibration: expected calibration error, and temperature scaling (one scalar T
// dividing the logits, fitted to minimise validation negative log-likelihood).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "nn/tensor.h"

namespace router {

// Number of equal-width confidence bins of the expected calibration error.
inline constexpr int kEceBins = 15;

// The expected calibration error, sum_b |B_b|/n |acc(B_b) - conf(B_b)|, kept as running sums so
// that a stream of any length needs 2 * bins numbers: bin b holds confidences in
// (b/bins, (b+1)/bins], 0 in the first. The one definition of ECE (training, eval, batch).
class CalibrationBins {
 public:
  explicit CalibrationBins(int bins = kEceBins);
  void add(double confidence, bool right);
  double error() const;  // 0 when nothing was added
 private:
  std::vector<double> confidence_, right_;
  int64_t n_ = 0;
};

// CalibrationBins over whole lists.
double expected_calibration_error(const std::vector<double>& confidence,
                                  const std::vector<bool>& correct, int bins = kEceBins);

// Mean negative log-likelihood of softmax(logits / T) at the targets. logits: (n, K)
double nll_at_temperature(const Mat<float>& logits, const std::vector<int>& targets, double T);

// argmin over T in [0.05, 20] of nll_at_temperature (golden-section search on log T).
double fit_temperature(const Mat<float>& logits, const std::vector<int>& targets);

// Temperature scaling only where it helps on data it was not fitted on: T is fitted on the
// even-numbered rows and judged by ECE on the odd ones. When it lowers ECE there, the T fitted on
// every row is chosen (`applied`); otherwise 1, no scaling. Fewer than 4 rows: no scaling.
struct TemperatureChoice {
  double temperature = 1;
  bool applied = false;
  double check_without = 0, check_with = 0;  // ECE of the odd rows at T = 1 and at the even rows' T
};
TemperatureChoice choose_temperature(const Mat<float>& logits, const std::vector<int>& targets);

// "None of these": the score (Rejection::Score: confidence, or the probability of being in scope)
// below which a prediction is rejected, learned on validation data. `in_scope`: (score, right) of
// each email with an in-scope label; `out_of_scope`: (score, caught) of each out-of-scope one,
// caught when the model predicted the out-of-scope label itself. The threshold is the one that
// catches the most out-of-scope emails while the in-scope accuracy falls by at most kRejectCost
// from what it is with nothing rejected (halfway between two neighbouring scores; on a tie, the
// lowest): "none of these" must not cost much of the mail the model can route. With no
// out-of-scope example, it rejects the lowest-scored kRejectShare of the in-scope emails.
inline constexpr double kRejectCost = 0.01;
inline constexpr double kRejectShare = 0.05;
double choose_rejection(std::vector<std::pair<double, bool>> in_scope,
                        const std::vector<std::pair<double, bool>>& out_of_scope);

// Confidence and correctness of each row at temperature T.
void confidences(const Mat<float>& logits, const std::vector<int>& targets, double T,
                 std::vector<double>& confidence, std::vector<bool>& correct);
// The probability that each row's email is in scope at temperature T: 1 - that of label `oos`
// (Rejection::Score::kInScope).
std::vector<double> in_scope_probabilities(const Mat<float>& logits, int oos, double T);

}  // namespace router
