// AdamW with decoupled weight decay (as torch.optim.AdamW), gradient clipping by global norm
// (as torch.nn.utils.clip_grad_norm_), and the learning-rate schedule: linear warm-up, then
// cosine decay to zero. Reductions run over tensors in their fixed order, so results never
// depend on threads.
#pragma once

#include <cstdint>

#include "params.h"

namespace router {

template <typename S>
class AdamW {
 public:
  AdamW(const Config& config, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8);
  // One update of every tensor; weight decay only where TensorRef::decay is set.
  void step(Params<S>& params, Params<S>& grads, double lr, double weight_decay);
  int64_t steps() const { return t_; }

 private:
  Params<S> m_, v_;
  double beta1_, beta2_, eps_;
  int64_t t_ = 0;
};

// Scales all gradients so that their global L2 norm is at most max_norm; returns the norm
// before scaling.
template <typename S>
double clip_grad_norm(Params<S>& grads, double max_norm);

// Learning rate at `step` (0-based) of `total`: linear warm-up over the first warmup_share of the
// steps, then cosine decay to 0.
double learning_rate(int64_t step, int64_t total, double warmup_share, double base_lr);

}  // namespace router
