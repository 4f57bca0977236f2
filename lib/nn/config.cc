#include "nn/config.h"

#include <iterator>

#include "base/errors.h"

namespace router {

std::string to_string(Positional p) { return p == Positional::kSinusoidal ? "sinusoidal" : "none"; }

Positional positional_from_string(const std::string& name) {
  if (name == "sinusoidal") return Positional::kSinusoidal;
  if (name == "none") return Positional::kNone;
  throw UsageError("positional must be 'sinusoidal' or 'none', got '" + name + "'");
}

std::string to_string(Pooling p) { return kPoolingNames[static_cast<int>(p)]; }

Pooling pooling_from_string(const std::string& name) {
  for (int i = 0; i < static_cast<int>(std::size(kPoolingNames)); ++i) {
    if (name == kPoolingNames[i]) return static_cast<Pooling>(i);
  }
  throw UsageError("pooling must be " + pooling_choices() + ", got '" + name + "'");
}

std::string pooling_choices() {
  std::string out;
  const size_t n = std::size(kPoolingNames);
  for (size_t i = 0; i < n; ++i) {
    out += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + "'" + kPoolingNames[i] + "'";
  }
  return out;
}

nlohmann::json config_json(const Config& config) {
  nlohmann::json j = nlohmann::json::object();
  for (const ConfigInt& f : kConfigInts) j[f.key] = config.*f.member;
  j["positional"] = to_string(config.positional);
  j["pooling"] = to_string(config.pooling);
  return j;
}

namespace {

void check_range(const std::string& where, const char* field, long value, long lo, long hi) {
  if (value < lo || value > hi) {
    throw ModelError(where + ": /config/" + field + ": " + std::to_string(value) +
                     " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

}  // namespace

void validate(const Config& c, const std::string& where) {
  check_range(where, "d_model", c.d_model, 1, 4096);
  check_range(where, "n_heads", c.n_heads, 1, 256);
  check_range(where, "n_layers", c.n_layers, 0, 64);
  check_range(where, "d_ff", c.d_ff, 1, 16384);
  check_range(where, "max_len", c.max_len, 1, 8192);
  if (c.d_model % c.n_heads != 0) {
    throw ModelError(where + ": /config/n_heads: " + std::to_string(c.n_heads) +
                     " does not divide d_model " + std::to_string(c.d_model));
  }
}

}  // namespace router
