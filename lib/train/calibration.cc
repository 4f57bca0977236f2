#include "train/calibration.h"

#include <algorithm>
#include <cmath>

namespace router {

CalibrationBins::CalibrationBins(int bins) : confidence_(bins, 0.0), right_(bins, 0.0) {}

void CalibrationBins::add(double confidence, bool right) {
  const int bins = static_cast<int>(confidence_.size());
  const int b = std::min(std::max(static_cast<int>(std::ceil(confidence * bins)) - 1, 0), bins - 1);
  confidence_[b] += confidence;
  right_[b] += right ? 1.0 : 0.0;
  ++n_;
}

double CalibrationBins::error() const {
  double ece = 0;
  if (n_ == 0) return ece;
  const double n = static_cast<double>(n_);
  for (size_t b = 0; b < confidence_.size(); ++b) ece += std::abs(right_[b] - confidence_[b]) / n;
  return ece;
}

double expected_calibration_error(const std::vector<double>& confidence,
                                  const std::vector<bool>& correct, int bins) {
  CalibrationBins ece(bins);
  for (size_t i = 0; i < confidence.size(); ++i) ece.add(confidence[i], correct[i]);
  return ece.error();
}

namespace {

// Row i's softmax denominator at temperature T, shifted by its largest scaled logit `mx`:
// sum_k exp(logits(i, k) / T - mx).
double shifted_sum(const Mat<float>& logits, Eigen::Index i, double T, double mx) {
  double sum = 0;
  for (Eigen::Index k = 0; k < logits.cols(); ++k) sum += std::exp(logits(i, k) / T - mx);
  return sum;
}

double max_scaled(const Mat<float>& logits, Eigen::Index i, double T) {
  double mx = -INFINITY;
  for (Eigen::Index k = 0; k < logits.cols(); ++k) mx = std::max(mx, logits(i, k) / T);
  return mx;
}

}  // namespace

double nll_at_temperature(const Mat<float>& logits, const std::vector<int>& targets, double T) {
  double total = 0;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const double mx = max_scaled(logits, i, T);
    const double sum = shifted_sum(logits, i, T, mx);
    total -= logits(i, targets[i]) / T - mx - std::log(sum);
  }
  return total / std::max<Eigen::Index>(1, logits.rows());
}

double fit_temperature(const Mat<float>& logits, const std::vector<int>& targets) {
  double lo = std::log(0.05), hi = std::log(20.0);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  double fa = nll_at_temperature(logits, targets, std::exp(a));
  double fb = nll_at_temperature(logits, targets, std::exp(b));
  for (int it = 0; it < 80; ++it) {
    if (fa < fb) {
      hi = b, b = a, fb = fa;
      a = hi - g * (hi - lo);
      fa = nll_at_temperature(logits, targets, std::exp(a));
    } else {
      lo = a, a = b, fa = fb;
      b = lo + g * (hi - lo);
      fb = nll_at_temperature(logits, targets, std::exp(b));
    }
  }
  return std::exp((lo + hi) / 2);
}

void confidences(const Mat<float>& logits, const std::vector<int>& targets, double T,
                 std::vector<double>& confidence, std::vector<bool>& correct) {
  confidence.clear();
  correct.clear();
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    Eigen::Index best = 0;
    double mx = -INFINITY;
    for (Eigen::Index k = 0; k < logits.cols(); ++k) {
      if (logits(i, k) / T > mx) mx = logits(i, k) / T, best = k;
    }
    confidence.push_back(1.0 / shifted_sum(logits, i, T, mx));
    correct.push_back(best == targets[i]);
  }
}

std::vector<double> in_scope_probabilities(const Mat<float>& logits, int oos, double T) {
  std::vector<double> out;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const double mx = max_scaled(logits, i, T);
    out.push_back(1.0 - std::exp(logits(i, oos) / T - mx) / shifted_sum(logits, i, T, mx));
  }
  return out;
}

double choose_rejection(std::vector<std::pair<double, bool>> in_scope,
                        const std::vector<std::pair<double, bool>>& out_of_scope) {
  std::sort(in_scope.begin(), in_scope.end());
  if (in_scope.empty()) return 0;
  if (out_of_scope.empty()) {
    const size_t k = static_cast<size_t>(kRejectShare * static_cast<double>(in_scope.size()));
    return k == 0 ? 0 : (in_scope[k - 1].first + in_scope[k].first) / 2;
  }
  // Every confidence, in-scope (+1 right) and out-of-scope (+1 not caught by the model), sorted:
  // a threshold between two of them rejects all below it.
  struct Point {
    double confidence;
    bool in_scope, counts;
  };
  std::vector<Point> points;
  for (const auto& [c, right] : in_scope) points.push_back({c, true, right});
  for (const auto& [c, caught] : out_of_scope) points.push_back({c, false, !caught});
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.confidence < b.confidence; });
  const double n_in = static_cast<double>(in_scope.size());
  double right = 0, caught = 0;  // at threshold 0: nothing rejected
  for (const auto& [c, r] : in_scope) right += r;
  for (const auto& [c, k] : out_of_scope) caught += k;
  const double floor = right / n_in - kRejectCost;
  double best = caught, threshold = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    // Reject points[i] (and, as the threshold passes it, those equal to it).
    if (points[i].in_scope) {
      right -= points[i].counts;
    } else {
      caught += points[i].counts;
    }
    if (i + 1 < points.size() && points[i + 1].confidence == points[i].confidence) continue;
    if (right / n_in < floor) break;  // higher thresholds only cost more
    const double next = i + 1 < points.size() ? points[i + 1].confidence : 1.0;
    if (caught > best) best = caught, threshold = (points[i].confidence + next) / 2;
  }
  return threshold;
}

TemperatureChoice choose_temperature(const Mat<float>& logits, const std::vector<int>& targets) {
  TemperatureChoice c;
  const int n = static_cast<int>(logits.rows());
  if (n < 4) return c;
  const int fit_rows = (n + 1) / 2, check_rows = n / 2;
  Mat<float> fit(fit_rows, logits.cols()), check(check_rows, logits.cols());
  std::vector<int> fit_y, check_y;
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      fit.row(i / 2) = logits.row(i);
      fit_y.push_back(targets[i]);
    } else {
      check.row(i / 2) = logits.row(i);
      check_y.push_back(targets[i]);
    }
  }
  std::vector<double> conf;
  std::vector<bool> right;
  confidences(check, check_y, 1.0, conf, right);
  c.check_without = expected_calibration_error(conf, right);
  confidences(check, check_y, fit_temperature(fit, fit_y), conf, right);
  c.check_with = expected_calibration_error(conf, right);
  c.applied = c.check_with < c.check_without;
  if (c.applied) c.temperature = fit_temperature(logits, targets);
  return c;
}

}  // namespace router
