// Helpers shared by the tests: fixture paths, loading tensors from the PyTorch fixtures, and a
// comparison that names the tensor, the index, and expected vs got on failure.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tensor.h"

namespace router::test {

inline std::string source_path(const std::string& relative) {
  return std::string(ROUTER_SOURCE_DIR) + "/" + relative;
}

inline nlohmann::json load_json(const std::string& relative) {
  std::ifstream in(source_path(relative));
  EXPECT_TRUE(in.good()) << "missing fixture " << relative;
  return nlohmann::json::parse(in);
}

// A fixture tensor {"shape", "data"} as a (rows, cols) matrix: the last axis is the columns.
template <typename S>
Mat<S> as_matrix(const nlohmann::json& t) {
  const auto shape = t.at("shape").get<std::vector<int64_t>>();
  const auto data = t.at("data").get<std::vector<double>>();
  const int64_t cols = shape.empty() ? 1 : shape.back();
  const int64_t rows = cols ? static_cast<int64_t>(data.size()) / cols : 0;
  Mat<S> m(rows, cols);
  for (int64_t i = 0; i < static_cast<int64_t>(data.size()); ++i) m.data()[i] = static_cast<S>(data[i]);
  return m;
}

template <typename S>
Vec<S> as_vector(const nlohmann::json& t) {
  const auto data = t.at("data").get<std::vector<double>>();
  Vec<S> v(static_cast<Eigen::Index>(data.size()));
  for (size_t i = 0; i < data.size(); ++i) v(static_cast<Eigen::Index>(i)) = static_cast<S>(data[i]);
  return v;
}

// |got - want| <= atol + rtol |want| for every element; reports the first failures by index.
template <typename A, typename B>
::testing::AssertionResult all_close(const std::string& name, const A& got, const B& want,
                                     double atol, double rtol = 0) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    return ::testing::AssertionFailure()
           << name << ": shape (" << got.rows() << ", " << got.cols() << ") != expected ("
           << want.rows() << ", " << want.cols() << ")";
  }
  std::ostringstream bad;
  int n_bad = 0;
  for (Eigen::Index i = 0; i < got.rows(); ++i) {
    for (Eigen::Index j = 0; j < got.cols(); ++j) {
      const double g = static_cast<double>(got(i, j)), w = static_cast<double>(want(i, j));
      if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
        if (n_bad < 5) {
          bad << "\n  " << name << "[" << i << ", " << j << "]: expected " << w << ", got " << g
              << " (diff " << std::abs(g - w) << ")";
        }
        ++n_bad;
      }
    }
  }
  if (n_bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << n_bad << " element(s) differ:" << bad.str();
}

}  // namespace router::test
