#include "model/json_format.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "base/base64.h"
#include "base/errors.h"
#include "base/files.h"
#include "model/number_scan.h"

namespace router {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "router-model";
constexpr int kVersion = 1;
constexpr int kMaxDepth = 64;  // deeper JSON is hostile, and the parser recurses
constexpr int kMaxVocab = 1 << 20;

// Every error names the file and the JSON path of the problem.
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw ModelError(file_ + ": " + (path.empty() ? "/" : path) + ": " + what);
  }
  const json& member(const json& obj, const std::string& path, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, std::string("missing key '") + key + "'");
    return *it;
  }
  void only_keys(const json& obj, const std::string& path,
                 const std::vector<std::string>& allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (const std::string& a : allowed) ok = ok || it.key() == a;
      if (!ok) fail(path, "unknown key '" + it.key() + "'");
    }
  }
  int integer(const json& v, const std::string& path) const {
    if (!v.is_number_integer()) fail(path, "expected an integer");
    // An unsigned value above INT64_MAX would wrap in get<int64_t>(), so look at it unsigned.
    const bool huge = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{1} << 62;
    const int64_t x = huge ? std::numeric_limits<int64_t>::max() : v.get<int64_t>();
    if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
      fail(path, "integer out of range");
    }
    return static_cast<int>(x);
  }
  const std::string& string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string");
    return v.get_ref<const std::string&>();
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

json parse_limited(const std::string& text, const std::string& name) {
  // Refuse hostile nesting early, and duplicate keys, which nlohmann would silently overwrite.
  // The stack of open containers gives both errors their JSON path.
  struct Open {
    bool object = false;
    std::set<std::string> keys;
    std::string key;   // the current member, for objects
    size_t index = 0;  // the current element, for arrays
  };
  std::vector<Open> open;
  auto where = [&] {
    std::string path;
    for (const Open& o : open) path += "/" + (o.object ? o.key : std::to_string(o.index));
    return path.empty() ? std::string("/") : path;
  };
  auto guard = [&](int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (event == E::object_start || event == E::array_start) {
      if (depth >= kMaxDepth) {
        throw ModelError(name + ": " + where() + ": JSON nested deeper than " +
                         std::to_string(kMaxDepth) + " levels");
      }
      open.push_back({event == E::object_start, {}, {}, 0});
    } else if (event == E::key) {
      open.back().key = parsed.get<std::string>();
      if (!open.back().keys.insert(open.back().key).second) {
        throw ModelError(name + ": " + where() + ": duplicate key '" + open.back().key + "'");
      }
    }
    if (event == E::object_end || event == E::array_end) open.pop_back();
    if ((event == E::value || event == E::object_end || event == E::array_end) && !open.empty() &&
        !open.back().object) {
      ++open.back().index;
    }
    return true;
  };
  try {
    return json::parse(text, guard);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    throw ModelError(name + ": not valid JSON: " + e.what());
  }
}

Config read_config(const Checker& c, const json& j) {
  const std::string p = "/config";
  if (!j.is_object()) c.fail(p, "expected an object");
  std::vector<std::string> keys = {"positional", "pooling", "norm"};
  for (const ConfigInt& f : kConfigInts) keys.push_back(f.key);
  c.only_keys(j, p, keys);
  Config config;
  for (const ConfigInt& f : kConfigInts) {
    config.*f.member = c.integer(c.member(j, p, f.key), p + "/" + f.key);
  }
  const std::string& pos = c.string(c.member(j, p, "positional"), p + "/positional");
  if (pos == "sinusoidal") {
    config.positional = Positional::kSinusoidal;
  } else if (pos == "none") {
    config.positional = Positional::kNone;
  } else {
    c.fail(p + "/positional", "expected 'sinusoidal' or 'none', got '" + pos + "'");
  }
  if (j.contains("pooling")) {
    const std::string& pool = c.string(j["pooling"], p + "/pooling");
    try {
      config.pooling = pooling_from_string(pool);
    } catch (const UsageError&) {
      c.fail(p + "/pooling", "expected " + pooling_choices() + ", got '" + pool + "'");
    }
  }
  if (j.contains("norm") && c.string(j["norm"], p + "/norm") != "pre") {
    c.fail(p + "/norm", "only 'pre' is supported");
  }
  validate(config, c.file());
  return config;
}

