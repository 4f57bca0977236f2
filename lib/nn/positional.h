// The sinusoidal positional encoding of the original transformer:
//   P[pos, 2i] = sin(pos / 10000^(2i/D)),  P[pos, 2i+1] = cos(pos / 10000^(2i/D)).
// Computed in double and rounded once, so float and double models see the same table.
#pragma once

#include "nn/tensor.h"

namespace router {

// (n_positions, d_model) -> table; d_model may be odd (the last column is then a sine).
// Row r holds position first + r, so a table can be built in pieces.
Mat<double> sinusoid_table(int n_positions, int d_model, int first = 0);

}  // namespace router
