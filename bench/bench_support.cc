#include "bench_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/builtin_model.h"
#include "nn/positional.h"

namespace router::bench {

std::string source_path(const std::string& relative) {
  return std::string(ROUTER_SOURCE_DIR) + "/" + relative;
}

std::string read_all(const std::string& relative) {
  std::ifstream in(source_path(relative), std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "router_bench: cannot read %s\n", source_path(relative).c_str());
    std::exit(1);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Model& crumb() {
  static const Model model = [] {
    auto m = builtin_model("crumb");
    if (!m) {
      std::fprintf(stderr, "router_bench: this build has no built-in model\n");
      std::exit(1);
    }
    return std::move(*m);
  }();
  return model;
}

const std::vector<std::string>& test_texts() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> out;
    std::istringstream in(read_all("data/crumb/test.jsonl"));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(nlohmann::json::parse(line).at("text"));
    }
    return out;
  }();
  return texts;
}

const std::vector<std::vector<int32_t>>& test_ids() {
  static const std::vector<std::vector<int32_t>> ids = [] {
    std::vector<std::vector<int32_t>> out;
    for (const auto& t : test_texts()) out.push_back(crumb().encode(t));
    return out;
  }();
  return ids;
}

const std::vector<int>& test_ids_by_length() {
  static const std::vector<int> order = [] {
    const auto& ids = test_ids();
    std::vector<int> out(ids.size());
    std::iota(out.begin(), out.end(), 0);
    std::stable_sort(out.begin(), out.end(),
                     [&](int a, int b) { return ids[a].size() < ids[b].size(); });
    return out;
  }();
  return order;
}

const Mat<float>& long_positions() {
  static const Mat<float> table = sinusoid_table(512, crumb().config().d_model).cast<float>();
  return table;
}

std::vector<int32_t> real_ids(int n) {
  std::vector<int32_t> out;
  for (size_t i = 0; static_cast<int>(out.size()) < n; ++i) {
    const auto& e = test_ids()[i % test_ids().size()];
    out.insert(out.end(), e.begin(), e.end());
  }
  out.resize(n);
  return out;
}

double attention_flops(int D, int64_t n) {
  const double d = D, t = static_cast<double>(n);
  return 2 * t * d * 3 * d + 2 * t * t * d + 2 * t * t * d + 2 * t * d * d;
}

double forward_flops(const Config& c, int64_t n) {
  const double t = static_cast<double>(n);
  const double ffn = 2 * 2 * t * c.d_model * c.d_ff;
  return c.n_layers * (attention_flops(c.d_model, n) + ffn) + 2.0 * c.d_model * c.num_labels;
}

void set_flops(benchmark::State& state, double flops_per_iteration) {
  if (state.threads() > 1) return;
  state.counters["FLOPS"] =
      benchmark::Counter(flops_per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace router::bench
