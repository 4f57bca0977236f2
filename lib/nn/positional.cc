#include "nn/positional.h"

#include <cmath>
#include <vector>

namespace router {

Mat<double> sinusoid_table(int n_positions, int d_model, int first) {
  Mat<double> table(n_positions, d_model);
  // i in the formula: columns 2i and 2i+1 share one wavelength (computed once, not per row).
  std::vector<double> wavelength(static_cast<size_t>(d_model));
  for (int col = 0; col < d_model; ++col) {
    wavelength[col] = std::pow(10000.0, 2.0 * (col / 2) / d_model);
  }
  for (int row = 0; row < n_positions; ++row) {
    const int pos = first + row;
    for (int col = 0; col < d_model; ++col) {
      const double angle = pos / wavelength[col];
      table(row, col) = (col % 2 == 0) ? std::sin(angle) : std::cos(angle);
    }
  }
  return table;
}

}  // namespace router
