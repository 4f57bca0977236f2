// The architecture of one model: what the model file's "config" holds, plus the sizes that come
// from the tokenizer and the label list. validate() enforces the ranges of docs/model-format.md
// before anything is allocated from them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace router {

enum class Positional { kSinusoidal, kNone };
// How token vectors become one email vector: their mean, each column's largest value (one
// clause is not diluted by a long email; see docs/benchmarks.md), or a mean weighed by a learned
// query (attention: the model learns which tokens to listen to).
enum class Pooling { kMean, kMax, kAttention };
// Each pooling's name in model files and on the command line, in the enum's order.
inline constexpr const char* kPoolingNames[] = {"mean", "max", "attention"};

struct Config {
  int d_model = 64;
  int n_heads = 4;
  int n_layers = 2;
  int d_ff = 256;
  int max_len = 128;
  Positional positional = Positional::kSinusoidal;
  Pooling pooling = Pooling::kMean;
  int vocab_size = 0;  // from the tokenizer
  int num_labels = 0;  // from the label list

  int head_dim() const { return d_model / n_heads; }
};

std::string to_string(Positional p);
// Throws UsageError naming the option for an unknown name.
Positional positional_from_string(const std::string& name);
std::string to_string(Pooling p);
// Throws UsageError for an unknown name.
Pooling pooling_from_string(const std::string& name);
// The names as messages list them: "'mean', 'max' or 'attention'".
std::string pooling_choices();

// The integer members as the model file names them (its "config" object, the binary header,
// training's options), in that order. Every reader and writer of a config loops over this table
// and config_json, so a new integer field is one line here and its range in validate().
struct ConfigInt {
  const char* key;
  int Config::*member;
};
inline constexpr ConfigInt kConfigInts[] = {{"d_model", &Config::d_model},
                                            {"n_heads", &Config::n_heads},
                                            {"n_layers", &Config::n_layers},
                                            {"d_ff", &Config::d_ff},
                                            {"max_len", &Config::max_len}};

// The architecture as JSON: kConfigInts, then "positional" and "pooling" by name. The sizes that
// come from the tokenizer and the label list are not in it.
nlohmann::json config_json(const Config& config);

// Throws ModelError("<where>: /config/<field>: ...") on the first value out of range.
void validate(const Config& config, const std::string& where);

}  // namespace router
