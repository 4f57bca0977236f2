// AdamW with decoupled weight decay (as torch.optim.AdamW), gradient clipping by global norm
// (as torch.nn.utils.clip_grad_norm_), and the learning-rate schedule: linear warm-up, then
// cosine decay to zero. The parameters are cut into fixed chunks (ParamChunks) that threads
// share out; sums over them are combined in chunk order, so results never depend on threads.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "nn/params.h"

namespace router {

// A slice [begin, end) of tensor `tensor` (an index into tensors(params)).
struct ParamChunk {
  int tensor;
  int64_t begin, end;
};

// The fixed chunks of a configuration: every tensor cut into pieces of at most 16,384 values.
std::vector<ParamChunk> param_chunks(const Config& config);

template <typename S>
class AdamW {
 public:
  AdamW(const Config& config, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8);
  // One update of every tensor; weight decay only where TensorRef::decay is set. The gradients
  // are used multiplied by grad_scale (the clipping factor), and are not modified. With
  // `average`, each chunk then also takes the step of update_average(*average, params,
  // average_decay) while it is in cache: the same values as the two calls one after the other.
  //
  // With embed_rows (sorted, distinct), the embedding table's other rows must have a zero
  // gradient, and their update is put off: catch_up replays it later, step by step with the same
  // operations on a zero gradient, so the values are those of updating every row every step. A
  // step touches a few hundred of the table's thousands of rows, and replaying a row's put-off
  // steps while it is in cache costs less than streaming the whole table through memory each
  // step.
  void step(Params<S>& params, const Params<S>& grads, double lr, double weight_decay,
            int threads = 1, double grad_scale = 1.0, Params<S>* average = nullptr,
            double average_decay = 0, const std::vector<int32_t>* embed_rows = nullptr);
  // Brings these embedding rows (sorted, distinct; all of them when null) of params, and of
  // `average` when steps had one, up to date: before anything reads them.
  void catch_up(Params<S>& params, Params<S>* average, const std::vector<int32_t>* rows,
                int threads = 1);
  int64_t steps() const { return t_; }
  // The whole state when every row is up to date (after catch_up of every row), for a
  // checkpoint: the moments and the step count. Read or set only then.
  const Params<S>& first_moments() const { return m_; }
  const Params<S>& second_moments() const { return v_; }
  void restore(Params<S> first_moments, Params<S> second_moments, int64_t steps) {
    m_ = std::move(first_moments), v_ = std::move(second_moments), t_ = steps;
    history_.clear(), row_steps_.clear(), history_base_ = steps;
  }
  // Steps whose constants are kept for put-off rows: since every row was last up to date.
  int64_t steps_kept() const { return static_cast<int64_t>(history_.size()); }

  // What one step applies to every value, kept for the put-off rows.
  struct StepConstants {
    S step_size, bc2_sqrt, decay, scale, keep, take;
    bool averaged;
  };

 private:
  Params<S> m_, v_;
  std::vector<ParamChunk> other_chunks_;  // param_chunks but the embedding table's, taken by rows
  double beta1_, beta2_, eps_;
  int64_t t_ = 0;
  // The put-off steps of these rows (all when null), up to `target` steps in all.
  void replay(Params<S>& params, Params<S>* average, const std::vector<int32_t>* rows,
              int64_t target, int threads);
  std::vector<StepConstants> history_;  // step t's at t - 1 - history_base_
  int64_t history_base_ = 0;            // every row has taken at least this many steps
  std::vector<int64_t> row_steps_;      // per embedding row: the steps it has taken
};

// Scales all gradients so that their global L2 norm is at most max_norm; returns the norm
// before scaling.
template <typename S>
double clip_grad_norm(Params<S>& grads, double max_norm, int threads = 1);

// total += each of parts (in order), chunk by chunk on `threads` threads; returns the global L2
// norm of the new total. With clip_scale, the same as clip_grad_norm without a second pass.
// With embed_rows (sorted, distinct), only those rows of the embedding table are added and
// counted: a batch's gradient is zero on the rows of tokens it does not contain, which are most.
template <typename S>
double add_grads(Params<S>& total, const std::vector<Params<S>*>& parts, int threads = 1,
                 const std::vector<int32_t>* embed_rows = nullptr);

// avg = decay * avg + (1 - decay) * params, value by value: one step of an exponential moving
// average of the weights.
template <typename S>
void update_average(Params<S>& avg, const Params<S>& params, double decay, int threads = 1);

// The factor clip_grad_norm applies for a gradient of L2 norm `norm`: 1 when within max_norm.
double clip_scale(double norm, double max_norm);

// Learning rate at `step` (0-based) of `total`: linear warm-up over the first warmup_share of the
// steps, then cosine decay to 0.
double learning_rate(int64_t step, int64_t total, double warmup_share, double base_lr);

}  // namespace router