std::vector<std::string> read_labels(const Checker& c, const json& j) {
  if (!j.is_array()) c.fail("/labels", "expected an array of strings");
  std::vector<std::string> labels;
  for (size_t i = 0; i < j.size(); ++i)
    labels.push_back(c.string(j[i], "/labels/" + std::to_string(i)));
  if (const auto problem = check_labels(labels)) {
    c.fail(problem->index < 0 ? "/labels" : "/labels/" + std::to_string(problem->index),
           problem->what);
  }
  return labels;
}

// "reject_below" and "reject_label" of /calibration: both or neither; "reject_by" with them.
std::optional<Rejection> read_rejection(const Checker& c, const json& cal,
                                        const std::vector<std::string>& labels) {
  const bool below = cal.contains("reject_below"), label = cal.contains("reject_label");
  if (!below && !label) {
    if (cal.contains("reject_by")) c.fail("/calibration/reject_by", "needs reject_below");
    return std::nullopt;
  }
  if (below != label) c.fail("/calibration", "reject_below and reject_label go together");
  const json& b = cal["reject_below"];
  if (!b.is_number()) c.fail("/calibration/reject_below", "expected a number from 0 to 1");
  Rejection r{b.get<double>(), c.string(cal["reject_label"], "/calibration/reject_label")};
  if (cal.contains("reject_by")) {
    const auto score =
        rejection_score_from_string(c.string(cal["reject_by"], "/calibration/reject_by"));
    if (!score) c.fail("/calibration/reject_by", "expected \"confidence\" or \"in_scope\"");
    r.score = *score;
  }
  if (const auto problem = rejection_problem(r, labels)) {
    c.fail(std::string("/calibration/") + problem->field, problem->what);
  }
  return r;
}

Tokenizer read_tokenizer(const Checker& c, const json& j) {
  const std::string p = "/tokenizer";
  if (!j.is_object()) c.fail(p, "expected an object");
  c.only_keys(j, p, {"type", "normalization", "vocab", "model"});
  const std::string& type = c.string(c.member(j, p, "type"), p + "/type");
  if (type != "sentencepiece-bpe") c.fail(p + "/type", "unknown tokenizer type '" + type + "'");
  const json& vocab = c.member(j, p, "vocab");
  if (!vocab.is_array()) c.fail(p + "/vocab", "expected an array of strings");
  if (vocab.size() < 2 || vocab.size() > kMaxVocab) {
    c.fail(p + "/vocab", "expected 2 to " + std::to_string(kMaxVocab) + " pieces");
  }
  std::string blob;
  try {
    blob = base64_decode(c.string(c.member(j, p, "model"), p + "/model"));
  } catch (const ModelError& e) {
    c.fail(p + "/model", e.what());
  }
  Tokenizer tok = Tokenizer::from_serialized(std::move(blob), c.file() + ": " + p + "/model");
  if (static_cast<size_t>(tok.vocab_size()) != vocab.size()) {
    c.fail(p + "/vocab", "has " + std::to_string(vocab.size()) + " pieces but the model has " +
                             std::to_string(tok.vocab_size()));
  }
  for (size_t i = 0; i < vocab.size(); ++i) {
    const std::string path = p + "/vocab/" + std::to_string(i);
    if (c.string(vocab[i], path) != tok.vocab()[i]) {
      c.fail(path, "'" + vocab[i].get<std::string>() + "' differs from the model's piece '" +
                       tok.vocab()[i] + "'");
    }
  }
  return tok;
}

