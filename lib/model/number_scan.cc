#include "model/number_scan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace router {

namespace {

// The length of the JSON number at s[pos] (0 if there is none), read into *out. One pass checks
// the grammar (from_chars alone would also take "1.", "01", "inf" and "nan") and collects the
// decimal digits. Most numbers in a model file have at most 9 of them and a small exponent, so
// the double is exact as digits * 10^e or digits / 10^-e: both operands are exact doubles and
// IEEE rounds the one operation correctly, as from_chars would (Clinger's fast path). The rest go
// through from_chars.
size_t json_number(std::string_view s, size_t pos, double* out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t i = pos;
  uint64_t digits = 0;
  int significant = 0;  // digits counted from the first non-zero one
  int exp10 = 0;
  auto at = [&](char c) { return i < s.size() && s[i] == c; };
  auto is_digit = [&] { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  auto take = [&](bool fraction) {
    const int d = s[i++] - '0';
    if (significant < 19) {
      digits = digits * 10 + d;
      significant += digits != 0;
      exp10 -= fraction;
    } else {
      significant = 99;  // too many digits for the fast path
    }
  };
  const bool negative = at('-');
  if (negative) ++i;
  if (at('0')) {
    ++i;
  } else if (is_digit()) {
    while (is_digit()) take(false);
  } else {
    return 0;
  }
  if (at('.')) {
    ++i;
    if (!is_digit()) return 0;
    while (is_digit()) take(true);
  }
  if (at('e') || at('E')) {
    ++i;
    const bool minus = at('-');
    if (at('+') || at('-')) ++i;
    if (!is_digit()) return 0;
    int e = 0;
    while (is_digit()) {
      e = std::min(e * 10 + (s[i++] - '0'), 100000);
    }
    exp10 += minus ? -e : e;
  }
  if (significant <= 15 && exp10 >= -22 && exp10 <= 22) {
    const double m = static_cast<double>(digits);  // < 10^15 < 2^53: exact
    const double v = exp10 >= 0 ? m * kPow10[exp10] : m / kPow10[-exp10];
    *out = negative ? -v : v;
    return i - pos;
  }
  const auto res = std::from_chars(s.data() + pos, s.data() + i, *out);
  return res.ec == std::errc() && res.ptr == s.data() + i ? i - pos : 0;
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Where a value sits: only the top object, its "tensors" object (or one in its "members" array)
// and each tensor's object matter.
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
    while (pos_ < t_.size() && is_space(t_[pos_])) ++pos_;
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

  bool number(double* out) {
    const size_t n = json_number(t_, pos_, out);
    if (n == 0) return false;
    pos_ += n;
    return true;
  }

  bool literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // One data array, skipped and remembered; pos_ is just after '['. A ']' cannot occur in the
  // numbers, so the first one ends the array; if there is anything else inside, parse_floats
  // will say so later.
  bool data_array(std::string_view tensor) {
    const std::string name = prefix_ + std::string(tensor);
    if (data_.count(name)) return false;  // a duplicate: the slow path says so
    const size_t begin = pos_;
    const size_t close = t_.find(']', begin);
    if (close == std::string_view::npos) return false;
    data_[name] = t_.substr(begin, close - begin);
    cuts_.emplace_back(begin, close);
    cut_total_ += close - begin;
    pos_ = close + 1;
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
      } else if (where == Where::kRoot && key == "members" && at('[')) {
        if (!array(depth + 1, true)) return false;
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

  // With `members`, the "members" array of an ensemble: each element is a "tensors" object, whose
  // data arrays are named member_prefix(i) + tensor.
  bool array(int depth, bool members = false) {
    if (depth > max_depth_) return false;
    ++pos_;
    ws();
    if (at(']')) {
      ++pos_;
      return true;
    }
    for (int i = 0;; ++i) {
      ws();
      if (members) {
        if (!at('{')) return false;
        prefix_ = member_prefix(i);
      }
      const bool ok = value(depth, members ? Where::kTensors : Where::kOther, {});
      if (members) prefix_.clear();
      if (!ok) return false;
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
  std::string prefix_;  // of the member being read, "" outside "members"
  size_t pos_ = 0;
  std::vector<std::pair<size_t, size_t>> cuts_;  // [begin, end) of each emptied array's inside
  size_t cut_total_ = 0;
  std::map<std::string, std::string_view> data_;
};

}  // namespace

std::string member_prefix(int member) { return "members/" + std::to_string(member) + "/"; }

std::optional<SplitModelText> split_tensor_data(std::string_view text, int max_depth) {
  return Scanner(text, max_depth).run();
}

int64_t parse_floats(std::string_view inside, float* out, int64_t capacity) {
  size_t i = 0;
  auto skip = [&] {
    while (i < inside.size() && is_space(inside[i])) ++i;
  };
  skip();
  if (i == inside.size()) return 0;
  int64_t n = 0;
  for (;;) {
    skip();
    double x = 0;
    const size_t len = json_number(inside, i, &x);
    if (len == 0) return -1;
    i += len;
    const float f = static_cast<float>(x);
    if (!std::isfinite(x) || !std::isfinite(f)) return -1;
    if (n < capacity) out[n] = f;
    ++n;
    skip();
    if (i == inside.size()) return n;
    if (inside[i] != ',') return -1;
    ++i;
  }
}

}  // namespace router
