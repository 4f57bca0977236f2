// What the microbenchmarks share: the built-in Crumb model, the Crumb test emails and their
// token ids (loaded once per process), and the FLOP count of one forward pass, from the shapes.
// Legend: T tokens, D d_model, H heads, F d_ff, L layers, K labels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "model/model.h"

namespace router::bench {

// models/crumb.json, data/crumb/test.jsonl, ... under the source tree.
std::string source_path(const std::string& relative);
// The whole file as bytes; aborts the benchmark binary if it cannot be read.
std::string read_all(const std::string& relative);

// The built-in model (the packed models/crumb.json).
const Model& crumb();
// The "text" of every record of data/crumb/test.jsonl, in file order.
const std::vector<std::string>& test_texts();
// Their token ids, cut to max_len, as `router batch` feeds them to the encoder.
const std::vector<std::vector<int32_t>>& test_ids();
// Indices into test_ids() from shortest to longest (ties in file order).
const std::vector<int>& test_ids_by_length();
// The sinusoid table for up to 512 positions (the built-in model's own table stops at max_len
// 128; the cost of a forward pass does not depend on the weights' values).
const Mat<float>& long_positions();
// `n` token ids: the test emails' ids concatenated and cut, so the text is real.
std::vector<int32_t> real_ids(int n);

// Multiply-adds x 2 of a forward pass over one email of n real tokens: per layer QKV 2n*D*3D,
// scores 2n^2*D, weighted sum 2n^2*D, output projection 2n*D*D, FFN 2*2n*D*F; then the
// classifier 2*D*K. Element-wise work (norms, softmax, GELU) is not counted.
double forward_flops(const Config& c, int64_t n);
// The attention sub-layer alone (QKV, scores, weighted sum, output projection).
double attention_flops(int D, int64_t n);

// The FLOPS counter: `flops_per_iteration` per iteration, as a rate. Left out with several
// threads, where Google Benchmark would sum the threads' counters (items/s says it all there).
void set_flops(benchmark::State& state, double flops_per_iteration);

}  // namespace router::bench
