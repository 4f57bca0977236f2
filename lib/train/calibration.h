// Confidence calibration: expected calibration error, and temperature scaling (one scalar T
// dividing the logits, fitted to minimise validation negative log-likelihood).
#pragma once

#include <vector>

#include "nn/tensor.h"

namespace router {

// ECE with `bins` equal-width confidence bins: sum_b |B_b|/n |acc(B_b) - conf(B_b)|.
double expected_calibration_error(const std::vector<double>& confidence,
                                  const std::vector<bool>& correct, int bins = 15);

// Mean negative log-likelihood of softmax(logits / T) at the targets. logits: (n, K)
double nll_at_temperature(const Mat<float>& logits, const std::vector<int>& targets, double T);

// argmin over T in [0.05, 20] of nll_at_temperature (golden-section search on log T).
double fit_temperature(const Mat<float>& logits, const std::vector<int>& targets);

// Confidence and correctness of each row at temperature T.
void confidences(const Mat<float>& logits, const std::vector<int>& targets, double T,
                 std::vector<double>& confidence, std::vector<bool>& correct);

}  // namespace router
