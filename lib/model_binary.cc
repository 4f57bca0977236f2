#include "model_binary.h"

#include <cmath>
#include <cstring>
#include <set>

#include "errors.h"

namespace router {

namespace {

constexpr char kMagic[8] = {'R', 'O', 'U', 'T', 'E', 'R', 'M', '1'};

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& name) : bytes_(bytes), name_(name) {}
  std::string_view take(size_t n, const char* what) {
    if (n > bytes_.size() - pos_) {
      throw ModelError(name_ + ": truncated binary model (reading " + what + ")");
    }
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint32_t u32(const char* what) {
    std::string_view s = take(4, what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(s[i])) << (8 * i);
    return v;
  }
  bool done() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::string name_;
  size_t pos_ = 0;
};

}  // namespace

std::string model_to_binary(const Model& model) {
  const Config& c = model.config();
  nlohmann::json header = {{"d_model", c.d_model},
                           {"n_heads", c.n_heads},
                           {"n_layers", c.n_layers},
                           {"d_ff", c.d_ff},
                           {"max_len", c.max_len},
                           {"positional", to_string(c.positional)},
                           {"labels", model.labels()},
                           {"temperature", model.temperature()},
                           {"metadata", model.metadata()}};
  const std::string h = header.dump();
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, static_cast<uint32_t>(h.size()));
  out += h;
  const std::string& tok = model.tokenizer().serialized();
  put_u32(out, static_cast<uint32_t>(tok.size()));
  out += tok;
  for (const auto& t : tensors(const_cast<Params<float>&>(model.params()))) {
    out.append(reinterpret_cast<const char*>(t.data), static_cast<size_t>(t.size) * sizeof(float));
  }
  return out;
}

Model model_from_binary(std::string_view bytes, const std::string& name) {
  Reader r(bytes, name);
  if (r.take(sizeof kMagic, "magic") != std::string_view(kMagic, sizeof kMagic)) {
    throw ModelError(name + ": not a binary router model (bad magic)");
  }
  const uint32_t header_len = r.u32("header size");
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(r.take(header_len, "header"));
    Config c;
    c.d_model = h.at("d_model");
    c.n_heads = h.at("n_heads");
    c.n_layers = h.at("n_layers");
    c.d_ff = h.at("d_ff");
    c.max_len = h.at("max_len");
    c.positional = positional_from_string(h.at("positional").get<std::string>());
    validate(c, name);
    auto labels = h.at("labels").get<std::vector<std::string>>();
    // The same label rules as the JSON file: the classifier's size comes from this list.
    if (labels.size() < 2 || labels.size() > 10000) {
      throw ModelError(name + ": expected 2 to 10000 labels");
    }
    if (std::set<std::string>(labels.begin(), labels.end()).size() != labels.size()) {
      throw ModelError(name + ": duplicate label");
    }
    for (const auto& l : labels) {
      if (l.empty()) throw ModelError(name + ": empty label");
    }
    const double temperature = h.at("temperature");
    if (!(temperature > 0) || !std::isfinite(temperature)) {
      throw ModelError(name + ": bad temperature");
    }
    const uint32_t tok_len = r.u32("tokenizer size");
    Tokenizer tok = Tokenizer::from_serialized(std::string(r.take(tok_len, "tokenizer")), name);
    c.vocab_size = tok.vocab_size();
    c.num_labels = static_cast<int>(labels.size());
    Params<float> p = zeros_like_config<float>(c);
    for (auto& t : tensors(p)) {
      std::string_view data = r.take(static_cast<size_t>(t.size) * sizeof(float), "tensors");
      std::memcpy(t.data, data.data(), data.size());
      for (int64_t i = 0; i < t.size; ++i) {
        if (!std::isfinite(t.data[i])) {
          throw ModelError(name + ": " + t.name + "[" + std::to_string(i) + "] is not finite");
        }
      }
    }
    if (!r.done()) throw ModelError(name + ": trailing bytes after the last tensor");
    return Model(c, std::move(labels), std::move(tok), std::move(p), temperature,
                 h.at("metadata"));
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(name + ": bad binary model header: " + e.what());
  } catch (const UsageError& e) {  // from positional_from_string
    throw ModelError(name + ": bad binary model header: " + e.what());
  }
}

}  // namespace router
