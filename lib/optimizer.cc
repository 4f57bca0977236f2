#include "optimizer.h"

#include <cmath>

namespace router {

template <typename S>
AdamW<S>::AdamW(const Config& config, double beta1, double beta2, double eps)
    : m_(zeros_like_config<S>(config)),
      v_(zeros_like_config<S>(config)),
      beta1_(beta1),
      beta2_(beta2),
      eps_(eps) {}

template <typename S>
void AdamW<S>::step(Params<S>& params, Params<S>& grads, double lr, double weight_decay) {
  ++t_;
  const double bc1 = 1.0 - std::pow(beta1_, static_cast<double>(t_));
  const double bc2 = 1.0 - std::pow(beta2_, static_cast<double>(t_));
  auto p = tensors(params), g = tensors(grads), m = tensors(m_), v = tensors(v_);
  for (size_t i = 0; i < p.size(); ++i) {
    const double decay = p[i].decay ? 1.0 - lr * weight_decay : 1.0;
    for (int64_t k = 0; k < p[i].size; ++k) {
      const double gk = g[i].data[k];
      const double mk = beta1_ * m[i].data[k] + (1.0 - beta1_) * gk;
      const double vk = beta2_ * v[i].data[k] + (1.0 - beta2_) * gk * gk;
      m[i].data[k] = static_cast<S>(mk);
      v[i].data[k] = static_cast<S>(vk);
      // p = p (1 - lr wd) - lr mhat / (sqrt(vhat) + eps)
      const double pk = p[i].data[k] * decay;
      p[i].data[k] = static_cast<S>(pk - lr * (mk / bc1) / (std::sqrt(vk / bc2) + eps_));
    }
  }
}

template <typename S>
double clip_grad_norm(Params<S>& grads, double max_norm) {
  double sq = 0;
  auto g = tensors(grads);
  for (const auto& t : g) {
    for (int64_t k = 0; k < t.size; ++k) sq += static_cast<double>(t.data[k]) * t.data[k];
  }
  const double norm = std::sqrt(sq);
  if (max_norm > 0 && norm > max_norm) {
    const S scale = static_cast<S>(max_norm / (norm + 1e-6));
    for (auto& t : g) {
      for (int64_t k = 0; k < t.size; ++k) t.data[k] *= scale;
    }
  }
  return norm;
}

double learning_rate(int64_t step, int64_t total, double warmup_share, double base_lr) {
  const double warm = std::floor(warmup_share * static_cast<double>(total));
  if (step < warm) return base_lr * (step + 1) / warm;
  const double span = std::max(1.0, static_cast<double>(total) - warm);
  const double progress = std::min(1.0, (step - warm) / span);
  return base_lr * 0.5 * (1.0 + std::cos(3.14159265358979323846 * progress));
}

template class AdamW<float>;
template class AdamW<double>;
template double clip_grad_norm<float>(Params<float>&, double);
template double clip_grad_norm<double>(Params<double>&, double);

}  // namespace router
