#include "model/binary_format.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "base/errors.h"
#include "base/little_endian.h"

namespace router {

namespace {

constexpr char kMagic[8] = {'R', 'O', 'U', 'T', 'E', 'R', 'M', '2'};
constexpr size_t kAlign = 64;  // of the first tensor, from the start of the bytes

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
  uint32_t u32(const char* what) { return get_u32(take(4, what), 0); }
  bool done() const { return pos_ == bytes_.size(); }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  std::string name_;
  size_t pos_ = 0;
};

// A header integer. Checked here because nlohmann's get<int>() casts a float such as 1e30
// (undefined behaviour) and silently truncates 16.5 to 16.
int header_int(const nlohmann::json& h, const char* key, const std::string& name) {
  const nlohmann::json& v = h.at(key);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT32_MAX) ||
      (!v.is_number_unsigned() && (v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX))) {
    throw ModelError(name + ": bad binary model header: \"" + key + "\" is not an integer");
  }
  return static_cast<int>(v.get<int64_t>());
}

}  // namespace

std::string model_to_binary(const Model& model, const std::string& known_words) {
  if (model.members() > 1) throw ModelError("an ensemble cannot be packed; it stays a JSON file");
  nlohmann::json header = config_json(model.config());
  header["vocab_size"] = model.config().vocab_size;
  header["labels"] = model.labels();
  header["temperature"] = model.temperature();
  header["metadata"] = model.metadata();
  if (const auto& r = model.rejection()) {
    header["reject_below"] = r->below;
    header["reject_label"] = r->label;
    if (r->score != Rejection::Score::kConfidence) header["reject_by"] = to_string(r->score);
  }
  const std::string h = header.dump();
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, static_cast<uint32_t>(h.size()));
  out += h;
  const std::string_view tok = model.tokenizer().serialized();
  put_u32(out, static_cast<uint32_t>(tok.size()));
  out += tok;
  // Padding, with its size first, so that the first tensor starts at a multiple of kAlign.
  const size_t pad = (kAlign - (out.size() + 4) % kAlign) % kAlign;
  put_u32(out, static_cast<uint32_t>(pad));
  out.append(pad, '\0');
  for (const auto& t : tensors(model.params())) {
    out.append(reinterpret_cast<const char*>(t.data), static_cast<size_t>(t.size) * sizeof(float));
  }
  if (!known_words.empty()) {
    put_u32(out, static_cast<uint32_t>(known_words.size()));
    out += known_words;
  }
  return out;
}

