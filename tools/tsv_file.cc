#include "tsv_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

namespace router::crumb {
namespace {

std::string joined(std::span<const std::string> words, const char* sep) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): the generator
// copies phrases into JSON strings byte for byte.
bool is_utf8(std::string_view s) {
  static constexpr uint32_t kLeast[] = {0, 0x80, 0x800, 0x10000};
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const int more = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 0;
    if (more == 0 || i + more >= s.size()) return false;
    uint32_t cp = c & (0x7F >> (more + 1));
    for (int k = 1; k <= more; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < kLeast[more] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += more + 1;
  }
  return true;
}

// Undoes \t, \n and \\; returns an error message (empty when the field is fine).
std::string unescape(std::string_view raw, std::string& out) {
  out.clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    if (i + 1 == raw.size()) return "ends in a lone backslash (write \\\\ for a backslash)";
    switch (raw[++i]) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case '\\':
        out += '\\';
        break;
      default:
        return std::string("unknown escape \\") + raw[i] + " (only \\t, \\n and \\\\)";
    }
  }
  return "";
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string_view::npos; start = tab + 1)
    out.push_back(line.substr(start, tab - start));
  out.push_back(line.substr(start));
  return out;
}

}  // namespace

TsvFile::TsvFile(std::filesystem::path path, std::vector<std::string> columns)
    : path_(std::move(path)), columns_(std::move(columns)) {
  std::ifstream f(path_, std::ios::binary);
  if (!f) fail(0, std::string("cannot read (") + std::strerror(errno) + ")");
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  if (f.bad()) fail(0, "cannot read");

  bool have_header = false;
  int line_no = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    for (const char ch : line) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '\r') fail(line_no, "carriage return (the file must have Unix line ends)");
      if (c < 0x20 && c != '\t')
        fail(line_no, "control character (byte " + std::to_string(c) + "; write \\t or \\n)");
    }
    if (!is_utf8(line)) fail(line_no, "not UTF-8");
    const std::vector<std::string_view> raw = split_tabs(line);
    if (!have_header) {
      const std::vector<std::string> got(raw.begin(), raw.end());
      if (got != columns_)
        fail(line_no, "the header names the columns " + joined(got, ", ") + "; want " +
                          joined(columns_, ", "));
      have_header = true;
      continue;
    }
    if (raw.size() != columns_.size())
      fail(line_no, std::to_string(raw.size()) + " fields, want " +
                        std::to_string(columns_.size()) + " (" + joined(columns_, ", ") + ")");
    TsvRow row{line_no, std::vector<std::string>(raw.size())};
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i].empty()) fail(line_no, "column " + columns_[i] + " is empty");
      const std::string error = unescape(raw[i], row.fields[i]);
      if (!error.empty()) fail(line_no, "column " + columns_[i] + ": " + error);
    }
    rows_.push_back(std::move(row));
  }
  if (!have_header) fail(0, "no header line (want " + joined(columns_, ", ") + ")");
}

size_t TsvFile::column_index(std::string_view column) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == column) return i;
  throw std::logic_error(path_.string() + " has no column " + std::string(column));
}

const std::string& TsvFile::field(const TsvRow& row, std::string_view column) const {
  return row.fields[column_index(column)];
}

int TsvFile::number(const TsvRow& row, std::string_view column, int lo, int hi) const {
  const std::string& s = field(row, column);
  const bool digits = s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
  const int n = digits ? std::stoi(s) : -1;
  if (!digits || n < lo || n > hi)
    fail(row.line, "column " + std::string(column) + ": '" + s + "' is not a whole number from " +
                       std::to_string(lo) + " to " + std::to_string(hi));
  return n;
}

size_t TsvFile::choice(const TsvRow& row, std::string_view column,
                       std::span<const std::string_view> names) const {
  const std::string& s = field(row, column);
  std::string want;
  for (size_t i = 0; i < names.size(); ++i) {
    if (s == names[i]) return i;
    want += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  }
  fail(row.line,
       "column " + std::string(column) + ": unknown value '" + s + "' (want " + want + ")");
}

bool TsvFile::yes_no(const TsvRow& row, std::string_view column) const {
  static constexpr std::string_view kNames[] = {"no", "yes"};
  return choice(row, column, kNames) == 1;
}

void TsvFile::fail(int line, const std::string& what) const {
  throw PhraseError(path_.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
}

}  // namespace router::crumb
