#include "positional.h"

#include <cmath>

namespace router {

Mat<double> sinusoid_table(int n_positions, int d_model) {
  Mat<double> table(n_positions, d_model);
  for (int pos = 0; pos < n_positions; ++pos) {
    for (int col = 0; col < d_model; ++col) {
      int pair = col / 2;  // i in the formula: columns 2i and 2i+1 share one frequency
      double angle = pos / std::pow(10000.0, 2.0 * pair / d_model);
      table(pos, col) = (col % 2 == 0) ? std::sin(angle) : std::cos(angle);
    }
  }
  return table;
}

}  // namespace router