namespace {

// The header's config (vocab_size still 0), labels and temperature, checked.
struct Header {
  Config config;
  std::vector<std::string> labels;
  double temperature = 1;
  std::optional<Rejection> rejection;
  nlohmann::json json;
};

Header read_header(Reader& r, const std::string& name) {
  const uint32_t header_len = r.u32("header size");
  Header h;
  h.json = nlohmann::json::parse(r.take(header_len, "header"));
  for (const ConfigInt& f : kConfigInts) h.config.*f.member = header_int(h.json, f.key, name);
  h.config.positional = positional_from_string(h.json.at("positional").get<std::string>());
  h.config.pooling = pooling_from_string(h.json.value("pooling", std::string("mean")));
  validate(h.config, name);
  h.labels = h.json.at("labels").get<std::vector<std::string>>();
  if (const auto problem = check_labels(h.labels)) throw ModelError(name + ": " + problem->what);
  h.config.num_labels = static_cast<int>(h.labels.size());
  h.temperature = h.json.at("temperature");
  if (!valid_temperature(h.temperature)) {
    throw ModelError(name + ": temperature: expected a finite number > 0");
  }
  if (h.json.contains("reject_below") || h.json.contains("reject_label")) {
    h.rejection = Rejection{h.json.at("reject_below").get<double>(),
                            h.json.at("reject_label").get<std::string>()};
    const auto score = rejection_score_from_string(h.json.value("reject_by", "confidence"));
    if (!score)
      throw ModelError(name + ": bad rejection rule: reject_by: expected confidence or in_scope");
    h.rejection->score = *score;
    if (const auto problem = rejection_problem(*h.rejection, h.labels)) {
      throw ModelError(name + ": bad rejection rule: " + problem->field + ": " + problem->what);
    }
  }
  return h;
}

// The vocabulary size: the header's when trusted (the tokenizer is parsed later, if ever), else
// the tokenizer's, parsed now into `checked` and compared with the header's if it has one.
int read_vocab_size(const nlohmann::json& h, std::string_view tok_bytes, const std::string& name,
                    bool borrow, std::optional<Tokenizer>& checked) {
  int vocab_size = 0;
  if (borrow) {
    vocab_size = header_int(h, "vocab_size", name);
  } else {
    checked = Tokenizer::from_serialized(std::string(tok_bytes), name);
    vocab_size = checked->vocab_size();
    if (h.contains("vocab_size") && header_int(h, "vocab_size", name) != vocab_size) {
      throw ModelError(name + ": the header's vocab_size " +
                       std::to_string(header_int(h, "vocab_size", name)) +
                       " is not the tokenizer's " + std::to_string(vocab_size));
    }
  }
  if (vocab_size <= kReservedPieces) {
    throw ModelError(name + ": bad binary model header: \"vocab_size\" " +
                     std::to_string(vocab_size) + " is too small");
  }
  return vocab_size;
}

// The tensors, in file order. Borrowed, the embedding is not even allocated (a fresh page costs
// more than its bytes): `embed` points into the bytes instead. Untrusted, every value is checked.
Params<float> read_params(Reader& r, const Config& c, const std::string& name, bool borrow,
                          const float*& embed) {
  Config shapes = c;
  if (borrow) shapes.vocab_size = 0;
  Params<float> p = zeros_like_config<float>(shapes);
  embed = nullptr;
  for (auto& t : tensors(p)) {
    if (borrow && t.name == "embed.weight") {
      const size_t n = static_cast<size_t>(c.vocab_size) * c.d_model * sizeof(float);
      const char* at = r.take(n, "tensors").data();
      if (reinterpret_cast<uintptr_t>(at) % alignof(float) == 0) {
        embed = reinterpret_cast<const float*>(at);
      } else {  // not where the packer put it: copy after all
        p.embed.resize(c.vocab_size, c.d_model);
        std::memcpy(p.embed.data(), at, n);
      }
      continue;
    }
    std::string_view data = r.take(static_cast<size_t>(t.size) * sizeof(float), "tensors");
    std::memcpy(t.data, data.data(), data.size());
    if (borrow) continue;  // trusted: checked when packed
    for (int64_t i = 0; i < t.size; ++i) {
      if (!std::isfinite(t.data[i])) {
        throw ModelError(name + ": " + t.name + "[" + std::to_string(i) + "] is not finite");
      }
    }
  }
  return p;
}

// What follows the tensors, if anything: the table of known words, size first.
KnownWords read_known_words(Reader& r, int vocab_size, const std::string& name, bool borrow) {
  if (r.done()) return {};
  const size_t rest = r.remaining();
  const uint32_t words_len = rest >= 4 ? r.u32("known words size") : 0;
  if (rest < 4 || words_len != rest - 4) {
    throw ModelError(name + ": trailing bytes after the last tensor (" + std::to_string(rest) +
                     " bytes that are not a table of known words)");
  }
  const std::string_view table = r.take(words_len, "known words");
  return borrow ? KnownWords::view(table, vocab_size, name)
                : KnownWords::copy(table, vocab_size, name);
}

}  // namespace

Model model_from_binary(std::string_view bytes, const std::string& name, bool borrow) {
  Reader r(bytes, name);
  if (r.take(sizeof kMagic, "magic") != std::string_view(kMagic, sizeof kMagic)) {
    throw ModelError(name + ": not a binary router model (bad magic)");
  }
  try {
    Header h = read_header(r, name);
    Config& c = h.config;
    const std::string_view tok_bytes = r.take(r.u32("tokenizer size"), "tokenizer");
    std::optional<Tokenizer> checked;
    c.vocab_size = read_vocab_size(h.json, tok_bytes, name, borrow, checked);
    const uint32_t pad = r.u32("padding size");
    if (pad >= kAlign) throw ModelError(name + ": bad padding size " + std::to_string(pad));
    r.take(pad, "padding");
    const float* embed = nullptr;
    Params<float> p = read_params(r, c, name, borrow, embed);
    const KnownWords words = read_known_words(r, c.vocab_size, name, borrow);
    Tokenizer tok =
        borrow ? Tokenizer::from_trusted(tok_bytes, c.vocab_size, words) : std::move(*checked);
    if (!borrow) tok.set_known_words(words);
    Model model(c, std::move(h.labels), std::move(tok), std::move(p), h.temperature,
                h.json.at("metadata"));
    if (embed) model.borrow_embedding(embed);
    model.set_rejection(h.rejection);
    return model;
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(name + ": bad binary model header: " + e.what());
  } catch (const UsageError& e) {  // from positional_from_string, pooling_from_string
    throw ModelError(name + ": bad binary model header: " + e.what());
  }
}

}  // namespace router
