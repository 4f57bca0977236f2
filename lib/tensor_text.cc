#include "tensor_text.h"

#include <charconv>
#include <cmath>
#include <utility>

namespace router {

namespace {

// Where a value sits: only the top object, its "tensors" object and each tensor's object matter.
enum class Where { kRoot, kTensors, kTensor, kOther };

class Scanner {
 public:
  Scanner(std::string_view text, int max_depth) : t_(text), max_depth_(max_depth) {}

  std::optional<SplitModelText> run() {
    ws();
    if (!value(0, Where::kRoot, {})) return std::nullopt;
    ws();
    if (pos_ != t_.size()) return std::nullopt;
    SplitModelText out;
    out.rest.reserve(t_.size() - cut_total_);
    size_t from = 0;
    for (const auto& [begin, end] : cuts_) {
      out.rest.append(t_.substr(from, begin - from));
      from = end;
    }
    out.rest.append(t_.substr(from));
    out.data = std::move(data_);
    return out;
  }

 private:
  void ws() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\n' || t_[pos_] == '\r' || t_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool at(char c) const { return pos_ < t_.size() && t_[pos_] == c; }

  // At the opening quote; *raw gets the characters between the quotes, escapes undecoded.
  bool string(std::string_view* raw) {
    const size_t begin = ++pos_;
    while (pos_ < t_.size()) {
      if (t_[pos_] == '\\') {
        pos_ += 2;
      } else if (t_[pos_] == '"') {
        *raw = t_.substr(begin, pos_ - begin);
        ++pos_;
        return true;
      } else {
        ++pos_;
      }
    }
    return false;
  }

  // The JSON number grammar; from_chars alone would also take "1.", "01", "inf" and "nan".
  bool number(double* out) {
    const size_t begin = pos_;
    auto digits = [&] {
      const size_t d = pos_;
      while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
      return pos_ > d;
    };
    if (at('-')) ++pos_;
    if (at('0')) {
      ++pos_;
    } else if (!digits()) {
      return false;
    }
    if (at('.')) {
      ++pos_;
      if (!digits()) return false;
    }
    if (at('e') || at('E')) {
      ++pos_;
      if (at('+') || at('-')) ++pos_;
      if (!digits()) return false;
    }
    // Read as double, then narrowed: exactly what the DOM path does, so both give the same bits.
    const auto res = std::from_chars(t_.data() + begin, t_.data() + pos_, *out);
    return res.ec == std::errc() && res.ptr == t_.data() + pos_;
  }

  bool literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // The numbers of one data array, straight into floats; pos_ is just after '['.
  bool data_array(std::string_view tensor) {
    if (data_.count(std::string(tensor))) return false;  // a duplicate: the slow path says so
    std::vector<float>& dst = data_[std::string(tensor)];
    const size_t begin = pos_;
    ws();
    if (!at(']')) {
      for (;;) {
        ws();
        double x = 0;
        if (!number(&x)) return false;
        const float f = static_cast<float>(x);
        if (!std::isfinite(x) || !std::isfinite(f)) return false;
        dst.push_back(f);
        ws();
        if (at(']')) break;
        if (!at(',')) return false;
        ++pos_;
      }
    }
    cuts_.emplace_back(begin, pos_);
    cut_total_ += pos_ - begin;
    ++pos_;  // ']'
    return true;
  }

  bool value(int depth, Where where, std::string_view tensor) {
    if (pos_ >= t_.size()) return false;
    const char c = t_[pos_];
    if (c == '{') return object(depth + 1, where, tensor);
    if (c == '[') return array(depth + 1);
    if (c == '"') {
      std::string_view s;
      return string(&s);
    }
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    double x = 0;
    return number(&x);
  }

  bool object(int depth, Where where, std::string_view tensor) {
    if (depth > max_depth_) return false;
    ++pos_;
    ws();
    if (at('}')) {
      ++pos_;
      return true;
    }
    for (;;) {
      ws();
      std::string_view key;
      if (!at('"') || !string(&key)) return false;
      // Escaped names where names matter: rare enough to leave to the slow path.
      if (where != Where::kOther && key.find('\\') != std::string_view::npos) return false;
      ws();
      if (!at(':')) return false;
      ++pos_;
      ws();
      Where inner = Where::kOther;
      if (where == Where::kRoot && key == "tensors") inner = Where::kTensors;
      if (where == Where::kTensors) inner = Where::kTensor;
      if (where == Where::kTensor && key == "data" && at('[')) {
        ++pos_;
        if (!data_array(tensor)) return false;
      } else if (!value(depth, inner, where == Where::kTensors ? key : tensor)) {
        return false;
      }
      ws();
      if (at('}')) {
        ++pos_;
        return true;
      }
      if (!at(',')) return false;
      ++pos_;
    }
  }

  bool array(int depth) {
    if (depth > max_depth_) return false;
    ++pos_;
    ws();
    if (at(']')) {
      ++pos_;
      return true;
    }
    for (;;) {
      ws();
      if (!value(depth, Where::kOther, {})) return false;
      ws();
      if (at(']')) {
        ++pos_;
        return true;
      }
      if (!at(',')) return false;
      ++pos_;
    }
  }

  std::string_view t_;
  int max_depth_;
  size_t pos_ = 0;
  std::vector<std::pair<size_t, size_t>> cuts_;  // [begin, end) of each emptied array's inside
  size_t cut_total_ = 0;
  std::map<std::string, std::vector<float>> data_;
};

}  // namespace

std::optional<SplitModelText> split_tensor_data(std::string_view text, int max_depth) {
  return Scanner(text, max_depth).run();
}

}  // namespace router