// `fast` holds the data arrays split_tensor_data emptied, by tensor name. A number there that
// parse_floats refuses throws, and the caller starts again on the slow path.
// `where` is the object's JSON path (/tensors, or /members/<i> for an ensemble's other members),
// `prefix` what split_tensor_data put before the names of its tensors.
void read_tensors(const Checker& c, const json& j, Params<float>& params,
                  const std::map<std::string, std::string_view>* fast, const std::string& where,
                  const std::string& prefix) {
  if (!j.is_object()) c.fail(where, "expected an object");
  auto refs = tensors(params);
  std::set<std::string> expected;
  for (const auto& r : refs) expected.insert(r.name);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!expected.count(it.key())) c.fail(where, "unknown tensor '" + it.key() + "'");
  }
  for (auto& r : refs) {
    const std::string p = where + "/" + r.name;
    auto it = j.find(r.name);
    if (it == j.end()) c.fail(where, "missing tensor '" + r.name + "'");
    const json& t = *it;
    if (!t.is_object()) c.fail(p, "expected an object with 'shape' and 'data'");
    c.only_keys(t, p, {"shape", "data"});
    const json& shape = c.member(t, p, "shape");
    std::vector<int64_t> got;
    if (shape.is_array()) {
      for (const auto& d : shape) got.push_back(d.is_number_integer() ? d.get<int64_t>() : -1);
    }
    if (!shape.is_array() || got != r.shape) {
      auto show = [](const std::vector<int64_t>& s) {
        std::string out = "[";
        for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
        return out + "]";
      };
      c.fail(p + "/shape", "expected " + show(r.shape) + ", got " + shape.dump());
    }
    const json& data = c.member(t, p, "data");
    if (!data.is_array()) c.fail(p + "/data", "expected an array of numbers");
    const std::string_view* inside = nullptr;
    if (fast) {
      auto found = fast->find(prefix + r.name);
      if (found != fast->end()) inside = &found->second;
    }
    if (inside && data.empty()) {
      const int64_t n = parse_floats(*inside, r.data, r.size);
      if (n < 0) c.fail(p + "/data", "not plain numbers");  // never shown: the slow path runs
      if (n != r.size) {
        c.fail(p + "/data",
               "expected " + std::to_string(r.size) + " numbers, got " + std::to_string(n));
      }
      continue;
    }
    if (static_cast<int64_t>(data.size()) != r.size) {
      c.fail(p + "/data",
             "expected " + std::to_string(r.size) + " numbers, got " + std::to_string(data.size()));
    }
    for (int64_t i = 0; i < r.size; ++i) {
      const json& v = data[i];
      if (!v.is_number()) c.fail(p + "/data/" + std::to_string(i), "expected a number");
      const double x = v.get<double>();
      const float f = static_cast<float>(x);
      if (!std::isfinite(x) || !std::isfinite(f)) {
        c.fail(p + "/data/" + std::to_string(i), "not a finite 32-bit number");
      }
      r.data[i] = f;
    }
  }
}

// Shortest decimal that reads back to the same float: byte-stable and compact.
void append_float(std::string& out, float v) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

Model load_parsed(const json& j, const std::string& name,
                  const std::map<std::string, std::string_view>* fast) {
  Checker c(name);
  if (!j.is_object()) c.fail("/", "expected a JSON object");
  c.only_keys(j, "",
              {"format", "version", "config", "labels", "tokenizer", "calibration", "metadata",
               "tensors", "members"});
  if (c.string(c.member(j, "", "format"), "/format") != kFormat) {
    c.fail("/format", std::string("expected '") + kFormat + "'");
  }
  const int version = c.integer(c.member(j, "", "version"), "/version");
  if (version != kVersion) {
    c.fail("/version", "unsupported version " + std::to_string(version) + " (this router reads " +
                           std::to_string(kVersion) + ")");
  }
  Config config = read_config(c, c.member(j, "", "config"));
  std::vector<std::string> labels = read_labels(c, c.member(j, "", "labels"));
  Tokenizer tok = read_tokenizer(c, c.member(j, "", "tokenizer"));
  config.vocab_size = tok.vocab_size();
  config.num_labels = static_cast<int>(labels.size());
  double temperature = 1.0;
  std::optional<Rejection> rejection;
  if (j.contains("calibration")) {
    const json& cal = j["calibration"];
    if (!cal.is_object()) c.fail("/calibration", "expected an object");
    c.only_keys(cal, "/calibration", {"temperature", "reject_below", "reject_label", "reject_by"});
    if (cal.contains("temperature")) {
      const json& t = cal["temperature"];
      if (!t.is_number() || !valid_temperature(t.get<double>())) {
        c.fail("/calibration/temperature", "expected a finite number > 0");
      }
      temperature = t.get<double>();
    }
    rejection = read_rejection(c, cal, labels);
  }
  json metadata = json::object();
  if (j.contains("metadata")) {
    if (!j["metadata"].is_object()) c.fail("/metadata", "expected an object");
    metadata = j["metadata"];
  }
  Params<float> params = zeros_like_config<float>(config);
  read_tensors(c, c.member(j, "", "tensors"), params, fast, "/tensors", "");
  Model model(config, std::move(labels), std::move(tok), std::move(params), temperature,
              std::move(metadata));
  if (j.contains("members")) {
    const json& members = j["members"];
    if (!members.is_array() || members.empty() || members.size() >= kMaxMembers) {
      c.fail("/members", "expected an array of 1 to " + std::to_string(kMaxMembers - 1) +
                             " objects of tensors");
    }
    for (size_t i = 0; i < members.size(); ++i) {
      Params<float> more = zeros_like_config<float>(config);
      read_tensors(c, members[i], more, fast, "/members/" + std::to_string(i),
                   member_prefix(static_cast<int>(i)));
      model.add_member(std::move(more));
    }
  }
  model.set_rejection(std::move(rejection));
  return model;
}

}  // namespace

