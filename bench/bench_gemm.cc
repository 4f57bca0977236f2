// The machine's single-precision matrix-multiply peak as Eigen reaches it in this build (same
// flags as the engine, one thread: EIGEN_DONT_PARALLELIZE), to put the model's FLOPS counters in
// proportion. Square products, and Eigen at the shapes of the model's own products: y = x W^T
// with x of M token rows, and one head's attention (Dh = 8 columns). Next to them, the model's
// own products at the same shapes (linear_forward, and linear_backward's dx = dy W and
// dW += dy^T x), which are written for them and do not go through Eigen's.
#include <random>

#include <benchmark/benchmark.h>

#include "nn/layers.h"
#include "nn/tensor.h"

namespace router::bench {
namespace {

Mat<float> random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Mat<float> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = u(gen);
  return m;
}

void set_flops(benchmark::State& state, double m, double k, double n) {
  state.counters["FLOPS"] =
      benchmark::Counter(2 * m * k * n, benchmark::Counter::kIsIterationInvariantRate);
}

// C (N, N) = A (N, N) B (N, N)
void BM_GemmSquare(benchmark::State& state) {
  const Eigen::Index n = state.range(0);
  const Mat<float> A = random_matrix(n, n, 1), B = random_matrix(n, n, 2);
  Mat<float> C(n, n);
  for (auto _ : state) {
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
  }
  set_flops(state, n, n, n);
}
BENCHMARK(BM_GemmSquare)->RangeMultiplier(2)->Range(64, 1024)->Unit(benchmark::kMicrosecond);

// y (M, Out) = x (M, In) W^T, W (Out, In): the model's Linear layers, by Eigen's general product
// (BM_GemmLinear) and as the model computes it (BM_LinearForward).
template <bool kEigen>
void linear_product(benchmark::State& state) {
  const Eigen::Index M = state.range(0), in = state.range(1), out = state.range(2);
  const Mat<float> x = random_matrix(M, in, 1), W = random_matrix(out, in, 2);
  Mat<float> y(M, out);
  for (auto _ : state) {
    if constexpr (kEigen) {
      y.noalias() = x * W.transpose();
    } else {
      linear_forward<float>(x, W, nullptr, y);
    }
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state, M, in, out);
}
void BM_GemmLinear(benchmark::State& state) { linear_product<true>(state); }
void BM_LinearForward(benchmark::State& state) { linear_product<false>(state); }

// M = 128 (one long email), 1,024 (a batch), 4,096; (In, Out): QKV, output proj., fc1, fc2.
void linear_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "in", "out"})
      ->ArgsProduct({{16, 128, 1024, 4096}, {64}, {192, 64, 256}})
      ->ArgsProduct({{16, 128, 1024, 4096}, {256}, {64}})
      ->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_GemmLinear)->Apply(linear_shapes);
BENCHMARK(BM_LinearForward)->Apply(linear_shapes);

// Its backward: dx += dy W and dW += dy^T x (twice the forward's arithmetic).
void BM_LinearBackward(benchmark::State& state) {
  const Eigen::Index M = state.range(0), in = state.range(1), out = state.range(2);
  const Mat<float> x = random_matrix(M, in, 1), W = random_matrix(out, in, 2),
                   dy = random_matrix(M, out, 3);
  Mat<float> dx = Mat<float>::Zero(M, in), dW = Mat<float>::Zero(out, in);
  for (auto _ : state) {
    linear_backward<float>(dy, x, W, &dx, dW, nullptr);
    benchmark::DoNotOptimize(dW.data());
  }
  set_flops(state, 2 * M, in, out);
}
BENCHMARK(BM_LinearBackward)
    ->ArgNames({"M", "in", "out"})
    ->ArgsProduct({{128, 1024}, {64}, {192, 64, 128}})
    ->ArgsProduct({{128, 1024}, {128}, {64}})
    ->Unit(benchmark::kMicrosecond);

// Its two halves apart: dx += dy W, and dW += dy^T x (the sum runs down the M rows).
template <bool kWeights>
void linear_backward_half(benchmark::State& state) {
  const Eigen::Index M = state.range(0), in = state.range(1), out = state.range(2);
  const Mat<float> x = random_matrix(M, in, 1), W = random_matrix(out, in, 2),
                   dy = random_matrix(M, out, 3);
  Mat<float> dx = Mat<float>::Zero(M, in), dW = Mat<float>::Zero(out, in);
  for (auto _ : state) {
    if constexpr (kWeights) {
      linear_backward_weights<float>(dy, x, dW, nullptr);
    } else {
      linear_backward_input<float>(dy, W, dx);
    }
    benchmark::DoNotOptimize(kWeights ? dW.data() : dx.data());
  }
  set_flops(state, M, in, out);
}
void BM_LinearBackwardInput(benchmark::State& state) { linear_backward_half<false>(state); }
void BM_LinearBackwardWeights(benchmark::State& state) { linear_backward_half<true>(state); }
BENCHMARK(BM_LinearBackwardInput)
    ->ArgNames({"M", "in", "out"})
    ->ArgsProduct({{1024}, {64}, {192, 64, 128}})
    ->ArgsProduct({{1024}, {128}, {64}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LinearBackwardWeights)
    ->ArgNames({"M", "in", "out"})
    ->ArgsProduct({{1024}, {64}, {192, 64, 128}})
    ->ArgsProduct({{1024}, {128}, {64}})
    ->Unit(benchmark::kMicrosecond);

// One head of attention for n tokens, Dh = 8: scores (n, n) = q (n, 8) k^T; o (n, 8) = p v.
void BM_GemmAttentionHead(benchmark::State& state) {
  const Eigen::Index n = state.range(0), dh = 8;
  const Mat<float> q = random_matrix(n, dh, 1), k = random_matrix(n, dh, 2),
                   v = random_matrix(n, dh, 3);
  Mat<float> s(n, n), o(n, dh);
  for (auto _ : state) {
    s.noalias() = q * k.transpose();
    o.noalias() = s * v;
    benchmark::DoNotOptimize(o.data());
  }
  set_flops(state, 2 * n, dh, n);
}
BENCHMARK(BM_GemmAttentionHead)->RangeMultiplier(4)->Range(16, 512)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace router::bench
