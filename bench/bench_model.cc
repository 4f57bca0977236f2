// Inference cost: the attention sub-layer and the whole model on one email of 16..512 tokens,
// batches of real Crumb emails at several batch sizes, and the two library entry points
// (`Model::logits` on one email, as `router batch` calls it, and `infer_logits`). Every result
// carries a FLOPS counter of the useful arithmetic (real tokens only, from forward_flops), to
// compare with the GEMM peak of bench_gemm.cc. Weights: the built-in Crumb model.
#include <algorithm>
#include <numeric>
#include <random>

#include <benchmark/benchmark.h>

#include "bench_support.h"
#include "model/labelling.h"

namespace router::bench {
namespace {

// The input of the attention benchmarks: n rows of d_model standard normal values, the same
// every time.
Mat<float> attention_input(int n) {
  std::mt19937 gen(1);
  std::normal_distribution<float> normal;
  Mat<float> u(n, crumb().config().d_model);
  for (Eigen::Index i = 0; i < u.size(); ++i) u.data()[i] = normal(gen);
  return u;
}

// One email of n tokens through layer 0's attention: u (n, D) -> out (n, D). attention_forward
// is training's (it keeps the attention maps for the backward pass).
void BM_AttentionForward(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Config& c = crumb().config();
  const auto& W = crumb().params().layers[0];
  const Mat<float> u = attention_input(n);
  const std::vector<int> lengths{n};
  const DropoutSpec off{0.0, nullptr};
  for (auto _ : state) {
    AttentionCache<float> cache;
    Mat<float> out;
    attention_forward(u, W.qkv_w, W.out_w, c.n_heads, n, lengths, off, 0, out, cache);
    benchmark::DoNotOptimize(out.data());
  }
  set_flops(state, attention_flops(c.d_model, n));
  state.counters["tokens"] = n;
}
BENCHMARK(BM_AttentionForward)->RangeMultiplier(2)->Range(16, 512)->Unit(benchmark::kMicrosecond);

// The same through attention_infer, the inference path (no cache, no matrix products per head).
void BM_AttentionInfer(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Config& c = crumb().config();
  const auto& Wt = crumb().transposed_weights().layers[0];
  const Mat<float> u = attention_input(n);
  const std::vector<int> lengths{n};
  for (auto _ : state) {
    Mat<float> out;
    attention_infer(u, Wt.qkv, Wt.out, c.n_heads, n, lengths, out);
    benchmark::DoNotOptimize(out.data());
  }
  set_flops(state, attention_flops(c.d_model, n));
  state.counters["tokens"] = n;
}
BENCHMARK(BM_AttentionInfer)->RangeMultiplier(2)->Range(16, 512)->Unit(benchmark::kMicrosecond);

// The whole model on one email of n real tokens (ids from the test emails) through
// encoder_logits, as Model::logits runs it. Time per iteration = time per email.
void BM_ModelForward(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Model& m = crumb();
  const std::vector<int32_t> ids = real_ids(n);
  for (auto _ : state) {
    const Batch batch = make_batch({&ids});
    const Mat<float> logits =
        encoder_logits(m.params(), m.transposed_weights(), m.config(), long_positions(), batch);
    benchmark::DoNotOptimize(logits.data());
  }
  const Config& c = m.config();
  set_flops(state, forward_flops(c, n));
  state.counters["tokens"] = n;
  state.counters["time_per_token"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
  // Share of the counted FLOPs that grows with n^2 (scores and weighted sum).
  state.counters["n2_share"] = c.n_layers * 4.0 * n * n * c.d_model / forward_flops(c, n);
}
BENCHMARK(BM_ModelForward)->RangeMultiplier(2)->Range(16, 512)->Unit(benchmark::kMicrosecond);

// The 1,760 test emails in batches of B through encoder_logits, either sorted by length (as
// infer_logits does) or in input order (more padding), one thread. Items = emails.
void BM_BatchedForward(benchmark::State& state) {
  const int B = static_cast<int>(state.range(0));
  const bool sorted = state.range(1) != 0;
  const Model& m = crumb();
  const auto& ids = test_ids();
  const int n = static_cast<int>(ids.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (sorted) order = test_ids_by_length();
  std::vector<Batch> batches;
  double flops = 0, real = 0, slots = 0;
  for (int lo = 0; lo < n; lo += B) {
    std::vector<const std::vector<int32_t>*> seqs;
    for (int j = lo; j < std::min(n, lo + B); ++j) seqs.push_back(&ids[order[j]]);
    batches.push_back(make_batch(seqs));
    slots += static_cast<double>(batches.back().B) * batches.back().T;
  }
  for (const auto& e : ids) {
    flops += forward_flops(m.config(), static_cast<int64_t>(e.size()));
    real += static_cast<double>(e.size());
  }
  for (auto _ : state) {
    for (const Batch& batch : batches) {
      const Mat<float> logits =
          encoder_logits(m.params(), m.transposed_weights(), m.config(), m.positions(), batch);
      benchmark::DoNotOptimize(logits.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
  set_flops(state, flops);
  state.counters["time_per_email"] = benchmark::Counter(
      n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["padding"] = slots / real;  // token slots computed per real token
}
BENCHMARK(BM_BatchedForward)
    ->ArgNames({"B", "sorted"})
    ->ArgsProduct({{1, 4, 16, 32, 64, 128, 512}, {1}})
    ->Args({32, 0})
    ->Args({128, 0})
    ->Unit(benchmark::kMillisecond);

// Exactly what `router batch` runs per record: Model::logits on one email, then finish(). With
// 2 threads each thread runs the whole set, so items/s is the throughput of both cores.
void BM_BatchPathPerEmail(benchmark::State& state) {
  const Model& m = crumb();
  const auto& ids = test_ids();
  double flops = 0;
  for (const auto& e : ids) flops += forward_flops(m.config(), static_cast<int64_t>(e.size()));
  for (auto _ : state) {
    for (const auto& e : ids) {
      const Mat<float> l = m.logits({&e});
      const Prediction p = m.finish(l.row(0));
      benchmark::DoNotOptimize(p.confidence);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(ids.size()));
  set_flops(state, flops);
}
BENCHMARK(BM_BatchPathPerEmail)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// infer_logits (batches of 32 sorted by length) on 1 or 2 threads; wall-clock time.
void BM_InferLogits(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const Model& m = crumb();
  const auto& ids = test_ids();
  double flops = 0;
  for (const auto& e : ids) flops += forward_flops(m.config(), static_cast<int64_t>(e.size()));
  for (auto _ : state) {
    Mat<float> l =
        infer_logits(m.params(), m.transposed_weights(), m.config(), m.positions(), ids, threads);
    benchmark::DoNotOptimize(l.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(ids.size()));
  set_flops(state, flops);
}
BENCHMARK(BM_InferLogits)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Tokenizer + model for whole emails through the public API, one thread.
void BM_LabelEmails(benchmark::State& state) {
  const Model& m = crumb();
  const auto& texts = test_texts();
  std::vector<Email> emails;
  for (const auto& t : texts) emails.push_back({t, ""});
  for (auto _ : state) {
    auto p = label_emails(m, emails, {true, 1});
    benchmark::DoNotOptimize(p.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(texts.size()));
}
BENCHMARK(BM_LabelEmails)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace router::bench