Model load_model_from_string(const std::string& text, const std::string& name) {
  // Fast path first. Any doubt, and the whole text goes through the DOM parse, so every error
  // message comes from one place.
  if (auto split = split_tensor_data(text, kMaxDepth)) {
    try {
      return load_parsed(parse_limited(split->rest, name), name, &split->data);
    } catch (const ModelError&) {
    }
  }
  return load_parsed(parse_limited(text, name), name, nullptr);
}

Model load_model(const std::string& path) { return load_model_from_string(read_file(path), path); }

std::string model_to_json(const Model& model) {
  std::string out = "{\n";
  auto field = [&](const char* key, const json& value, bool last = false) {
    out += "  \"" + std::string(key) + "\": " + value.dump() + (last ? "\n" : ",\n");
  };
  field("format", kFormat);
  field("version", kVersion);
  json config = config_json(model.config());
  config["norm"] = "pre";
  field("config", config);
  field("labels", model.labels());
  field("tokenizer",
        json{{"type", "sentencepiece-bpe"},
             {"normalization",
              {{"lowercase", true}, {"collapse_whitespace", true}, {"pretokenizer", "router-v1"}}},
             {"vocab", model.tokenizer().vocab()},
             {"model", base64_encode(model.tokenizer().serialized())}});
  json calibration = {{"temperature", model.temperature()}};
  if (const auto& r = model.rejection()) {
    calibration["reject_below"] = r->below;
    calibration["reject_label"] = r->label;
    if (r->score != Rejection::Score::kConfidence) calibration["reject_by"] = to_string(r->score);
  }
  field("calibration", calibration);
  field("metadata", model.metadata());
  auto append_tensors = [&out](const Params<float>& params, const std::string& indent) {
    auto refs = tensors(params);
    for (size_t i = 0; i < refs.size(); ++i) {
      const auto& r = refs[i];
      out += indent + "\"" + r.name + "\": {\"shape\": " + json(r.shape).dump() + ", \"data\": [";
      for (int64_t k = 0; k < r.size; ++k) {
        if (k) out += ',';
        append_float(out, r.data[k]);
      }
      out += (i + 1 < refs.size()) ? "]},\n" : "]}\n";
    }
  };
  out += "  \"tensors\": {\n";
  append_tensors(model.params(), "    ");
  if (model.members() == 1) {
    out += "  }\n}\n";
    return out;
  }
  out += "  },\n  \"members\": [\n";
  for (int m = 1; m < model.members(); ++m) {
    out += "    {\n";
    append_tensors(model.member(m), "      ");
    out += m + 1 < model.members() ? "    },\n" : "    }\n";
  }
  out += "  ]\n}\n";
  return out;
}

void save_model(const Model& model, const std::string& path) {
  write_output_file(path, model_to_json(model));
}

}  // namespace router
