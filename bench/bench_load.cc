// Model loading: the JSON model loader on models/crumb.json, a plain nlohmann::json DOM parse of
// the same text (the yardstick: the loader should beat it), and the built-in model's unpacking
// from the binary form compiled into router, alone and followed by one email's prediction.
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "bench_support.h"
#include "model/builtin_model.h"
#include "model/json_format.h"

namespace router::bench {
namespace {

const std::string& crumb_json() {
  static const std::string text = read_all("models/crumb.json");
  return text;
}

void BM_LoadModelJson(benchmark::State& state) {
  const std::string& text = crumb_json();
  for (auto _ : state) {
    Model m = load_model_from_string(text, "crumb.json");
    benchmark::DoNotOptimize(m.params().embed.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadModelJson)->Unit(benchmark::kMillisecond);

void BM_ParseJsonDom(benchmark::State& state) {
  const std::string& text = crumb_json();
  for (auto _ : state) {
    nlohmann::json j = nlohmann::json::parse(text);
    benchmark::DoNotOptimize(j.size());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseJsonDom)->Unit(benchmark::kMillisecond);

void BM_LoadBuiltin(benchmark::State& state) {
  for (auto _ : state) {
    auto m = builtin_model("crumb");
    benchmark::DoNotOptimize(m->labels().data());
  }
}
BENCHMARK(BM_LoadBuiltin)->Unit(benchmark::kMicrosecond);

// What `router classify` does after start-up: the built-in model, then one email.
void BM_LoadBuiltinAndClassify(benchmark::State& state) {
  const std::string& email = test_texts().front();
  for (auto _ : state) {
    auto m = builtin_model("crumb");
    const Prediction p = m->predict(email);
    benchmark::DoNotOptimize(p.confidence);
  }
}
BENCHMARK(BM_LoadBuiltinAndClassify)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace router::bench
