#include "train/optimizer.h"

#include <algorithm>
#include <cmath>

#include "base/parallel.h"

namespace router {

namespace {

constexpr int64_t kChunk = 16384;

template <typename S>
using ArrayMap = Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>;

template <typename S>
using ReadMap = Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>;

template <typename S>
ArrayMap<S> slice(const TensorRef<S>& t, const ParamChunk& c) {
  return ArrayMap<S>(t.data + c.begin, c.end - c.begin);
}
template <typename S>
ReadMap<S> read_slice(const TensorRef<const S>& t, const ParamChunk& c) {
  return ReadMap<S>(t.data + c.begin, c.end - c.begin);
}

// One chunk of update_average: A = keep * A + take * P (P an ArrayMap or a ReadMap).
template <typename S, typename Values>
void average_into(ArrayMap<S> A, const Values& P, S keep, S take) {
  A = keep * A + take * P;
}

template <typename S>
std::vector<ParamChunk> chunks_of(const std::vector<TensorRef<S>>& refs) {
  std::vector<ParamChunk> out;
  for (size_t i = 0; i < refs.size(); ++i) {
    for (int64_t b = 0; b < refs[i].size; b += kChunk) {
      out.push_back({static_cast<int>(i), b, std::min(refs[i].size, b + kChunk)});
    }
  }
  return out;
}

}  // namespace

std::vector<ParamChunk> param_chunks(const Config& config) {
  Params<float> shapes = zeros_like_config<float>(config);
  return chunks_of(tensors(shapes));
}

namespace {

// The chunks of every tensor but the embedding table (tensor 0).
std::vector<ParamChunk> without_embedding(std::vector<ParamChunk> chunks) {
  std::erase_if(chunks, [](const ParamChunk& c) { return c.tensor == 0; });
  return chunks;
}

// The embedding table's rows `rows` (all n_rows of them when null) one row a chunk, then `rest`.
// AdamW takes the table this way in every step, so a row's update is the same operation whether
// it is put off or not: Eigen's vectorised loop does a slice's values outside its whole aligned
// vectors one by one, and where those fall depends on the slice (a row of 8 floats is all
// leftovers for AVX-512's 16, and its packet square root rounds otherwise than a scalar one).
std::vector<ParamChunk> with_embedding_rows(const std::vector<int32_t>* rows, int64_t n_rows,
                                            int64_t width, const std::vector<ParamChunk>& rest) {
  std::vector<ParamChunk> chunks;
  auto add = [&](int64_t r) { chunks.push_back({0, r * width, (r + 1) * width}); };
  if (rows) {
    for (int32_t r : *rows) add(r);
  } else {
    for (int64_t r = 0; r < n_rows; ++r) add(r);
  }
  chunks.insert(chunks.end(), rest.begin(), rest.end());
  return chunks;
}

}  // namespace

template <typename S>
AdamW<S>::AdamW(const Config& config, double beta1, double beta2, double eps)
    : m_(zeros_like_config<S>(config)),
      v_(zeros_like_config<S>(config)),
      other_chunks_(without_embedding(param_chunks(config))),
      beta1_(beta1),
      beta2_(beta2),
      eps_(eps) {}

namespace {

// One step of AdamW on a chunk, then of the average (A, when `k.averaged`): the same operations,
// in the same order, as torch.optim.AdamW (single-tensor path). G is the unscaled gradient.
template <typename S, typename Grads, typename Constants>
void adamw_chunk(ArrayMap<S> P, ArrayMap<S> M, ArrayMap<S> V, const Grads& G, ArrayMap<S> A,
                 bool decays, S b1, S b2, S eps, const Constants& k) {
  if (decays) P *= k.decay;
  if (k.scale == S(1)) {
    M = b1 * M + (S(1) - b1) * G;
    V = b2 * V + (S(1) - b2) * G.square();
  } else {
    const auto Gs = G * k.scale;
    M = b1 * M + (S(1) - b1) * Gs;
    V = b2 * V + (S(1) - b2) * Gs.square();
  }
  P -= k.step_size * M / (V.sqrt() / k.bc2_sqrt + eps);
  if (k.averaged) average_into(A, P, k.keep, k.take);
}

}  // namespace

template <typename S>
void AdamW<S>::step(Params<S>& params, const Params<S>& grads, double lr, double weight_decay,
                    int threads, double grad_scale, Params<S>* average, double average_decay,
                    const std::vector<int32_t>* embed_rows) {
  ++t_;
  const S b1 = static_cast<S>(beta1_), b2 = static_cast<S>(beta2_), eps = static_cast<S>(eps_);
  StepConstants k;
  k.step_size = static_cast<S>(lr / (1.0 - std::pow(beta1_, static_cast<double>(t_))));
  k.bc2_sqrt = static_cast<S>(std::sqrt(1.0 - std::pow(beta2_, static_cast<double>(t_))));
  k.decay = static_cast<S>(1.0 - lr * weight_decay);
  k.scale = static_cast<S>(grad_scale);
  k.keep = static_cast<S>(average_decay), k.take = static_cast<S>(1.0 - average_decay);
  k.averaged = average != nullptr;
  const auto p = tensors(params), m = tensors(m_), v = tensors(v_);
  const auto g = tensors(grads);
  const auto a = average ? tensors(*average) : std::vector<TensorRef<S>>{};
  const int64_t width = params.embed.cols();
  if (!embed_rows && !row_steps_.empty()) {  // every row takes this step: none stays behind
    replay(params, average, nullptr, t_ - 1, threads);
    row_steps_.clear();
    history_.clear();
  }
  if (embed_rows) {
    if (row_steps_.empty()) {
      row_steps_.assign(params.embed.rows(), t_ - 1);
      history_.clear();
      history_base_ = t_ - 1;
    }
    history_.push_back(k);
    replay(params, average, embed_rows, t_ - 1, threads);
  }
  const std::vector<ParamChunk> chunks =
      with_embedding_rows(embed_rows, params.embed.rows(), width, other_chunks_);
  parallel_for(static_cast<int>(chunks.size()), threads, [&](int i) {
    const ParamChunk& c = chunks[i];
    adamw_chunk(slice(p[c.tensor], c), slice(m[c.tensor], c), slice(v[c.tensor], c),
                read_slice(g[c.tensor], c),
                average ? slice(a[c.tensor], c) : ArrayMap<S>(nullptr, 0), p[c.tensor].decay, b1,
                b2, eps, k);
  });
  if (embed_rows) {
    for (int32_t r : *embed_rows) row_steps_[r] = t_;
  }
}

template <typename S>
void AdamW<S>::catch_up(Params<S>& params, Params<S>* average, const std::vector<int32_t>* rows,
                        int threads) {
  replay(params, average, rows, t_, threads);
  if (!rows) {  // every row is up to date: no step needs replaying any more
    history_.clear();
    history_base_ = t_;
  }
}

template <typename S>
void AdamW<S>::replay(Params<S>& params, Params<S>* average, const std::vector<int32_t>* rows,
                      int64_t target, int threads) {
  if (row_steps_.empty()) return;  // nothing put off
  const S b1 = static_cast<S>(beta1_), b2 = static_cast<S>(beta2_), eps = static_cast<S>(eps_);
  const int64_t width = params.embed.cols();
  std::vector<int32_t> all;
  if (!rows) {
    all.resize(row_steps_.size());
    for (size_t r = 0; r < all.size(); ++r) all[r] = static_cast<int32_t>(r);
    rows = &all;
  }
  const int n = static_cast<int>(rows->size());
  if (std::all_of(rows->begin(), rows->end(), [&](int32_t r) { return row_steps_[r] >= target; })) {
    return;  // as in a step right after catch_up
  }
  const bool decays = tensors(params)[0].decay;
  const std::vector<S> zeros(width, S(0));
  // Rows in small groups: a row's put-off steps range from none to thousands, so the threads
  // take groups as they go.
  constexpr int kGroup = 4;
  parallel_for((n + kGroup - 1) / kGroup, threads, [&](int j) {
    for (int i = j * kGroup; i < std::min(n, (j + 1) * kGroup); ++i) {
      const int32_t r = (*rows)[i];
      const int64_t at = r * width;
      const ArrayMap<S> P(params.embed.data() + at, width), M(m_.embed.data() + at, width),
          V(v_.embed.data() + at, width), G(const_cast<S*>(zeros.data()), width);
      for (int64_t s = row_steps_[r]; s < target; ++s) {
        const StepConstants& k = history_[s - history_base_];
        adamw_chunk(
            P, M, V, G,
            k.averaged ? ArrayMap<S>(average->embed.data() + at, width) : ArrayMap<S>(nullptr, 0),
            decays, b1, b2, eps, k);
      }
      row_steps_[r] = std::max(row_steps_[r], target);
    }
  });
}

template <typename S>
double clip_grad_norm(Params<S>& grads, double max_norm, int threads) {
  const double norm = add_grads<S>(grads, {}, threads);  // nothing to add: just the norm
  const double factor = clip_scale(norm, max_norm);
  if (factor != 1.0) {
    const S scale = static_cast<S>(factor);
    for (const auto& t : tensors(grads)) ArrayMap<S>(t.data, t.size) *= scale;
  }
  return norm;
}

template <typename S>
void update_average(Params<S>& avg, const Params<S>& params, double decay, int threads) {
  const auto a = tensors(avg);
  const auto p = tensors(params);
  const std::vector<ParamChunk> chunks = chunks_of(a);
  const S keep = static_cast<S>(decay), take = static_cast<S>(1.0 - decay);
  parallel_for(static_cast<int>(chunks.size()), threads, [&](int i) {
    const ParamChunk& c = chunks[i];
    average_into(slice(a[c.tensor], c), read_slice(p[c.tensor], c), keep, take);
  });
}

double clip_scale(double norm, double max_norm) {
  return max_norm > 0 && norm > max_norm ? max_norm / (norm + 1e-6) : 1.0;
}

template <typename S>
double add_grads(Params<S>& total, const std::vector<Params<S>*>& parts, int threads,
                 const std::vector<int32_t>* embed_rows) {
  const auto t = tensors(total);
  std::vector<std::vector<TensorRef<S>>> q;
  for (Params<S>* part : parts) q.push_back(tensors(*part));
  // With embed_rows, one chunk per listed row of the embedding table instead of its fixed chunks.
  const std::vector<ParamChunk> chunks =
      embed_rows
          ? with_embedding_rows(embed_rows, 0, total.embed.cols(), without_embedding(chunks_of(t)))
          : chunks_of(t);
  std::vector<double> partial(chunks.size());
  parallel_for(static_cast<int>(chunks.size()), threads, [&](int i) {
    const ParamChunk& c = chunks[i];
    auto T = slice(t[c.tensor], c);
    for (const auto& part : q) T += slice(part[c.tensor], c);  // parts in order
    partial[i] = T.template cast<double>().square().sum();
  });
  double sq = 0;
  for (double x : partial) sq += x;  // chunk order: the same for any `threads`
  return std::sqrt(sq);
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
template double clip_grad_norm<float>(Params<float>&, double, int);
template double clip_grad_norm<double>(Params<double>&, double, int);
template void update_average<float>(Params<float>&, const Params<float>&, double, int);
template void update_average<double>(Params<double>&, const Params<double>&, double, int);
template double add_grads<float>(Params<float>&, const std::vector<Params<float>*>&, int,
                                 const std::vector<int32_t>*);
template double add_grads<double>(Params<double>&, const std::vector<Params<double>*>&, int,
                                  const std::vector<int32_t>*);

}  // namespace router
