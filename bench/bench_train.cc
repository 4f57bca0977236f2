// Training cost: one shard of a training step (16 emails, forward with dropout, backward), as
// each thread of `router train` runs it, on the built-in model's shapes and weights. The emails
// are consecutive test emails sorted by length, so a shard has the padding training sees. The
// FLOPS counter is 3x the forward arithmetic (the backward pass does two products per forward
// one), real tokens only.
#include <benchmark/benchmark.h>

#include "bench_support.h"
#include "train/trainer.h"

namespace router::bench {
namespace {

// The shard of a batch of 32 (shard_size): that many test emails of about n tokens each (those at
// and after the first of length >= n, in length order), with fixed dropout keys.
Batch shard_near(int n) {
  constexpr size_t kShard = shard_size(32);
  const auto& ids = test_ids();
  const auto& order = test_ids_by_length();
  size_t lo = 0;
  while (lo + kShard < order.size() && static_cast<int>(ids[order[lo]].size()) < n) ++lo;
  std::vector<const std::vector<int32_t>*> seqs;
  for (size_t j = lo; j < lo + kShard; ++j) seqs.push_back(&ids[order[j]]);
  Batch batch = make_batch(seqs);
  for (int b = 0; b < batch.B; ++b) {
    batch.targets.push_back(b % crumb().config().num_labels);
    batch.keys.push_back(0x9e3779b97f4a7c15ULL * (b + 1));
  }
  return batch;
}

void BM_TrainShard(benchmark::State& state) {
  const Model& m = crumb();
  const Config& c = m.config();
  const Batch batch = shard_near(static_cast<int>(state.range(0)));
  Params<float> grads = zeros_like_config<float>(c);
  ForwardCache<float> cache;
  for (auto _ : state) {
    encoder_forward(m.params(), c, m.positions(), batch, 0.1, cache);
    Mat<float> dlogits;
    softmax_xent(cache.logits, batch.targets, 0.1, dlogits);
    // As train_model clears a shard's gradients: all but the embedding table (1 MiB here),
    // whose only non-zero rows, the batch's tokens, are cleared after the step.
    set_zero_except_embedding(grads);
    encoder_backward(m.params(), c, batch, 0.1, cache, dlogits, grads);
    benchmark::DoNotOptimize(grads.embed.data());
    for (int32_t id : batch.ids) grads.embed.row(id).setZero();
  }
  double flops = 0;
  for (int len : batch.lengths) flops += 3 * forward_flops(c, len);
  set_flops(state, flops);
  state.counters["T"] = batch.T;
  state.SetItemsProcessed(state.iterations() * batch.B);
}
BENCHMARK(BM_TrainShard)->Arg(16)->Arg(52)->Arg(100)->Unit(benchmark::kMicrosecond);

// Layer 0's attention sub-layer alone on the same shard: forward with dropout, then backward.
void BM_AttentionTrain(benchmark::State& state) {
  const Model& m = crumb();
  const Config& c = m.config();
  const auto& W = m.params().layers[0];
  const Batch batch = shard_near(static_cast<int>(state.range(0)));
  ForwardCache<float> fc;
  encoder_forward(m.params(), c, m.positions(), batch, 0.0, fc);
  const Mat<float>& u = fc.blocks[0].u1;
  const DropoutSpec spec{0.1, &batch.keys};
  Mat<float> dW_qkv = Mat<float>::Zero(W.qkv_w.rows(), W.qkv_w.cols());
  Mat<float> dW_o = Mat<float>::Zero(W.out_w.rows(), W.out_w.cols());
  AttentionCache<float> cache;
  Mat<float> out, du;
  for (auto _ : state) {
    attention_forward(u, W.qkv_w, W.out_w, c.n_heads, batch.T, batch.lengths, spec, 3, out, cache);
    du.setZero(u.rows(), u.cols());
    attention_backward(out, u, W.qkv_w, W.out_w, c.n_heads, batch.T, batch.lengths, cache, du,
                       dW_qkv, dW_o);
    benchmark::DoNotOptimize(du.data());
  }
  double flops = 0;
  for (int len : batch.lengths) flops += 3 * attention_flops(c.d_model, len);
  set_flops(state, flops);
  state.counters["T"] = batch.T;
}
BENCHMARK(BM_AttentionTrain)->Arg(16)->Arg(52)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace router::bench
