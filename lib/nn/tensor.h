// Matrix types shared by every layer. Activations are row-major (one row per token), weights
// follow PyTorch's Linear layout (out, in), so `y = x W^T` and a state_dict maps 1:1.
// Everything is templated on the scalar S: float for work, double for gradient checks.
#pragma once

#include <Eigen/Dense>

namespace router {

template <typename S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
template <typename S>
using RowVec = Eigen::Matrix<S, 1, Eigen::Dynamic>;

}  // namespace router
