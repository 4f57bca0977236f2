// Tokenizer throughput on real email: the whole text pipeline (UTF-8 check, normalisation,
// pre-tokenisation, SentencePiece BPE) over the 1,760 Crumb test emails, in MB/s of raw text.
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace router::bench {
namespace {

void BM_Tokenize(benchmark::State& state) {
  const Tokenizer& tok = crumb().tokenizer();
  const auto& texts = test_texts();
  int64_t bytes = 0, tokens = 0;
  for (const auto& t : texts) bytes += static_cast<int64_t>(t.size());
  for (auto _ : state) {
    tokens = 0;
    for (const auto& t : texts) {
      auto ids = tok.encode(t);
      tokens += static_cast<int64_t>(ids.size());
      benchmark::DoNotOptimize(ids.data());
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(texts.size()));
  state.counters["bytes_per_email"] = static_cast<double>(bytes) / texts.size();
  state.counters["tokens_per_email"] = static_cast<double>(tokens) / texts.size();
}
BENCHMARK(BM_Tokenize)->Unit(benchmark::kMillisecond);

// Normalisation and pre-tokenisation alone: the part of the pipeline that is router's own code.
void BM_Preprocess(benchmark::State& state) {
  const auto& texts = test_texts();
  int64_t bytes = 0;
  for (const auto& t : texts) bytes += static_cast<int64_t>(t.size());
  for (auto _ : state) {
    for (const auto& t : texts) {
      auto s = Tokenizer::preprocess(t);
      benchmark::DoNotOptimize(s.data());
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_Preprocess)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace router::bench
